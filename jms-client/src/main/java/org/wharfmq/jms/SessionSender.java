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
 * asynchronous sends, their completion order, sends in a transaction, and the headers each send gets: message id,
 * timestamp, expiration and delivery time): sets the JMS headers the application chose (destination, delivery mode,
 * priority), is the core's {@link CoreSender.Encoder} of JMS messages ({@link MessageCodec}, for the link the core sends
 * on), calls an asynchronous send's CompletionListener from the core's completion, gives the core's failures as JMS
 * exceptions, and refuses what JMS forbids a CompletionListener.
 *
 * <p>Used by the session's one sending thread at a time, as the core sender is.
 */
final class SessionSender implements CoreSender.Encoder<WharfMessage> {

    private final WharfConnection connection;
    private final CoreSender core;
    /**
     * The application's own message while a send of a copy of it (a message of another provider) is under way: it gets
     * the headers the copy gets; null otherwise. The sending thread's.
     */
    private Message foreign;

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
        setChosenHeaders(wharf, destination, deliveryMode, priority);
        if (wharf != message) {
            setChosenHeaders(message, destination, deliveryMode, priority);
            foreign = message;
        }
        try {
            core.send(producerId, wire, wharf, this, deliveryMode == DeliveryMode.PERSISTENT, timeToLive, deliveryDelay,
                    (disableMessageId ? CoreSender.NO_MESSAGE_ID : 0) | (disableTimestamp ? CoreSender.NO_TIMESTAMP : 0),
                    completionListener == null ? null : new ListenerCompletion(connection, message, completionListener));
        } catch (ClientException e) {
            throw connection.toJms(e);
        } finally {
            foreign = null;
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

    /** The headers the application chose for the send. */
    private static void setChosenHeaders(Message m, Destination destination, int deliveryMode, int priority)
            throws JMSException {
        m.setJMSDestination(destination);
        m.setJMSDeliveryMode(deliveryMode);
        m.setJMSPriority(priority);
    }

    /** The headers the core gives the send: the message's, and its original's when it is a copy. */
    @Override
    public void stamp(WharfMessage wharf, String messageId, long timestamp, long expiration, long deliveryTime)
            throws ClientException {
        wharf.setJMSMessageID(messageId);
        wharf.setJMSTimestamp(timestamp);
        wharf.setJMSExpiration(expiration);
        wharf.setJMSDeliveryTime(deliveryTime);
        Message original = foreign;
        if (original != null) {
            try {
                original.setJMSMessageID(messageId);
                original.setJMSTimestamp(timestamp);
                original.setJMSExpiration(expiration);
                original.setJMSDeliveryTime(deliveryTime);
            } catch (JMSException e) {
                throw JmsErrors.toCore(e); // another provider's message that refuses its own setters
            }
        }
    }

    /**
     * Encodes for a link: JMSXUserID its user (provider-set, so never what the application put there); a body alone
     * over the server's maximum is refused before it is encoded (the core checks the whole encoding after). A
     * JMSException goes to the core as the cause of a ClientException, and comes back out as it is
     * ({@link WharfConnection#toJms}).
     */
    @Override
    public ByteBuf encode(WharfMessage wharf, WireDestination wire, ConnectedLink on) throws ClientException {
        try {
            wharf.setProviderProperty(WharfMessage.JMSX_USER_ID, on.userName());
            long bodyLength = MessageCodec.bodyLength(wharf);
            if (bodyLength > on.maxMessageLength()) {
                throw CoreSender.bodyTooLarge(bodyLength, on);
            }
            return MessageCodec.encode(wharf, wire, on.link().alloc());
        } catch (JMSException e) {
            throw JmsErrors.toCore(e);
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
