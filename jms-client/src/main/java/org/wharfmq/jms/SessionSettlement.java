package org.wharfmq.jms;

import org.wharfmq.client.core.ConnectedLink;
import org.wharfmq.client.core.DeliveryLedger;
import org.wharfmq.client.core.PendingRequests;

import org.wharfmq.jms.message.MessageAcknowledger;
import org.wharfmq.jms.message.WharfMessage;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;

import javax.jms.IllegalStateException;
import javax.jms.JMSException;
import javax.jms.Session;
import javax.jms.TransactionRolledBackException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Settles what one session's consumers consume, as the session's acknowledgement mode says, and owns what that
 * takes beyond each consumer's own bookkeeping: the session's consumers (each kept until it is closed and what it
 * consumed is settled), the DUPS_OK batch count, and the rollback state (deliveries discarded until a ROLLBACK is
 * answered; a count that tells a listener's acknowledgement a rollback overtook it).
 *
 * <p>The protocol ({@code docs/protocol.md}, "Acknowledging"): AUTO_ACKNOWLEDGE sends an ACK per message (no
 * answer, riding with the next frame), DUPS_OK_ACKNOWLEDGE batches them, CLIENT_ACKNOWLEDGE and transactions list,
 * per consumer, the last delivery id the application got ({@link ClientConsumer#unacknowledged()}), which
 * {@code acknowledge()}, {@code commit()}, {@code rollback()} and {@code recover()} send.
 *
 * <p>Across a reconnection ({@code docs/resilience.md}): the session's {@link DeliveryLedger} marks JMSRedelivered a
 * message it handed out before and sees again; and a transaction with work done over a link since lost is known by
 * the generation of that link: its commit rolls it back and throws TransactionRolledBackException, and the session
 * carries on. A non-transacted session just carries on.
 *
 * <p>An XA session ({@link Frame#SESSION_XA}) acknowledges as AUTO_ACKNOWLEDGE outside an XA branch; inside one
 * ({@link #inBranch}) it records what it consumes, as a transaction does, for its XA_END to hand to the branch.
 */
final class SessionSettlement {
    private static final System.Logger LOG = System.getLogger(SessionSettlement.class.getName());
    /** Error code of the JMSException a commit throws when its link was lost before the answer. */
    static final String TRANSACTION_OUTCOME_UNKNOWN = "TRANSACTION_OUTCOME_UNKNOWN";

    private final WharfSession session;
    private final WharfConnection connection;
    private final SessionDispatcher dispatcher;
    private final int sessionId;
    private final int mode;
    /** DUPS_OK acknowledgements are sent in batches of half the prefetch window. */
    private final int batchSize;
    /** The session's consumers, each until it is closed and nothing it consumed is unacknowledged. */
    private final CopyOnWriteArrayList<ClientConsumer> consumers = new CopyOnWriteArrayList<>();
    private final MessageAcknowledger clientAcknowledger;
    /** True from sending ROLLBACK until its answer is read: deliveries in between are stale. */
    private volatile boolean discarding;
    /** Bumped by each rollback/recover, so a listener's delivery acknowledged after one is not acknowledged. */
    private volatile int rollbackCount;
    /** Deliveries consumed in DUPS_OK mode since its last ACK; the session's thread. */
    private int dupsOkPending;
    /** What the application was given and the server has not confirmed settled; the session's thread. */
    private final DeliveryLedger ledger = new DeliveryLedger();
    /**
     * Generation of the link over which the open transaction did its first work (a send, a message handed out), 0 when
     * it has done none; and whether it also worked over another: work over a link since lost is gone with it. The
     * session's thread.
     */
    private int workGeneration;
    private boolean workLost;
    /** An XA session between its XA_START and XA_END: consumption is the branch's. */
    private volatile boolean inBranch;

    SessionSettlement(WharfSession session, SessionDispatcher dispatcher, int mode, int batchSize) {
        this.session = session;
        this.connection = session.connection();
        this.dispatcher = dispatcher;
        this.sessionId = session.id();
        this.mode = mode;
        this.batchSize = batchSize;
        this.clientAcknowledger = mode == Session.CLIENT_ACKNOWLEDGE ? this::acknowledge : null;
    }

    /** The session's consumers, closed ones included until settled. */
    List<ClientConsumer> consumers() {
        return consumers;
    }

    void added(ClientConsumer consumer) {
        consumers.add(consumer);
    }

    /** A consumer closed (or was never accepted): it stays only while what it consumed awaits settling. */
    void closed(ClientConsumer consumer) {
        if (mode == Session.DUPS_OK_ACKNOWLEDGE) {
            acknowledgeConsumedNow();
        }
        if (consumer.unacknowledged() == 0) {
            consumers.remove(consumer);
        }
    }

    /** What {@code Message.acknowledge()} calls: in CLIENT_ACKNOWLEDGE mode, {@link #acknowledge}; else null. */
    MessageAcknowledger clientAcknowledger() {
        return clientAcknowledger;
    }

    boolean isDiscarding() {
        return discarding;
    }

    int rollbackCount() {
        return rollbackCount;
    }

    /** An XA session's association with a branch starts (true) or ends (false). */
    void inBranch(boolean associated) {
        inBranch = associated;
    }

    // ---- after each message ----

    /**
     * The application is about to get {@code message}, which came over {@code on}: marked JMSRedelivered if it was
     * handed out before a reconnection and not settled, and counted as the open transaction's work.
     */
    void handOut(WharfMessage message, ConnectedLink on) {
        if (ledger.handOut(message.getJMSMessageID(), on.generation())) {
            message.setDeliveryCount(Math.max(2, message.getDeliveryCount()));
        }
        if (mode == Session.SESSION_TRANSACTED) {
            work(on);
        }
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
    void received(ClientConsumer consumer, long deliveryId) {
        switch (mode) {
            case Session.AUTO_ACKNOWLEDGE -> acknowledgeSoon(consumer, deliveryId);
            case Frame.SESSION_XA -> {
                if (inBranch) {
                    consumer.recordConsumed(deliveryId);
                } else {
                    acknowledgeSoon(consumer, deliveryId);
                }
            }
            case Session.DUPS_OK_ACKNOWLEDGE -> {
                consumer.recordConsumed(deliveryId);
                countDupsOk(consumer);
            }
            default -> consumer.recordConsumed(deliveryId);
        }
    }

    /** An ACK nobody waits for: it leaves with the application's next frame (or within milliseconds). */
    private void acknowledgeSoon(ClientConsumer consumer, long deliveryId) {
        ConnectedLink on = consumer.takenLink();
        on.writeSoon(new Frame.Ack(confirmation(on), sessionId, List.of(new Frame.Consumed(consumer.id(), deliveryId))));
    }

    /**
     * receiveBody could not return a message's body: in AUTO and DUPS_OK mode it is recovered, to be delivered
     * again; in CLIENT_ACKNOWLEDGE and transacted mode it counts as delivered (JMS 2.0).
     */
    void bodyRefused(ClientConsumer consumer, long deliveryId) throws JMSException {
        consumer.recordConsumed(deliveryId);
        if (acknowledgesAutomatically()) {
            rollback("ROLLBACK (recover after receiveBody could not return the body)");
        }
    }

    /**
     * A listener threw. JMS: in AUTO and DUPS_OK mode the message is delivered again at once.
     *
     * @return true if the session recovered (the delivery is then not acknowledged)
     */
    boolean recoverAfterListenerFailure() {
        if (!acknowledgesAutomatically()) {
            return false;
        }
        try {
            rollback("ROLLBACK (recover after MessageListener failure)");
        } catch (JMSException e) {
            LOG.log(System.Logger.Level.WARNING, "Could not recover session " + sessionId
                    + " after a MessageListener failure", e);
        }
        return true;
    }

    /**
     * A listener returned from a delivery recorded before it ran: acknowledged now in AUTO mode, counted in DUPS_OK
     * mode, unless a rollback or recover (perhaps the listener's own) or a close came in between.
     */
    void afterListener(ClientConsumer consumer, long deliveryId, int rollbacksBefore) {
        if (rollbacksBefore != rollbackCount || session.isClosed() || connection.lostCause() != null) {
            return;
        }
        if (mode == Session.AUTO_ACKNOWLEDGE || (mode == Frame.SESSION_XA && !inBranch)) {
            consumer.acknowledged(deliveryId);
            ConnectedLink on = consumer.takenLink();
            on.write(new Frame.Ack(confirmation(on), sessionId, List.of(new Frame.Consumed(consumer.id(), deliveryId))));
        } else if (mode == Session.DUPS_OK_ACKNOWLEDGE) {
            countDupsOk(consumer);
        }
    }

    /** AUTO_ACKNOWLEDGE, DUPS_OK_ACKNOWLEDGE, or an XA session outside a branch: JMS redelivers after a failure. */
    boolean acknowledgesAutomatically() {
        return mode == Session.AUTO_ACKNOWLEDGE || mode == Session.DUPS_OK_ACKNOWLEDGE
                || (mode == Frame.SESSION_XA && !inBranch);
    }

    private void countDupsOk(ClientConsumer consumer) {
        if (++dupsOkPending >= batchSize || consumer.drained()) {
            acknowledgeConsumedNow();
        }
    }

    /**
     * Writes one unanswered ACK for everything consumed and not yet acknowledged, at once: DUPS_OK's batch.
     */
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
     * Message.acknowledge() in CLIENT_ACKNOWLEDGE mode: one answered ACK naming every consumer with consumed messages.
     * Messages consumed over a link since lost are not in it: the server took them back when the link went, before any
     * acknowledgement reached it, and delivers them again marked JMSRedelivered, as JMS has it for a connection that
     * fails before the acknowledgement; the session carries on. So does it when the link is lost before the ACK's
     * answer: what the ACK named either was acknowledged or comes back marked.
     */
    void acknowledge() throws JMSException {
        if (session.isClosing()) {
            throw new IllegalStateException("Cannot acknowledge: the session is closed");
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
                throw JmsErrors.toException(error);
            }
            forget(list);
            ledger.settle(upTo);
        } catch (ReconnectingException lost) {
            // acknowledged, or delivered again marked JMSRedelivered: the ledger still has them
        }
    }

    /**
     * Commits: the transaction's sends become visible and its consumed messages are acknowledged. When the server
     * answers TRANSACTION_ROLLED_BACK (an earlier send of the transaction failed), it has dropped the sends and
     * taken back the consumed messages (to be redelivered); prefetched ones stay buffered, so the client only
     * forgets its consumed-list and throws TransactionRolledBackException.
     *
     * <p>After a reconnection: a transaction that did work over the lost link is rolled back (what it did over the new
     * one too) and TransactionRolledBackException says so. A COMMIT whose link is lost before its answer has an outcome
     * nobody on this side knows: a JMSException with error code {@code TRANSACTION_OUTCOME_UNKNOWN} says so.
     */
    void commit() throws JMSException {
        ConnectedLink on = connection.usableLink();
        if (workLostBefore(on)) {
            try {
                rollback("ROLLBACK (of a transaction cut by a reconnection)");
            } catch (ReconnectingException again) {
                // lost again: the server let go of the transaction with the link
            }
            throw new TransactionRolledBackException("The transaction was rolled back: the connection to Wharf was lost"
                    + " while it was open, and has been made again. Its sends were dropped, and the messages it received"
                    + " are delivered again, marked JMSRedelivered. A new transaction has begun.",
                    ErrorCode.TRANSACTION_ROLLED_BACK.name());
        }
        List<Frame.Consumed> list = consumedList(on);
        long upTo = ledger.position();
        Frame.Error error;
        try {
            error = connection.request(on, rid -> new Frame.Commit(rid, sessionId, list), "COMMIT");
        } catch (ReconnectingException lost) {
            workSettled();
            throw new JMSException("The outcome of the commit is unknown: the connection to Wharf at " + on.address()
                    + " was lost after COMMIT was sent and before the server answered. The transaction may have been"
                    + " committed (its sends delivered, its received messages acknowledged) or rolled back (its sends"
                    + " dropped, its received messages delivered again marked JMSRedelivered). The connection has been"
                    + " made again and a new transaction has begun.", TRANSACTION_OUTCOME_UNKNOWN);
        }
        if (error == null || error.code() == ErrorCode.TRANSACTION_ROLLED_BACK) {
            forget(list);
            ledger.settle(upTo);
            workSettled();
        }
        if (error != null) {
            throw JmsErrors.toException(error);
        }
    }

    /**
     * Sends ROLLBACK with the consumed-list. From before it is sent until its answer is read (on the reading
     * thread), deliveries for this session are discarded, and the buffers are emptied: the server takes all of
     * those back and restarts every consumer at its initial credit. A link lost meanwhile does the same: the server
     * let go of everything with it.
     */
    void rollback(String what) throws JMSException {
        ConnectedLink on = connection.usableLink();
        List<Frame.Consumed> list = consumedList(on);
        PendingRequests.Request request = connection.register(on);
        discarding = true;
        rollbackCount++;
        for (ClientConsumer c : consumers) {
            c.releaseBuffer();
        }
        dispatcher.clear();
        // registered before the write, so it runs on the thread that reads the answer, before any later delivery
        request.answer().whenComplete((error, failure) -> discarding = false);
        on.write(new Frame.Rollback(request.id, sessionId, list));
        Frame.Error error = null;
        try {
            error = connection.await(request, what);
        } catch (ReconnectingException lost) {
            // the server let go of the session's transaction and deliveries with the link
        }
        dupsOkPending = 0;
        for (ClientConsumer c : consumers) {
            c.rolledBack();
        }
        forgetSettledClosed();
        workSettled(); // what it returned stays in the ledger: the server marks it, and so would this side after a crash
        if (error != null) {
            throw JmsErrors.toException(error);
        }
    }

    /** The session's link was lost: buffered deliveries are dropped, and closed consumers can be settled by nobody. */
    void linkLost() {
        for (ClientConsumer c : consumers) {
            c.linkLost();
        }
        dispatcher.clear();
        consumers.removeIf(ClientConsumer::isClosed);
    }

    /**
     * An XA session's XA_END: sends {@code end} with the consumed-list and, once the server has ended the association
     * (its answer is OK, or XA_RBROLLBACK/XA_RBTIMEOUT: the branch took them all the same), forgets what the list
     * names: it is the branch's to settle now.
     *
     * @return the server's ERROR, or null for OK
     */
    Frame.Error endBranch(java.util.function.Function<List<Frame.Consumed>, java.util.function.IntFunction<Frame>> end)
            throws JMSException {
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
        for (ClientConsumer c : consumers) {
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
        for (ClientConsumer c : consumers) {
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
