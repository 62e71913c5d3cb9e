package org.wharfmq.jms;

import org.wharfmq.client.core.ClientException;
import org.wharfmq.client.core.ConnectedLink;
import org.wharfmq.client.core.CoreSender;

import io.netty.buffer.ByteBuf;
import org.wharfmq.jms.message.MessageCodec;
import org.wharfmq.jms.message.WharfMessage;
import org.wharfmq.protocol.message.WireDestination;

import javax.jms.CompletionListener;
import javax.jms.DeliveryMode;
import javax.jms.Destination;
import javax.jms.IllegalStateException;
import javax.jms.JMSException;
import javax.jms.Message;

/**
 * The JMS side of one session's sends, over the core's {@link CoreSender} (which owns producer credit, synchronous and
 * asynchronous sends, their completion order and sends in a transaction): stamps a message's JMS headers, encodes it
 * with {@link MessageCodec} for the link the core sends it on, calls an asynchronous send's CompletionListener from the
 * core's completion, gives the core's failures as JMS exceptions, and refuses what JMS forbids a CompletionListener.
 */
final class SessionSender {

    /** A WharfMessage in the protocol's encoding: JMSXUserID the link's user, within the server's maximum length. */
    private static final CoreSender.Encoder<WharfMessage> ENCODER = new JmsEncoder();

    private final WharfConnection connection;
    private final CoreSender core;

    SessionSender(WharfConnection connection, CoreSender core) {
        this.connection = connection;
        this.core = core;
    }

    /**
     * Sends a message: sets its headers and hands it to the core, which encodes it (on this thread) and writes it,
     * waiting for the server's answer when the send is synchronous (persistent outside a transaction, or syncSends). An
     * earlier fire-and-forget send's failure is thrown here instead, and this message is not sent.
     *
     * <p>With a {@code completionListener} the send is asynchronous (JMS 2.0): this method returns once the frame is
     * written, and the listener is called on the session's completion thread when the server's answer arrives, in send
     * order.
     *
     * @param deliveryDelay    ms before the message may be delivered; 0 = at once
     * @param disableMessageId the producer's hint: send no JMSMessageID (honoured: null)
     * @param disableTimestamp the producer's hint: send no JMSTimestamp (honoured: 0)
     */
    void send(int producerId, Destination destination, WireDestination wire, Message message, int deliveryMode,
              int priority, long timeToLive, long deliveryDelay, boolean disableMessageId, boolean disableTimestamp,
              CompletionListener completionListener) throws JMSException {
        if (message == null) {
            throw new javax.jms.MessageFormatException("The message must not be null");
        }
        WharfMessage wharf = message instanceof WharfMessage w ? w : MessageCodec.copyOf(message);
        long now = System.currentTimeMillis();
        String messageId = disableMessageId ? null : core.connection().nextMessageId();
        long timestamp = disableTimestamp ? 0 : now;
        long expiration = timeToLive > 0 ? now + timeToLive : 0;
        long deliveryTime = deliveryDelay > 0 ? now + deliveryDelay : 0;
        stampHeaders(wharf, destination, deliveryMode, priority, messageId, timestamp, expiration, deliveryTime);
        if (wharf != message) {
            stampHeaders(message, destination, deliveryMode, priority, messageId, timestamp, expiration, deliveryTime);
        }
        try {
            core.send(producerId, wire, wharf, ENCODER, deliveryMode == DeliveryMode.PERSISTENT,
                    completionListener == null ? null : new ListenerCompletion(connection, message, completionListener));
        } catch (ClientException e) {
            throw connection.toJms(e);
        }
    }

    /** Waits until every asynchronous send so far has completed and its CompletionListener returned. */
    void awaitCompletions() {
        core.awaitCompletions();
    }

    /** True on this session's CompletionListener thread: it must not close or commit its own session (JMS 2.0). */
    boolean isCompletionThread() {
        return core.isCompletionThread();
    }

    /** Refuses {@code what} from this session's CompletionListener, as JMS 2.0 requires. */
    void checkNotInCompletionListener(String what) throws IllegalStateException {
        if (isCompletionThread()) {
            throw new IllegalStateException("A CompletionListener must not " + what + " (JMS 2.0 section 7.3.8)");
        }
    }

    private static void stampHeaders(Message m, Destination destination, int deliveryMode, int priority, String messageId,
                                     long timestamp, long expiration, long deliveryTime) throws JMSException {
        m.setJMSDestination(destination);
        m.setJMSDeliveryMode(deliveryMode);
        m.setJMSPriority(priority);
        m.setJMSMessageID(messageId);
        m.setJMSTimestamp(timestamp);
        m.setJMSExpiration(expiration);
        m.setJMSDeliveryTime(deliveryTime);
    }

    /**
     * Encodes for a link: JMSXUserID its user (provider-set, so never what the application put there); a body alone
     * over the server's maximum is refused before it is encoded (the core checks the whole encoding after). A
     * JMSException goes to the core as the cause of a ClientException, and comes back out as it is
     * ({@link WharfConnection#toJms}).
     */
    private static final class JmsEncoder implements CoreSender.Encoder<WharfMessage> {
        @Override
        public ByteBuf encode(WharfMessage wharf, WireDestination wire, ConnectedLink on) throws ClientException {
            try {
                wharf.setProviderProperty(WharfMessage.JMSX_USER_ID, on.userName());
                long bodyLength = MessageCodec.bodyLength(wharf);
                if (bodyLength > on.maxMessageLength()) {
                    throw CoreSender.tooLarge(bodyLength, on.maxMessageLength());
                }
                ByteBuf buffer = on.link().alloc().ioBuffer(MessageCodec.sizeHint(wharf));
                try {
                    MessageCodec.encode(wharf, wire, buffer);
                } catch (JMSException | RuntimeException e) {
                    buffer.release();
                    throw e;
                }
                return buffer;
            } catch (JMSException e) {
                throw JmsErrors.toCore(e);
            }
        }
    }

    /**
     * An asynchronous send's CompletionListener, called by the core's completion (one per send, as the listener's
     * message is). Not a record: the Eclipse Transformer, which makes the jakarta client from this one, leaves the
     * types of a record's components in javax.jms (JakartaJarIT).
     */
    private static final class ListenerCompletion extends CoreSender.Completion {
        private final WharfConnection connection;
        private final Message message;
        private final CompletionListener listener;

        ListenerCompletion(WharfConnection connection, Message message, CompletionListener listener) {
            this.connection = connection;
            this.message = message;
            this.listener = listener;
        }

        @Override
        protected void completed(ClientException failure) {
            if (failure == null) {
                listener.onCompletion(message);
            } else {
                listener.onException(message, connection.toJms(failure));
            }
        }
    }
}
