package org.wharfmq.server.management;

import org.wharfmq.server.config.QueueReference;

/**
 * A queue alias, remote queue or queue-manager alias as an administrator sees it ({@code display names}).
 *
 * @param name               its name
 * @param type               {@code alias} or {@code remote}
 * @param target             an alias's queue; null otherwise
 * @param remoteQueue        a remote queue's name on the other queue manager; null for a queue-manager alias
 * @param remoteQueueManager the other queue manager
 * @param transmissionQueue  the transmission queue it names, or null
 * @param description        what it is, for people ("remote queue ORDERS on QM2 through QM2.XMIT")
 * @param origin             {@code CONFIGURATION} (queues: of the configuration file) or {@code DEFINED} (at run time)
 */
public record QueueNameStatus(String name, String type, String target, String remoteQueue, String remoteQueueManager,
                              String transmissionQueue, String description, String origin) {

    /** The status of {@code reference}, defined in the configuration file or not. */
    public static QueueNameStatus of(QueueReference reference, boolean configured) {
        return new QueueNameStatus(reference.name(), reference.type(), reference.target(), reference.remoteQueue(),
                reference.remoteQueueManager(), reference.transmissionQueue(), reference.describe(),
                configured ? "CONFIGURATION" : "DEFINED");
    }
}
