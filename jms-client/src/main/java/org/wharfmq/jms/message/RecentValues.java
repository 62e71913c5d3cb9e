package org.wharfmq.jms.message;

import io.netty.buffer.ByteBuf;
import org.wharfmq.client.core.ClientConfiguration;
import org.wharfmq.jms.WharfDestination;
import org.wharfmq.protocol.message.MessageReader;
import org.wharfmq.protocol.message.RecentStrings;
import org.wharfmq.protocol.message.WireDestination;

import java.util.Map;

/**
 * What one consumer's messages repeat from one to the next, remembered from the last it decoded
 * ({@link MessageCodec#decode(ByteBuf, int, RecentValues)}): its JMSDestination and JMSReplyTo (the same destination
 * object handed out again, not its name decoded into a new one per message) and its property names and string values
 * place by place ({@link RecentStrings}). A subscriber's messages mostly come from one topic with the same property
 * names, so each message decodes only what differs. Destinations are immutable, as the strings are, so messages
 * sharing them is invisible to the application.
 *
 * <p>One per consumer, used by the thread that decodes its messages; a second thread decoding at the same time (two
 * receives on one consumer, which JMS forbids) gets right values either way, at worst decoded anew.
 */
public final class RecentValues {

    /** A destination as read and as handed out; one immutable pair so that a racing reader never mixes two. */
    private record Resolved(WireDestination wire, WharfDestination jms) {
    }

    /** One header's destination, as the last message had it. */
    private static final class Recent {
        private Resolved last;

        /** The wire form last read, for the reader to compare the next with; null for none. */
        WireDestination wire() {
            Resolved resolved = last;
            return resolved == null ? null : resolved.wire();
        }

        /** The destination object for {@code read}: the last one when the reader returned its wire form. */
        WharfDestination handOut(WireDestination read) {
            if (read == null) {
                return null;
            }
            Resolved resolved = last;
            if (resolved == null || resolved.wire() != read) {
                resolved = new Resolved(read, WharfDestination.fromWire(read));
                last = resolved;
            }
            return resolved.jms();
        }
    }

    private final RecentStrings properties = new RecentStrings(ClientConfiguration.RECENT_PROPERTY_STRINGS);
    private final Recent destination = new Recent();
    private final Recent replyTo = new Recent();

    /** JMSDestination, or null; the last one's object when it is the same. */
    WharfDestination readDestination(ByteBuf in) {
        return destination.handOut(MessageReader.readDestination(in, destination.wire()));
    }

    /** JMSReplyTo, or null; the last one's object when it is the same. */
    WharfDestination readReplyTo(ByteBuf in) {
        return replyTo.handOut(MessageReader.readReplyTo(in, replyTo.wire()));
    }

    /** The properties, their names and string values the last message's where they are the same. */
    Map<String, Object> readProperties(ByteBuf in, int start) {
        return MessageReader.readProperties(in, start, properties);
    }
}
