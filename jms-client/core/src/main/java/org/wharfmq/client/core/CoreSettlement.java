package org.wharfmq.client.core;

import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import java.util.function.IntFunction;

/**
 * Settles what one session's consumers consume, as the session's acknowledgement mode says, and owns what that
 * takes beyond each consumer's own bookkeeping: the session's consumers (each kept until it is closed and what it
 * consumed is settled), the DUPS_OK batch count, and the rollback state (deliveries discarded until a ROLLBACK is
 * answered; a count that tells a handler's acknowledgement a rollback overtook it).
 *
 * <p>The protocol ({@code docs/protocol.md}, "Acknowledging"): {@link #AUTO_ACKNOWLEDGE} sends an ACK per message (no
 * answer, riding with the connection's next frame, and written at the latest before the session's next message is
 * handed out: {@link #writeQueuedAcknowledgement}), {@link #DUPS_OK_ACKNOWLEDGE} batches them, {@link #CLIENT_ACKNOWLEDGE} and
 * transactions list, per consumer, the last delivery id the user got ({@link CoreConsumer#unacknowledged()}), which
 * {@link #acknowledge}, {@link #commit} and {@link #rollback} send. The modes are the protocol's (CREATE_SESSION),
 * which are the JMS session modes.
 *
 * <p>Across a reconnection ({@code docs/resilience.md}): the session's {@link DeliveryLedger} says which message it
 * handed out before and sees again ({@link #handOut}); and a transaction with work done over a link since lost is
 * known by the generation of that link: its commit rolls it back and throws TRANSACTION_ROLLED_BACK, and the session
 * carries on. A non-transacted session just carries on.
 *
 * <p>An XA session ({@link Frame#SESSION_XA}) acknowledges as AUTO_ACKNOWLEDGE outside an XA branch; inside one
 * ({@link #inBranch}) it records what it consumes, as a transaction does, for its XA_END to hand to the branch.
 *
 * <p>One per {@link CoreSession} ({@link CoreSession#settlement()}).
 *
 * <p>Threading: the session's thread (the user's, or its handler thread), except {@link #isDiscarding}, read by the
 * link's reading thread.
 */
public final class CoreSettlement {
    public static final int SESSION_TRANSACTED = 0;
    public static final int AUTO_ACKNOWLEDGE = 1;
    public static final int CLIENT_ACKNOWLEDGE = 2;
    public static final int DUPS_OK_ACKNOWLEDGE = 3;

    private final CoreConnection connection;
    /** Its session: whether it is closing or closed, and what its user forgets on a rollback. */
    private final CoreSession session;
    /** The session's sending side: a commit or rollback settles its sends too. */
    private final CoreSender sender;
    private final int sessionId;
    private final int mode;
    /** DUPS_OK acknowledgements are sent in batches of half the prefetch window. */
    private final int batchSize;
    /** The session's consumers, each until it is closed and nothing it consumed is unacknowledged. */
    private final CopyOnWriteArrayList<CoreConsumer> consumers = new CopyOnWriteArrayList<>();
    /** True from sending ROLLBACK until its answer is read: deliveries in between are stale. */
    private volatile boolean discarding;
    /** Bumped by each rollback/recover, so a handler's delivery acknowledged after one is not acknowledged. */
    private volatile int rollbackCount;
    /** Deliveries consumed in DUPS_OK mode since its last ACK; the session's thread. */
    private int dupsOkPending;
    /** What the user was given and the server has not confirmed settled; the session's thread. */
    private final DeliveryLedger ledger = new DeliveryLedger();
    /**
     * Generation of the link over which the open transaction did its first work (a send, a message handed out), 0 when
     * it has done none; and whether it also worked over another: work over a link since lost is gone with it. The
     * session's thread.
     */
    private int workGeneration;
    private boolean workLost;
    /**
     * The link of the last AUTO_ACKNOWLEDGE acknowledgement, queued and perhaps not yet written, or null; the
     * session's thread.
     */
    private ConnectedLink acknowledgementQueuedOn;
    /** An XA session between its XA_START and XA_END: consumption is the branch's. */
    private volatile boolean inBranch;

    /**
     * @param session   its session, whose mode ({@link #SESSION_TRANSACTED}, {@link #AUTO_ACKNOWLEDGE},
     *                  {@link #CLIENT_ACKNOWLEDGE}, {@link #DUPS_OK_ACKNOWLEDGE} or {@link Frame#SESSION_XA}) it follows
     * @param batchSize DUPS_OK acknowledgements, and the confirmations of AUTO ones, go every this many messages
     */
    CoreSettlement(CoreSession session, int batchSize, CoreSender sender) {
        this.connection = session.connection();
        this.session = session;
        this.sender = sender;
        this.sessionId = session.id();
        this.mode = session.mode();
        this.batchSize = batchSize;
    }

