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

    WharfQueue(WireDestination.Kind kind, String name) {
        super(kind, name);
    }

    @Override
    public String getQueueName() {
        return getPhysicalName();
    }
}
