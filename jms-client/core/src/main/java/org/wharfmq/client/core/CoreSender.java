package org.wharfmq.client.core;

import io.netty.buffer.ByteBuf;
import org.wharfmq.client.core.transport.FrameLink;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.message.MessageLengthLimit;
import org.wharfmq.protocol.message.MessageWriter;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.protocol.message.WireMessage;

import java.util.concurrent.atomic.AtomicReference;

/**
 * One session's sending ({@link CoreSession#sender()}): encodes a message for the link it goes out on, spends its
 * length from the session's {@link ProducerCredit} (waiting while the server holds credit back), and writes it; waits
 * for the server's answer when the send is synchronous (persistent outside a transaction, or every send with
 * {@code syncSends}), and sends it again, flagged as resent, when the link is lost before that answer; holds the first
 * failure of a fire-and-forget send until the session's next send, commit or rollback; and completes asynchronous
 * sends ({@link Completion}) on the session's completion thread ({@link SendCompletions}), in send order.
 *
 * <p>A send in a transaction (a transacted session, or an XA session inside a branch) waits for nothing: it leaves
 * with the session's next frame, counts as the transaction's work over its link ({@link CoreSettlement#work}), and
 * the commit reports its failure.
 *
 * <p>The hot path: a send allocates its encoded buffer and its SEND frame (and, when it waits for an answer, the
 * request); the caller's message and {@link Encoder} are used as they are, and no thread is handed anything.
 * Sent by the session's one sending thread at a time; credit and failures arrive on the connection's reading thread.
 */
public final class CoreSender {

    /**
     * How the user's messages become the protocol's encoding ({@code protocol.message.MessageEncoding}): for the link
     * they go out on, since a message is encoded again when a reconnection makes it go out on another.
     *
     * @param <M> the user's message
     */
    public interface Encoder<M> {
        /**
         * The message encoded into a buffer of {@code on}'s allocator, which the send then owns.
         *
         * @param destination where the send goes: the producer's destination or the one named for this send
         * @throws ClientException the message cannot be encoded (too large, a bad property), said in the user's terms
         */
        ByteBuf encode(M message, WireDestination destination, ConnectedLink on) throws ClientException;

        /**
         * Gives the message the headers the core sets on each send ({@link #send}), once per send and before it is
         * encoded: an encoder that forwards messages as they are (a channel's) leaves them.
         *
         * @param messageId    the connection's next message id, or null when the send asked for none
         * @param timestamp    when it was sent, in ms since the epoch, or 0 when the send asked for none
         * @param expiration   when it expires, or 0 for never
         * @param deliveryTime the earliest it may be delivered, or 0 for at once
         * @throws ClientException the message refuses a header, said in the user's terms: the send fails with it
         */
        void stamp(M message, String messageId, long timestamp, long expiration, long deliveryTime)
                throws ClientException;
    }

    /**
     * Where a session's sends outside a transaction go instead of its link when its owner puts them inside the queue
     * manager it is connected to in-VM (the flow host's readers: docs/architecture.md, "Flows inside the queue
     * manager"): the very encoding a SEND would carry (stamped, its JMSXUserID the link's user, its length checked),
     * with no frame and no hand-off to the link's event loop. {@link #putLocally}.
     */
    public interface LocalPut {
        /**
         * Puts {@code message}, an encoded message (taken over): returns once it is on its queue, or stored when it
         * is persistent. Waits for producer credit as a send over the link would, calling
         * {@code waiting.flushSoonFrames()} first, and gives up once {@code waiting.stopped()}.
         *
         * @throws ClientException why it was refused (nothing of it was put), or why its wait ended
         */
        void put(ByteBuf message, ProducerCredit.Session waiting) throws ClientException;
    }

    /** {@link #send}'s {@code stamps}: the message gets no id (JMS's {@code setDisableMessageID}). */
    public static final int NO_MESSAGE_ID = 1;
    /** {@link #send}'s {@code stamps}: the message gets no timestamp (JMS's {@code setDisableMessageTimestamp}). */
    public static final int NO_TIMESTAMP = 2;