    /** The session's consumers, closed ones included until settled. */
    List<CoreConsumer> consumers() {
        return consumers;
    }

    void added(CoreConsumer consumer) {
        consumers.add(consumer);
    }

    /** A consumer closed (or was never accepted): it stays only while what it consumed awaits settling. */
    void closed(CoreConsumer consumer) {
        if (mode == DUPS_OK_ACKNOWLEDGE) {
            acknowledgeConsumedNow();
        }
        if (consumer.unacknowledged() == 0) {
            consumers.remove(consumer);
        }
    }

    /** Whether deliveries for this session are dropped now (a ROLLBACK awaits its answer); the reading thread. */
    boolean isDiscarding() {
        return discarding;
    }

    int rollbackCount() {
        return rollbackCount;
    }

    /**
     * An XA session's association with a branch starts (true: its sends are the branch's, sent without waiting) or ends
     * (false: XA_END has reported the branch's failed sends).
     */
    void inBranch(boolean associated) {
        inBranch = associated;
        if (!associated) {
            sender.forgetAsyncSendError();
        }
    }

    /** Whether the session's sends are a transaction's: a transacted session's always, an XA session's in a branch. */
    boolean inTransaction() {
        return mode == SESSION_TRANSACTED || (mode == Frame.SESSION_XA && inBranch);
    }

    // ---- after each message ----

    /**
     * The user is about to get the message {@code messageId} (null when the producer gave it none), which came over
     * {@code on}: counted as the open transaction's work.
     *
     * @return whether it was handed out before a reconnection and not settled: mark it redelivered
     */
    boolean handOut(String messageId, ConnectedLink on) {
        boolean seenBefore = ledger.handOut(messageId, on.generation());
        if (mode == SESSION_TRANSACTED) {
            work(on);
        }
        return seenBefore;
    }

    /** The open transaction sent, received or was handed a message over {@code on}. */
    void work(ConnectedLink on) {
        int generation = on.generation();
        if (workGeneration == 0) {
            workGeneration = generation;
        } else if (workGeneration != generation) {
            workLost = true;
        }
    }

    /** Whether the open transaction did work over a link other than {@code on}: lost with it. */
    private boolean workLostBefore(ConnectedLink on) {
        return workLost || (workGeneration != 0 && workGeneration != on.generation());
    }

    private void workSettled() {
        workGeneration = 0;
        workLost = false;
    }

    /** A synchronous receive consumed a delivery. */
    void received(CoreConsumer consumer, long deliveryId) {
        switch (mode) {
            case AUTO_ACKNOWLEDGE -> acknowledgeSoon(consumer, deliveryId);
            case Frame.SESSION_XA -> {
                if (inBranch) {
                    consumer.recordConsumed(deliveryId);
                } else {
                    acknowledgeSoon(consumer, deliveryId);
                }
            }
            case DUPS_OK_ACKNOWLEDGE -> {
                consumer.recordConsumed(deliveryId);
                countDupsOk(consumer);
            }
            default -> consumer.recordConsumed(deliveryId);
        }
    }

    /**
     * An ACK nobody waits for: it leaves with the connection's next frame, within {@value
     * ClientConfiguration#PIGGYBACK_MILLIS} ms, or before the session's next message
     * ({@link #writeQueuedAcknowledgement}), whichever comes first; not when the receive goes back to wait
     * ({@link ConnectedLink#writeLater}). A non-durable, unshared subscriber's is not written before the next message
     * ({@link CoreConsumer.Spec#endsWithItsConsumer}): a crash ends its subscription, so nothing it was handed can come
     * again, and its acknowledgements ride with the connection's next frame (a CREDIT, every half prefetch window of
     * one of its consumers) instead of costing a system call per message handed out; and while its frame waits, the
     * consumer's next acknowledgements join it ({@link QueuedAcknowledgement}) rather than queue a frame each. One
     * that asks for a confirmation goes as a frame of its own, and the ones after it do not join a frame before it.
     */
    private void acknowledgeSoon(CoreConsumer consumer, long deliveryId) {
        ConnectedLink on = consumer.takenLink();
        int requestId = confirmation(on);
        boolean rides = consumer.spec().endsWithItsConsumer();
        if (rides && requestId == 0) {
            if (!consumer.joinQueuedAcknowledgement(on, deliveryId)) {
                QueuedAcknowledgement queued = new QueuedAcknowledgement(on, consumer.id(), deliveryId);
                consumer.acknowledgementQueued(queued);
                on.writeLater(new Frame.Ack(0, sessionId, queued));
            }
            return;
        }
        if (rides) {
            consumer.acknowledgementQueued(null);
        } else {
            acknowledgementQueuedOn = on;
        }
        on.writeLater(new Frame.Ack(requestId, sessionId, List.of(new Frame.Consumed(consumer.id(), deliveryId))));
    }

