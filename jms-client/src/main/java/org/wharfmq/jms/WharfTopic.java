package org.wharfmq.jms;

import org.wharfmq.protocol.message.WireDestination;

import javax.jms.Topic;

/**
 * A Wharf topic, identified by its physical name. Topic objects can be created and passed around (for example as
 * JMSReplyTo), published to and subscribed to. Levels are separated by {@code /}; subscriptions may use the
 * wildcards {@code +} (one level) and {@code #} (any number of levels, last), as IBM MQ topic strings do.
 */
public sealed class WharfTopic extends WharfDestination implements Topic permits WharfTemporaryTopic {
    private static final long serialVersionUID = 1L;

    /** A topic with the given physical name. */
    public WharfTopic(String name) {
        super(WireDestination.Kind.TOPIC, name);
    }

    WharfTopic(WireDestination.Kind kind, String name) {
        super(kind, name);
    }

    @Override
    public String getTopicName() {
        return getPhysicalName();
    }
}
