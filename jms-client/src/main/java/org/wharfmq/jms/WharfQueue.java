package org.wharfmq.jms;

import org.wharfmq.protocol.message.WireDestination;

import javax.jms.Queue;

/**
 * A Wharf queue, identified by its physical name. Create with {@code Session.createQueue} or via JNDI; temporary
 * queues are the subclass {@link WharfTemporaryQueue}.
 */
public sealed class WharfQueue extends WharfDestination implements Queue permits WharfTemporaryQueue {
    private static final long serialVersionUID = 1L;

    /** A queue with the given physical name. */
    public WharfQueue(String name) {
        super(WireDestination.Kind.QUEUE, name);
    }

    /**
     * The queue {@code Session.createQueue} names: a queue's name ({@code ORDERS}), a name qualified by the queue
     * manager that holds the queue ({@code QM2/ORDERS}), or either as a URI, as IBM MQ's JMS writes them:
     * {@code queue://QM2/ORDERS}, and {@code queue:///ORDERS} for the queue manager connected to. The queue manager
     * resolves a qualified name (docs/distributed.md).
     */
    static WharfQueue parse(String text) {
        String name = text.startsWith(URI_PREFIX) ? text.substring(URI_PREFIX.length()) : text;
        if (name.startsWith("/")) {
            name = name.substring(1); // queue:///ORDERS: no queue manager named, the one connected to
        }
        return new WharfQueue(name);
    }

    private static final String URI_PREFIX = "queue://";

    WharfQueue(WireDestination.Kind kind, String name) {
        super(kind, name);
    }

    @Override
    public String getQueueName() {
        return getPhysicalName();
    }
}