    /**
     * Called before the user gets a message (and when a receive returns none): the acknowledgement of the message
     * before, if still queued, is written to the socket now, by this thread or by the one that took it. So a crash of
     * this process (the server then takes back what was not acknowledged) delivers again at most the last message
     * handed out, the one AUTO_ACKNOWLEDGE allows (JMS 2.0 section 6.2.10), and no acknowledgement is written when
     * the receive goes back to wait: the subscribers of a connection woken one after another write theirs together,
     * the first to hand out a message writing what the others queued. A system call only when no other thread wrote
     * it already.
     */
    void writeQueuedAcknowledgement() {
        ConnectedLink on = acknowledgementQueuedOn;
        if (on != null) {
            acknowledgementQueuedOn = null;
            on.writeQueued();
        }
    }

    /**
     * A delivery could not be used as asked (receiveBody could not return its body): in AUTO and DUPS_OK mode it is
     * recovered, to be delivered again; in CLIENT_ACKNOWLEDGE and transacted mode it counts as delivered (JMS 2.0).
     */
    void bodyRefused(CoreConsumer consumer, long deliveryId) throws ClientException {
        consumer.recordConsumed(deliveryId);
        if (acknowledgesAutomatically()) {
            rollback("ROLLBACK (recover after receiveBody could not return the body)");
        }
    }

    /**
     * A handler threw. In AUTO and DUPS_OK mode the message is delivered again at once.
     *
     * @return true if the session recovered (the delivery is then not acknowledged)
     */
    boolean recoverAfterHandlerFailure() {
        if (!acknowledgesAutomatically()) {
            return false;
        }
        try {
            rollback("ROLLBACK (recover after MessageListener failure)");
        } catch (ClientException e) {
            System.getLogger(CoreSettlement.class.getName()).log(System.Logger.Level.WARNING,
                    "Could not recover session " + sessionId + " after a MessageListener failure", e);
        }
        return true;
    }

    /**
     * A handler returned from a delivery recorded before it ran: acknowledged now in AUTO mode, counted in DUPS_OK
     * mode, unless a rollback or recover (perhaps the handler's own) or a close came in between. A non-durable,
     * unshared subscriber's AUTO acknowledgement rides with the connection's next frame, as a receive's does
     * ({@link #acknowledgeSoon}): nothing it was handed can come again after a crash; every other one is written at
     * once, before the dispatch thread hands out the next message.
     */
    void afterHandler(CoreConsumer consumer, long deliveryId, int rollbacksBefore) {
        if (rollbacksBefore != rollbackCount || session.isClosed() || connection.lostCause() != null) {
            return;
        }
        if (mode == AUTO_ACKNOWLEDGE || (mode == Frame.SESSION_XA && !inBranch)) {
            consumer.acknowledged(deliveryId);
            if (consumer.spec().endsWithItsConsumer()) {
                acknowledgeSoon(consumer, deliveryId);
                return;
            }
            ConnectedLink on = consumer.takenLink();
            on.write(new Frame.Ack(confirmation(on), sessionId, List.of(new Frame.Consumed(consumer.id(), deliveryId))));
        } else if (mode == DUPS_OK_ACKNOWLEDGE) {
            countDupsOk(consumer);
        }
    }

    /** AUTO_ACKNOWLEDGE, DUPS_OK_ACKNOWLEDGE, or an XA session outside a branch: redelivered after a failure. */
    boolean acknowledgesAutomatically() {
        return mode == AUTO_ACKNOWLEDGE || mode == DUPS_OK_ACKNOWLEDGE || (mode == Frame.SESSION_XA && !inBranch);
    }

    private void countDupsOk(CoreConsumer consumer) {
        if (++dupsOkPending >= batchSize || consumer.drained()) {
            acknowledgeConsumedNow();
        }
    }

    /** Writes one unanswered ACK for everything consumed and not yet acknowledged, at once: DUPS_OK's batch. */
    void acknowledgeConsumedNow() {
        dupsOkPending = 0;
        ConnectedLink on = connection.current();
        List<Frame.Consumed> list = consumedList(on);
        if (!list.isEmpty() && connection.lostCause() == null) {
            forget(list);
            on.write(new Frame.Ack(confirmation(on), sessionId, list));
        }
    }

