package org.wharfmq.jms;

import org.wharfmq.client.core.ClientException;
import org.wharfmq.client.core.ConnectedLink;
import org.wharfmq.client.core.PendingRequests;
import org.wharfmq.client.core.ProducerCredit;
import org.wharfmq.client.core.transport.FrameLink;

import io.netty.buffer.ByteBuf;
import org.wharfmq.jms.message.MessageCodec;
import org.wharfmq.jms.message.WharfMessage;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.message.MessageWriter;
import org.wharfmq.protocol.message.WireDestination;

import javax.jms.CompletionListener;
import javax.jms.DeliveryMode;
import javax.jms.Destination;
import javax.jms.IllegalStateException;
import javax.jms.JMSException;
import javax.jms.Message;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One session's sending: stamps a message's JMS headers, encodes it into a pooled buffer on the sending thread and
 * writes it once the session has {@link ProducerCredit} for it (producer flow control: it waits while the server
 * holds credit back), waiting for the server's answer when the send is synchronous (persistent outside a transaction,
 * or the URL option {@code syncSends}); holds the first failure of a fire-and-forget send until the session's next
 * send or commit reports it, and owns the {@link CompletionDispatcher} that calls asynchronous sends' CompletionListeners.
 * The session's producers send through it; thread-safe as a JMS session needs (one sending thread at a time, the
 * dispatcher and the connection's reader beside it).
 */
final class SessionSender {

    private final WharfSession session;
    private final WharfConnection connection;
    private final int sessionId;
    /** Sends wait for a commit: a transacted session's always, an XA session's inside an XA branch. */
    private volatile boolean transacted;
    private final boolean syncSends;
    /** The first failed fire-and-forget send not yet reported to the application. */
    private final AtomicReference<Frame.Error> asyncSendError = new AtomicReference<>();
    private volatile CompletionDispatcher completions;
    private final ProducerCredit credit;

    /**
     * @param transacted whether sends wait for COMMIT (so none waits for its own answer)
     * @param syncSends  every send waits for the server's answer (URL option)
     */
    SessionSender(WharfSession session, boolean transacted, boolean syncSends) {
        this.session = session;
        this.connection = session.connection();
        this.sessionId = session.id();
        this.transacted = transacted;
        this.syncSends = syncSends;
        this.credit = new ProducerCredit(new CreditSession(session));
    }

    /**
     * Sends a message: sets its headers, encodes it into a pooled buffer on this thread and writes it. Waits for
     * the server's answer when the send is synchronous (persistent outside a transaction, or syncSends). An
     * earlier fire-and-forget send's failure is thrown here instead, and this message is not sent.
     *
     * <p>With a {@code completionListener} the send is asynchronous (JMS 2.0): it carries a request id, this
     * method returns once the frame is queued, and the session's {@link CompletionDispatcher} calls the listener
     * when the server's answer arrives, in send order.
     *
     * @param deliveryDelay    ms before the message may be delivered; 0 = at once
     * @param disableMessageId the producer's hint: send no JMSMessageID (honoured: null)
     * @param disableTimestamp the producer's hint: send no JMSTimestamp (honoured: 0)
     */
    void send(int producerId, Destination destination, WireDestination wire, Message message, int deliveryMode,
              int priority, long timeToLive, long deliveryDelay, boolean disableMessageId, boolean disableTimestamp,
              CompletionListener completionListener) throws JMSException {
        session.checkNotClosed();
        throwAsyncSendError();
        if (message == null) {
            throw new javax.jms.MessageFormatException("The message must not be null");
        }
        // throws once the connection is closed or lost for good; while it reconnects, the send waits here
        ConnectedLink on = connection.usableLink();
        WharfMessage wharf = message instanceof WharfMessage w ? w : MessageCodec.copyOf(message);
        long now = System.currentTimeMillis();
        String messageId = disableMessageId ? null : connection.nextMessageId();
        long timestamp = disableTimestamp ? 0 : now;
        long expiration = timeToLive > 0 ? now + timeToLive : 0;
        long deliveryTime = deliveryDelay > 0 ? now + deliveryDelay : 0;
        stampHeaders(wharf, destination, deliveryMode, priority, messageId, timestamp, expiration, deliveryTime);
        if (wharf != message) {
            stampHeaders(message, destination, deliveryMode, priority, messageId, timestamp, expiration, deliveryTime);
        }
        ByteBuf buffer;
        while ((buffer = encodeAndSpend(wharf, wire, on)) == null) {
            on = connection.usableLink(); // lost while the send waited for credit: it goes on the link made again
        }
        if (completionListener != null) {
            PendingRequests.Request request = connection.register(on);
            completions().add(message, completionListener, request.answer(), request.id);
            on.write(new Frame.Send(request.id, sessionId, producerId, buffer));
            return;
        }
        boolean sync = syncSends || (!transacted && deliveryMode == DeliveryMode.PERSISTENT);
        if (sync) {
            sendAndAwait(on, producerId, wharf, wire, buffer);
        } else if (transacted) {
            session.settlement().work(on); // a transaction with sends over a link since lost is rolled back at commit
            on.writeSoon(new Frame.Send(0, sessionId, producerId, buffer)); // nothing of it is seen before the commit
        } else {
            on.write(new Frame.Send(0, sessionId, producerId, buffer));
        }
    }