    /** Encodes a {@link WireMessage}, to the send's destination, with the headers the core gives it. */
    public static final Encoder<WireMessage> WIRE_MESSAGE = new Encoder<>() {
        @Override
        public ByteBuf encode(WireMessage message, WireDestination destination, ConnectedLink on) {
            message.destination = destination;
            ByteBuf buffer = on.link().alloc().ioBuffer();
            message.encode(buffer);
            return buffer;
        }

        @Override
        public void stamp(WireMessage message, String messageId, long timestamp, long expiration, long deliveryTime) {
            message.messageId = messageId;
            message.timestamp = timestamp;
            message.expiration = expiration;
            message.deliveryTime = deliveryTime;
        }
    };

    /**
     * An asynchronous send's completion, one per send: the core calls {@link #completed} once, on the session's
     * completion thread (never the sending nor the reading thread), after those of the session's earlier asynchronous
     * sends.
     */
    public abstract static class Completion {
        /** The send's request, set by {@link #send} before its frame is written. */
        PendingRequests.Request request;

        /**
         * The server has the message ({@code failure} null), or it does not or may not: its refusal, the link lost
         * before its answer (the message may or may not have been stored), the connection lost, or no answer in time.
         * What it throws is logged, and the next completion follows.
         */
        protected abstract void completed(ClientException failure);
    }

    private final CoreSession session;
    private final CoreConnection connection;
    private final int sessionId;
    private final boolean syncSends;
    private final CreditSession creditSession = new CreditSession();
    private final ProducerCredit credit = new ProducerCredit(creditSession);
    /** Where the sends outside a transaction go instead of the link ({@link #putLocally}); null: the link. */
    private volatile LocalPut localPut;
    /** The first failed fire-and-forget send not yet reported to the user. */
    private final AtomicReference<Frame.Error> asyncSendError = new AtomicReference<>();
    /** Started by the first asynchronous send. */
    private volatile SendCompletions completions;

    /** @param syncSends every send waits for the server's answer */
    CoreSender(CoreSession session, boolean syncSends) {
        this.session = session;
        this.connection = session.connection();
        this.sessionId = session.id();
        this.syncSends = syncSends;
    }

    public CoreConnection connection() {
        return connection;
    }

    /**
     * Makes the session's sends outside a transaction that wait for no CompletionListener go to {@code put} rather
     * than its link (null: the link again); a transaction's sends and asynchronous sends still go over the link. For
     * the session's sending thread, before it sends.
     */
    public void putLocally(LocalPut put) {
        this.localPut = put;
    }

    /**
     * {@link #send(int, WireDestination, Object, Encoder, boolean, long, long, int, Completion) send} for ever, at
     * once, with an id and a timestamp.
     */
    public <M> void send(int producerId, WireDestination destination, M message, Encoder<? super M> encoder,
                         boolean persistent, Completion completion) throws ClientException {
        send(producerId, destination, message, encoder, persistent, 0, 0, 0, completion);
    }

