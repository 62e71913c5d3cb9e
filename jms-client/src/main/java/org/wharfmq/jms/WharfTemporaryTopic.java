package org.wharfmq.jms;

import org.wharfmq.protocol.message.WireDestination;

import javax.jms.JMSException;
import javax.jms.TemporaryTopic;

/**
 * A temporary topic: created by a connection ({@code Session.createTemporaryTopic}), named
 * {@code TMP.<connection uuid>.<n>}, owned by that connection and deleted with it or by {@link #delete()}. Anyone
 * may publish to it; only its connection may subscribe, and only by its exact name (no wildcard reaches it).
 */
public final class WharfTemporaryTopic extends WharfTopic implements TemporaryTopic {
    private static final long serialVersionUID = 1L;

    private final transient TemporaryDestinationOwner owner;

    WharfTemporaryTopic(String name, TemporaryDestinationOwner owner) {
        super(WireDestination.Kind.TEMPORARY_TOPIC, name);
        this.owner = owner;
    }

    /**
     * Deletes the topic on the server.
     *
     * @throws javax.jms.IllegalStateException while it is in use, when its connection is closed, or when this object
     *                                         was not returned by createTemporaryTopic
     */
    @Override
    public void delete() throws JMSException {
        TemporaryDestinationOwner.requireOwner(owner, this).delete(this);
    }
}