    /**
     * The request id for an AUTO or DUPS_OK acknowledgement on {@code on}: 0 (not answered), but every half prefetch
     * window one that is, whose OK confirms to the {@link DeliveryLedger} what was handed out before it.
     */
    private int confirmation(ConnectedLink on) {
        if (!ledger.confirmationDue(batchSize)) {
            return 0;
        }
        long upTo = ledger.position();
        PendingRequests.Request request = connection.register(on);
        request.answer().whenComplete((error, failure) -> {
            if (error == null && failure == null) {
                ledger.confirm(upTo);
            }
        });
        return request.id;
    }

    // ---- acknowledge, commit, rollback ----

    /**
     * CLIENT_ACKNOWLEDGE's acknowledgement: one answered ACK naming every consumer with consumed messages. Messages
     * consumed over a link since lost are not in it: the server took them back when the link went, before any
     * acknowledgement reached it, and delivers them again marked redelivered; the session carries on. So does it when
     * the link is lost before the ACK's answer: what the ACK named either was acknowledged or comes back marked.
     */
    public void acknowledge() throws ClientException {
        if (session.isClosing()) {
            throw new ClientException(ErrorCode.ILLEGAL_STATE, "Cannot acknowledge: the session is closed");
        }
        ConnectedLink on = connection.usableLink();
        List<Frame.Consumed> list = consumedList(on);
        if (list.isEmpty()) {
            return;
        }
        long upTo = ledger.position();
        try {
            Frame.Error error = connection.request(on, rid -> new Frame.Ack(rid, sessionId, list), "ACK");
            if (error != null) {
                throw ClientException.of(error);
            }
            forget(list);
            ledger.settle(upTo);
        } catch (LinkLostException lost) {
            // acknowledged, or delivered again marked redelivered: the ledger still has them
        }
    }

    /**
     * Commits: the transaction's sends become visible and its consumed messages are acknowledged. When the server
     * answers TRANSACTION_ROLLED_BACK (an earlier send of the transaction failed), it has dropped the sends and
     * taken back the consumed messages (to be redelivered); prefetched ones stay buffered, so the client only
     * forgets its consumed-list and throws that refusal.
     *
     * <p>After a reconnection: a transaction that did work over the lost link is rolled back (what it did over the new
     * one too) and a TRANSACTION_ROLLED_BACK refusal says so. A COMMIT whose link is lost before its answer, or whose
     * answer does not come within requestTimeout, has an outcome nobody on this side knows:
     * {@link TransactionOutcomeUnknownException} says so.
     *
     * <p>The session's asynchronous sends complete first; a failure of a fire-and-forget send is the COMMIT answer's to
     * report.
     */
    public void commit() throws ClientException {
        sender.awaitCompletions();
        sender.forgetAsyncSendError();
        ConnectedLink on = connection.usableLink();
        if (workLostBefore(on)) {
            try {
                rollback("ROLLBACK (of a transaction cut by a reconnection)");
            } catch (LinkLostException again) {
                // lost again: the server let go of the transaction with the link
            }
            throw new ClientException(ErrorCode.TRANSACTION_ROLLED_BACK, "The transaction was rolled back: the connection"
                    + " to Wharf was lost while it was open, and has been made again. Its sends were dropped, and the"
                    + " messages it received are delivered again, marked JMSRedelivered. A new transaction has begun.");
        }
        List<Frame.Consumed> list = consumedList(on);
        long upTo = ledger.position();
        Frame.Error error;
        try {
            error = connection.request(on, rid -> new Frame.Commit(rid, sessionId, list), "COMMIT");
        } catch (LinkLostException lost) {
            workSettled();
            throw new TransactionOutcomeUnknownException("The outcome of the commit is unknown: the connection to Wharf"
                    + " at " + on.address() + " was lost after COMMIT was sent and before the server answered. The"
                    + " transaction may have been committed (its sends delivered, its received messages acknowledged) or"
                    + " rolled back (its sends dropped, its received messages delivered again marked JMSRedelivered). The"
                    + " connection has been made again and a new transaction has begun.");
        } catch (RequestTimeoutException late) {
            // the server has the COMMIT and may still carry it out (a replicated queue manager waits for a majority):
            // a plain failure would tell the application to do the work again, which may then be done twice. What the
            // transaction consumed is the server's to settle now: committed, or delivered again marked
            forget(list);
            ledger.settle(upTo);
            workSettled();
            throw new TransactionOutcomeUnknownException("The outcome of the commit is unknown: " + late.getMessage()
                    + ". The server may still commit the transaction (its sends delivered, its received messages"
                    + " acknowledged) or roll it back (its sends dropped, its received messages delivered again marked"
                    + " JMSRedelivered). A new transaction has begun; raise requestTimeout if the server is slow to"
                    + " answer.");
        }
        if (error == null || error.code() == ErrorCode.TRANSACTION_ROLLED_BACK) {
            forget(list);
            ledger.settle(upTo);
            workSettled();
        }
        if (error != null) {
            throw ClientException.of(error);
        }
    }