    /**
     * Sends {@code message} through producer {@code producerId} (created with {@link CoreSession#createProducer}),
     * stamped first ({@link Encoder#stamp}): the connection's next message id, the time now, when it expires and when
     * it may be delivered, from {@code timeToLive} and {@code deliveryDelay}. An earlier fire-and-forget send's failure
     * is thrown here instead, and this message is not sent; so is a temporary destination this connection deleted
     * ({@code UNKNOWN_DESTINATION}). While the connection reconnects the send waits for it; while the server holds the
     * session's producer credit back, it waits for credit.
     *
     * @param persistent    whether the message is persistent: such a send outside a transaction waits for the server
     * @param timeToLive    ms the message lives after it is sent; 0 for ever
     * @param deliveryDelay ms before the message may be delivered; 0 at once
     * @param stamps        what the message goes without: {@link #NO_MESSAGE_ID}, {@link #NO_TIMESTAMP}, or 0
     * @param completion    null to send synchronously as {@code persistent} and {@code syncSends} say; else the send
     *                      returns once written, and {@code completion} hears the outcome
     * @throws ClientException the server's refusal of a synchronous send (a full queue, no permission), an encoding
     *                         failure, the session closed or the connection lost (while waiting too), or an earlier
     *                         fire-and-forget send's refusal
     */
    public <M> void send(int producerId, WireDestination destination, M message, Encoder<? super M> encoder,
                         boolean persistent, long timeToLive, long deliveryDelay, int stamps, Completion completion)
            throws ClientException {
        if (session.isClosing()) {
            throw sessionClosed();
        }
        throwAsyncSendError();
        connection.temporaries().checkNotDeleted(destination);
        long now = System.currentTimeMillis();
        encoder.stamp(message, (stamps & NO_MESSAGE_ID) != 0 ? null : connection.nextMessageId(),
                (stamps & NO_TIMESTAMP) != 0 ? 0 : now, timeToLive > 0 ? now + timeToLive : 0,
                deliveryDelay > 0 ? now + deliveryDelay : 0);
        ConnectedLink on = connection.usableLink();
        LocalPut local = localPut;
        if (local != null && completion == null && !session.settlement().inTransaction()) {
            putLocally(local, message, destination, encoder, on);
            return;
        }
        ByteBuf buffer;
        while ((buffer = encodeAndSpend(message, destination, encoder, on)) == null) {
            on = connection.usableLink(); // lost while the send waited for credit: it goes on the link made again
        }
        CoreSettlement settlement = session.settlement();
        boolean transacted = settlement.inTransaction();
        if (transacted) {
            settlement.work(on); // a transaction with sends over a link since lost is rolled back at commit
        }
        if (completion != null) {
            PendingRequests.Request request = connection.register(on);
            completion.request = request;
            completions().add(completion); // before the write: its callback follows those of earlier sends
            on.write(new Frame.Send(request.id, sessionId, producerId, buffer));
        } else if (syncSends || (!transacted && persistent)) {
            sendAndAwait(producerId, destination, message, encoder, on, buffer, transacted);
        } else if (transacted) {
            on.writeSoon(new Frame.Send(0, sessionId, producerId, buffer)); // nothing of it is seen before the commit
        } else {
            on.write(new Frame.Send(0, sessionId, producerId, buffer));
        }
    }

    /** A send outside a transaction put by {@code local}: encoded for {@code on}, as it would go there. */
    private <M> void putLocally(LocalPut local, M message, WireDestination destination, Encoder<? super M> encoder,
                                ConnectedLink on) throws ClientException {
        ByteBuf buffer = encoder.encode(message, destination, on);
        int length = buffer.readableBytes();
        if (length > on.maxMessageLength()) {
            buffer.release();
            throw tooLarge(length, on);
        }
        local.put(buffer, creditSession);
    }

    /**
     * The message encoded for {@code on} with its producer credit spent there, waiting while the server holds the
     * session's credit back; null when {@code on} was lost meanwhile (nothing spent, nothing to release).
     */
    private <M> ByteBuf encodeAndSpend(M message, WireDestination destination, Encoder<? super M> encoder,
                                       ConnectedLink on) throws ClientException {
        ByteBuf buffer = encoder.encode(message, destination, on);
        int length = buffer.readableBytes();
        boolean spent;
        try {
            if (length > on.maxMessageLength()) {
                throw tooLarge(length, on);
            }
            spent = credit.spend(length, on);
        } catch (ClientException e) {
            buffer.release();
            throw e;
        }
        if (!spent) {
            buffer.release();
            return null;
        }
        return buffer;
    }

    /**
     * A synchronous send: waits for the server's answer. If the link is lost first, nobody knows whether the server
     * stored the message, so once the connection is made again the message is sent again, flagged as resent
     * ({@code MessageEncoding.FLAG_RESENT}): if both copies were stored, the receiver gets the second marked
     * redelivered, never twice unmarked; the send is never silently lost. The copy spends producer credit on the
     * new link, whose server counts it against the session's new window like any SEND.
     */
    private <M> void sendAndAwait(int producerId, WireDestination destination, M message, Encoder<? super M> encoder,
                                  ConnectedLink on, ByteBuf buffer, boolean transacted) throws ClientException {
        ConnectedLink link = on;
        ByteBuf sending = buffer;
        while (true) {
            PendingRequests.Request request = connection.register(link);
            link.write(new Frame.Send(request.id, sessionId, producerId, sending));
            try {
                Frame.Error error = connection.await(request, "SEND");
                if (error != null) {
                    throw ClientException.of(error);
                }
                return;
            } catch (LinkLostException lost) {
                do {
                    link = connection.usableLink();
                    sending = encodeAndSpend(message, destination, encoder, link);
                } while (sending == null);
                MessageWriter.markResent(sending);
                if (transacted) {
                    session.settlement().work(link);
                }
            }
        }
    }