    /**
     * The message encoded for {@code on}'s server: JMSXUserID its user (provider-set, so never what the application
     * put there), within its maximum message length.
     */
    private ByteBuf encode(WharfMessage wharf, WireDestination wire, ConnectedLink on) throws JMSException {
        wharf.setProviderProperty(WharfMessage.JMSX_USER_ID, on.userName());
        int max = on.maxMessageLength();
        long bodyLength = MessageCodec.bodyLength(wharf);
        if (bodyLength > max) {
            throw tooLarge(bodyLength, max);
        }
        ByteBuf buffer = on.link().alloc().ioBuffer(MessageCodec.sizeHint(wharf));
        try {
            MessageCodec.encode(wharf, wire, buffer);
        } catch (JMSException | RuntimeException e) {
            buffer.release();
            throw e;
        }
        int length = buffer.readableBytes();
        if (length > max) {
            buffer.release();
            throw tooLarge(length, max);
        }
        return buffer;
    }

    /**
     * The message encoded for {@code on} with its producer credit spent there, waiting while the server holds the
     * session's credit back; null when {@code on} was lost meanwhile (nothing spent, nothing to release).
     */
    private ByteBuf encodeAndSpend(WharfMessage wharf, WireDestination wire, ConnectedLink on) throws JMSException {
        ByteBuf buffer = encode(wharf, wire, on);
        try {
            if (credit.spend(buffer.readableBytes(), on)) {
                return buffer;
            }
        } catch (ClientException e) {
            buffer.release();
            throw JmsErrors.fromCore(e, "SEND");
        }
        buffer.release();
        return null;
    }

    /**
     * A synchronous send: waits for the server's answer. If the link is lost first, nobody knows whether the server
     * stored the message, so once the connection is made again the message is sent again, flagged as resent
     * ({@code MessageEncoding.FLAG_RESENT}): if both copies were stored, the receiver gets the second marked
     * JMSRedelivered, never twice unmarked; the send is never silently lost. The copy spends producer credit on the
     * new link, whose server counts it against the session's new window like any SEND.
     */
    private void sendAndAwait(ConnectedLink on, int producerId, WharfMessage wharf, WireDestination wire, ByteBuf buffer)
            throws JMSException {
        ByteBuf sending = buffer;
        ConnectedLink link = on;
        while (true) {
            ByteBuf message = sending;
            try {
                Frame.Error error = connection.request(link, rid -> new Frame.Send(rid, sessionId, producerId, message), "SEND");
                if (error != null) {
                    throw JmsErrors.toException(error);
                }
                return;
            } catch (ReconnectingException lost) {
                do {
                    link = connection.usableLink();
                    sending = encodeAndSpend(wharf, wire, link);
                } while (sending == null);
                MessageWriter.markResent(sending);
            }
        }
    }

    private CompletionDispatcher completions() {
        CompletionDispatcher d = completions;
        if (d == null) {
            synchronized (this) {
                d = completions;
                if (d == null) {
                    d = new CompletionDispatcher(session, "wharf-completion-" + sessionId + "-" + connection.current().address());
                    completions = d;
                    d.start();
                }
            }
        }
        return d;
    }

    /** Waits until every asynchronous send so far has completed and its CompletionListener returned. */
    void awaitCompletions() {
        CompletionDispatcher d = completions;
        if (d != null) {
            d.awaitIdle();
        }
    }

    /** True on this session's CompletionListener thread: it must not close or commit its own session (JMS 2.0). */
    boolean isCompletionThread() {
        CompletionDispatcher d = completions;
        return d != null && d == Thread.currentThread();
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

    private static JMSException tooLarge(long length, int max) {
        return new JMSException("Message of " + length + " bytes is larger than the maximum message length of " + max
                + " bytes of the Wharf server (server setting maxMessageLength)", ErrorCode.MESSAGE_TOO_LARGE.name());
    }

    /**
     * An XA session's association with a branch starts (true: its sends are the branch's, sent without waiting, and
     * its XA_END reports their failures) or ends (false).
     */
    void inTransaction(boolean inTransaction) {
        this.transacted = inTransaction;
    }

    /** The server granted the session's producers {@code bytes} more (PRODUCER_CREDIT) on link {@code generation}. */
    void onProducerCredit(int generation, int bytes) {
        credit.granted(generation, bytes);
    }

    /** The session's link was lost: its credit went with it (the re-created session gets a fresh window). */
    void onLinkLost() {
        credit.linkLost();
    }

    /** The connection is lost: a send waiting for credit stops waiting. */
    void onConnectionLost() {
        credit.stopWaiting();
    }

    /** A fire-and-forget send failed: the session's next send (or commit) reports it. */
    void onAsyncSendError(Frame.Error error) {
        asyncSendError.compareAndSet(null, error);
    }

    /** Commit and rollback report (or end) what the transaction's sends did: nothing earlier is left to throw. */
    void forgetAsyncSendError() {
        asyncSendError.set(null);
    }

    /** The session is closing: a send waiting for credit stops; waits for the asynchronous sends' listeners, then ends their thread. */
    void close() {
        credit.stopWaiting();
        CompletionDispatcher d = completions;
        if (d != null) {
            d.awaitIdle();
            d.shutdown();
        }
    }

    private void throwAsyncSendError() throws JMSException {
        Frame.Error error = asyncSendError.getAndSet(null);
        if (error != null) {
            throw JmsErrors.toException(error);
        }
    }

    /** The session as its {@link ProducerCredit} sees it; the session's reasons for stopping kept as JMS exceptions. */
    private static final class CreditSession implements ProducerCredit.Session {
        private final WharfSession session;
        private final WharfConnection connection;

        CreditSession(WharfSession session) {
            this.session = session;
            this.connection = session.connection();
        }

        @Override
        public FrameLink link() {
            return connection.link();
        }

        @Override
        public void flushSoonFrames() {
            connection.flushSoonFrames();
        }

        @Override
        public boolean stopped() {
            return session.isClosing() || connection.lostCause() != null;
        }

        @Override
        public void checkOpen() throws ClientException {
            try {
                session.checkOpen();
            } catch (JMSException e) {
                throw JmsErrors.toCore(e);
            }
        }
    }
}