    /**
     * Sends ROLLBACK with the consumed-list: a transaction's rollback, or a recover outside one. From before it is
     * sent until its answer is read (on the reading thread), deliveries for this session are discarded, and the
     * buffers are emptied: the server takes all of those back and restarts every consumer at its initial credit. A
     * link lost meanwhile does the same: the server let go of everything with it.
     *
     * <p>A transaction's rollback waits for the session's asynchronous sends to complete first, and forgets the failure
     * of a fire-and-forget send: it is rolled back with the rest.
     *
     * @param what names the request in messages
     */
    public void rollback(String what) throws ClientException {
        if (mode == SESSION_TRANSACTED) {
            sender.awaitCompletions();
            sender.forgetAsyncSendError();
        }
        ConnectedLink on = connection.usableLink();
        List<Frame.Consumed> list = consumedList(on);
        PendingRequests.Request request = connection.register(on);
        discarding = true;
        rollbackCount++;
        for (CoreConsumer c : consumers) {
            c.releaseBuffer();
        }
        session.dispatcher().clear();
        // registered before the write, so it runs on the thread that reads the answer, before any later delivery
        request.answer().whenComplete((error, failure) -> discarding = false);
        on.write(new Frame.Rollback(request.id, sessionId, list));
        Frame.Error error = null;
        try {
            error = connection.await(request, what);
        } catch (LinkLostException lost) {
            // the server let go of the session's transaction and deliveries with the link
        }
        dupsOkPending = 0;
        for (CoreConsumer c : consumers) {
            c.rolledBack();
        }
        forgetSettledClosed();
        workSettled(); // what it returned stays in the ledger: the server marks it, and so would this side after a crash
        if (error != null) {
            throw ClientException.of(error);
        }
    }

    /** The session's link was lost: buffered deliveries are dropped, and closed consumers can be settled by nobody. */
    void linkLost() {
        for (CoreConsumer c : consumers) {
            c.linkLost();
        }
        session.dispatcher().clear();
        consumers.removeIf(CoreConsumer::isClosed);
    }

    /**
     * An XA session's XA_END: sends {@code end} with the consumed-list and, once the server has ended the association
     * (its answer is OK, or XA_RBROLLBACK/XA_RBTIMEOUT: the branch took them all the same), forgets what the list
     * names: it is the branch's to settle now.
     *
     * @return the server's ERROR, or null for OK
     */
    Frame.Error endBranch(Function<List<Frame.Consumed>, IntFunction<Frame>> end) throws ClientException {
        ConnectedLink on = connection.usableLink();
        List<Frame.Consumed> list = consumedList(on);
        Frame.Error error = connection.request(on, end.apply(list), "XA_END");
        if (error == null || error.code() == ErrorCode.XA_RBROLLBACK || error.code() == ErrorCode.XA_RBTIMEOUT) {
            forget(list);
        }
        return error;
    }

    /** Per consumer with deliveries consumed over {@code on}, the last one, in the order of {@link #consumers}. */
    private List<Frame.Consumed> consumedList(ConnectedLink on) {
        List<Frame.Consumed> list = null;
        for (CoreConsumer c : consumers) {
            long last = c.unacknowledgedOn(on);
            if (last != 0) {
                if (list == null) {
                    list = new ArrayList<>();
                }
                list.add(new Frame.Consumed(c.id(), last));
            }
        }
        return list == null ? List.of() : list;
    }

    /** The deliveries of {@code list} are settled; a consumer that consumed more since keeps its later ones. */
    private void forget(List<Frame.Consumed> list) {
        int next = 0; // the list follows the consumers' order, which removals and appends keep
        for (CoreConsumer c : consumers) {
            if (next == list.size()) {
                break;
            }
            Frame.Consumed settled = list.get(next);
            if (settled.consumerId() == c.id()) {
                c.acknowledged(settled.lastDeliveryId());
                next++;
            }
        }
        forgetSettledClosed();
    }

    private void forgetSettledClosed() {
        consumers.removeIf(c -> c.isClosed() && c.unacknowledged() == 0);
    }
}