    /**
     * The refusal of a message of {@code length} bytes encoded over the maxMessageLength of the server {@code on}
     * links to: the limit counts the whole encoded message, headers, properties and body (docs/protocol.md).
     */
    public static ClientException tooLarge(long length, ConnectedLink on) {
        return tooLarge(MessageLengthLimit.encoded(length), on);
    }

    /** The refusal, before it is encoded, of a message whose body alone is over the server's maxMessageLength. */
    public static ClientException bodyTooLarge(long bodyLength, ConnectedLink on) {
        return tooLarge("The message's body alone is " + bodyLength + " bytes long", on);
    }

    private static ClientException tooLarge(String what, ConnectedLink on) {
        return new ClientException(ErrorCode.MESSAGE_TOO_LARGE,
                MessageLengthLimit.refusal(what, on.maxMessageLength(), on.serverName(), "sent"));
    }

    private static ClientException sessionClosed() {
        return new ClientException(ErrorCode.ILLEGAL_STATE, "The session is closed");
    }

    private SendCompletions completions() {
        SendCompletions c = completions;
        if (c == null) {
            synchronized (this) {
                c = completions;
                if (c == null) {
                    c = new SendCompletions(this, "wharf-completion-" + sessionId + "-" + connection.current().address());
                    completions = c;
                    c.start();
                }
            }
        }
        return c;
    }

    /** Returns once every asynchronous send so far has completed (unless called by a completion). */
    public void awaitCompletions() {
        SendCompletions c = completions;
        if (c != null) {
            c.awaitIdle();
        }
    }

    /** Whether this is the session's completion thread, where the user's completions run. */
    public boolean isCompletionThread() {
        SendCompletions c = completions;
        return c != null && c == Thread.currentThread();
    }

    /** The sender whose completion thread this is, or null. */
    public static CoreSender completing() {
        return Thread.currentThread() instanceof SendCompletions c ? c.sender() : null;
    }

    private void throwAsyncSendError() throws ClientException {
        if (asyncSendError.get() != null) { // a read while all is well: no atomic write per send
            Frame.Error error = asyncSendError.getAndSet(null);
            if (error != null) {
                throw ClientException.of(error);
            }
        }
    }

    /**
     * A commit, rollback or XA_END settles the transaction's sends: a fire-and-forget send's failure is its answer's to
     * report (or gone with the rollback), not the next send's.
     */
    void forgetAsyncSendError() {
        asyncSendError.set(null);
    }

    // ---- what the connection tells the session's sending side ----

    /** The server granted the session's producers {@code bytes} more (PRODUCER_CREDIT) on link {@code generation}. */
    void onProducerCredit(int generation, int bytes) {
        credit.granted(generation, bytes);
    }

    /** A fire-and-forget send failed: the session's next send (or commit) reports it. */
    void onAsyncSendError(Frame.Error error) {
        asyncSendError.compareAndSet(null, error);
    }

    /** The session's link was lost: its credit went with it (the re-created session gets a fresh window). */
    void linkLost() {
        credit.linkLost();
    }

    /** The connection is lost: a send waiting for credit stops waiting. */
    void connectionLost() {
        credit.stopWaiting();
    }

    /**
     * The session closes ({@link CoreSession#close}): a send waiting for credit stops; waits for the asynchronous
     * sends' completions, then ends their thread. Idempotent.
     */
    void close() {
        credit.stopWaiting();
        SendCompletions c = completions;
        if (c != null) {
            c.awaitIdle();
            c.shutdown();
        }
    }

    /** The session as its {@link ProducerCredit} sees it. */
    private final class CreditSession implements ProducerCredit.Session {
        @Override
        public FrameLink link() {
            return connection.link();
        }

        @Override
        public void flushSoonFrames() {
            connection.creditWaitComing();
        }

        @Override
        public boolean stopped() {
            return session.isClosing() || connection.isClosing() || connection.lostCause() != null;
        }

        @Override
        public void checkOpen() throws ClientException {
            if (session.isClosing()) {
                throw sessionClosed();
            }
            connection.checkOpen();
        }
    }
}
