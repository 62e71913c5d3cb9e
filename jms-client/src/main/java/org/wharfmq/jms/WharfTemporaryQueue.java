package org.wharfmq.jms;

import org.wharfmq.protocol.message.WireDestination;

import javax.jms.JMSException;
import javax.jms.TemporaryQueue;

/**
 * A temporary queue: created by a connection ({@code Session.createTemporaryQueue}), named
 * {@code TMP.<connection uuid>.<n>} so the name is unique across connections, and deleted with that connection or by
 * {@link #delete()}. Anyone may send to it (it is usually a message's JMSReplyTo); only consumers of the creating
 * connection may receive from it (others get InvalidDestinationException). Its messages are never written to the
 * server's journal.
 *
 * <p>An instance received as a JMSReplyTo (or deserialised) knows no owner: it can be sent to, not deleted.
 */
public final class WharfTemporaryQueue extends WharfQueue implements TemporaryQueue {
    private static final long serialVersionUID = 1L;

    private final transient TemporaryDestinationOwner owner;

    WharfTemporaryQueue(String name, TemporaryDestinationOwner owner) {
        super(WireDestination.Kind.TEMPORARY_QUEUE, name);
        this.owner = owner;
    }

    /**
     * Deletes the queue on the server.
     *
     * @throws javax.jms.IllegalStateException while consumers still use it, when its connection is closed, or when
     *                                         this object was not returned by createTemporaryQueue
     * @throws javax.jms.InvalidDestinationException when it has already been deleted
     */
    @Override
    public void delete() throws JMSException {
        TemporaryDestinationOwner.requireOwner(owner, this).delete(this);
    }
}
