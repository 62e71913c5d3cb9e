package org.wharfmq.jms;

import org.wharfmq.jms.message.MessageAcknowledger;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;

import javax.jms.IllegalStateException;
import javax.jms.JMSException;
import javax.jms.Session;
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
 * {@code acknowledge()}, {@code commit()}, {@code rollback()} and {@code recover()} send. An XA session
 * ({@link Frame#SESSION_XA}) acknowledges as AUTO_ACKNOWLEDGE outside an XA branch; inside one
 * ({@link #inBranch}) it records what it consumes, as a transaction does, for its XA_END to hand to the branch.
 */
final class SessionSettlement {
    private static final System.Logger LOG = System.getLogger(SessionSettlement.class.getName());

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

    /** An unanswered ACK nobody waits for: it leaves with the application's next frame (or within milliseconds). */
    private void acknowledgeSoon(ClientConsumer consumer, long deliveryId) {
        connection.writeSoon(new Frame.Ack(0, sessionId, List.of(new Frame.Consumed(consumer.id(), deliveryId))));
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
        if (rollbacksBefore != rollbackCount || session.isClosed() || !connection.isUsable()) {
            return;
        }
        if (mode == Session.AUTO_ACKNOWLEDGE || (mode == Frame.SESSION_XA && !inBranch)) {
            consumer.acknowledged(deliveryId);
            connection.write(new Frame.Ack(0, sessionId, List.of(new Frame.Consumed(consumer.id(), deliveryId))));
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
     * Writes one unanswered ACK for everything consumed and not yet acknowledged, at once: DUPS_OK's batch, and in
     * AUTO mode the message a listener that closes its own session is processing (JMS 2.0 rev a).
     */
    void acknowledgeConsumedNow() {
        dupsOkPending = 0;
        List<Frame.Consumed> list = consumedList();
        if (!list.isEmpty() && connection.isUsable()) {
            forget(list);
            connection.write(new Frame.Ack(0, sessionId, list));
        }
    }

    // ---- acknowledge, commit, rollback ----

    /** Message.acknowledge() in CLIENT_ACKNOWLEDGE mode: one answered ACK naming every consumer with consumed messages. */
    void acknowledge() throws JMSException {
        if (session.isClosing()) {
            throw new IllegalStateException("Cannot acknowledge: the session is closed");
        }
        List<Frame.Consumed> list = consumedList();
        if (list.isEmpty()) {
            return;
        }
        connection.requestOk(rid -> new Frame.Ack(rid, sessionId, list), "ACK");
        forget(list);
    }

    /**
     * Commits: the transaction's sends become visible and its consumed messages are acknowledged. When the server
     * answers TRANSACTION_ROLLED_BACK (an earlier send of the transaction failed), it has dropped the sends and
     * taken back the consumed messages (to be redelivered); prefetched ones stay buffered, so the client only
     * forgets its consumed-list and throws TransactionRolledBackException.
     */
    void commit() throws JMSException {
        List<Frame.Consumed> list = consumedList();
        Frame.Error error = connection.request(rid -> new Frame.Commit(rid, sessionId, list), "COMMIT");
        if (error == null || error.code() == ErrorCode.TRANSACTION_ROLLED_BACK) {
            forget(list);
        }
        if (error != null) {
            throw JmsErrors.toException(error);
        }
    }

    /**
     * Sends ROLLBACK with the consumed-list. From before it is sent until its answer is read (on the reading
     * thread), deliveries for this session are discarded, and the buffers are emptied: the server takes all of
     * those back and restarts every consumer at its initial credit.
     */
    void rollback(String what) throws JMSException {
        connection.checkUsable();
        List<Frame.Consumed> list = consumedList();
        PendingRequests.Request request = connection.register(connection.newRequestId());
        discarding = true;
        rollbackCount++;
        for (ClientConsumer c : consumers) {
            c.releaseBuffer();
        }
        dispatcher.clear();
        // registered before the write, so it runs on the thread that reads the answer, before any later delivery
        request.answer().whenComplete((error, failure) -> discarding = false);
        connection.write(new Frame.Rollback(request.id, sessionId, list));
        Frame.Error error = connection.await(request, what);
        dupsOkPending = 0;
        for (ClientConsumer c : consumers) {
            c.rolledBack();
        }
        forgetSettledClosed();
        if (error != null) {
            throw JmsErrors.toException(error);
        }
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
        List<Frame.Consumed> list = consumedList();
        Frame.Error error = connection.request(end.apply(list), "XA_END");
        if (error == null || error.code() == ErrorCode.XA_RBROLLBACK || error.code() == ErrorCode.XA_RBTIMEOUT) {
            forget(list);
        }
        return error;
    }

    /** Per consumer with consumed deliveries, the last one, in the order of {@link #consumers}. */
    private List<Frame.Consumed> consumedList() {
        List<Frame.Consumed> list = null;
        for (ClientConsumer c : consumers) {
            long last = c.unacknowledged();
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
