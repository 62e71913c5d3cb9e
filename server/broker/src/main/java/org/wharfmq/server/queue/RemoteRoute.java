package org.wharfmq.server.queue;

import org.wharfmq.protocol.message.TransmissionHeader;
import org.wharfmq.protocol.message.WireDestination;

/**
 * The last name one session resolved to another queue manager ({@link QueueNameResolver#resolve}), remembered with
 * where it leads, so that a producer that puts to the same remote name message after message (a responder replying
 * to {@code QM1.R1/REPLY1}, a requester putting to a remote queue definition) does not resolve it anew for each: the
 * name is compared with the one remembered, and the resolver's {@link QueueNameResolver#generation() generation} with
 * the one it was resolved at, which every change of the definitions moves on (a queue, alias, remote queue or
 * queue-manager alias defined, altered or deleted): the first put after a change goes the new way. Only a resolution
 * to another queue manager is kept: its queue is a defined transmission queue, gone only by such a change, where a
 * local queue may also come and go by use. With it, the transmission header its messages share
 * ({@link TransmissionHeader.Route}: their JMSDestination and header properties, encoded once).
 *
 * <p>Owned by the session's thread (its connection's event loop): not thread-safe.
 */
public final class RemoteRoute {

    private WireDestination destination;
    private long generation;
    private QueueNameResolver.Resolution resolution;
    /** The transmission header of {@link #resolution}'s messages; null until asked. */
    private TransmissionHeader.Route header;

    /** Where a put to {@code destination} goes, as {@link QueueNameResolver#resolve} says. */
    public QueueNameResolver.Resolution resolve(QueueNameResolver resolver, WireDestination to, QueueCreator creator) {
        long now = resolver.generation(); // read before resolving: a change while it resolves makes the next look again
        if (now == generation && to.equals(destination)) {
            return resolution;
        }
        QueueNameResolver.Resolution resolved = resolver.resolve(to, creator);
        if (resolved.remote()) {
            destination = to;
            generation = now;
            resolution = resolved;
            header = null;
        }
        return resolved;
    }

    /**
     * What the transmission headers of the messages {@code resolved} (a resolution to another queue manager) sends
     * share, put on {@code sourceQueueManager} (this queue manager): the one kept for the resolution remembered,
     * else one for it alone.
     */
    public TransmissionHeader.Route header(QueueNameResolver.Resolution resolved, String sourceQueueManager) {
        if (resolved != resolution) {
            return TransmissionHeader.route(resolved.queueManager(), resolved.remoteQueue(), sourceQueueManager);
        }
        if (header == null) {
            header = TransmissionHeader.route(resolved.queueManager(), resolved.remoteQueue(), sourceQueueManager);
        }
        return header;
    }
}
