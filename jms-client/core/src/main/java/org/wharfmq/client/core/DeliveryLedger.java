package org.wharfmq.client.core;

import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.concurrent.atomic.AtomicLongFieldUpdater;

/**
 * Which messages one session handed to its application and the server has not yet confirmed settled, so that one
 * that comes back after a reconnection is marked JMSRedelivered ({@code docs/resilience.md}, "Reconnect and failover").
 *
 * <p>Why the client keeps this: when the connection drops and the server lives on, the server counts the delivery of
 * every message the session had not acknowledged, and redelivers it marked. But a server that was killed, or a standby
 * that took over from its journal, knows nothing of deliveries: it delivers such a message again as new. The client
 * knows what it gave the application, so it marks it. Here "settled" means the server said so: the OK of a COMMIT, of
 * a CLIENT_ACKNOWLEDGE ACK, of a ROLLBACK (the server itself marks what a rollback returns), or, in AUTO_ACKNOWLEDGE
 * and DUPS_OK_ACKNOWLEDGE mode, whose acknowledgements are not answered, the OK of every {@link #confirmationDue}-th
 * acknowledgement, sent with a request id: the server answers an ACK once its record is in the journal, after those of
 * the ACKs before it.
 *
 * <p>The ids are kept in a ring, in the order handed out; on the first delivery that came over a newer link than the
 * ring's, what the ring holds unsettled moves to the watch list, which every later message is looked up in until its
 * id turns up or the list is full ({@value #WATCH_LIMIT}, oldest dropped first). A message without an id (the producer
 * disabled ids) cannot be recognised. Cost on the consuming thread: one array store per message, and a look-up in the
 * watch list only while it is not empty; no lock, no allocation (the ring grows only while confirmations lag).
 *
 * <p>Threading: the session's consuming thread (the application's, or the listener thread), except
 * {@link #confirm}, which the thread that reads an acknowledgement's answer calls.
 */
public final class DeliveryLedger {
    /** Most ids watched for after reconnections; past it the oldest are forgotten. */
    public static final int WATCH_LIMIT = 100_000;
    private static final int FIRST_CAPACITY = 64;
    private static final AtomicLongFieldUpdater<DeliveryLedger> CONFIRMED =
            AtomicLongFieldUpdater.newUpdater(DeliveryLedger.class, "confirmed");

    /** Ids handed out, at {@code position % length}; the ones from {@link #settledFloor()} to {@link #appended} count. */
    private String[] ids = new String[0];
    /** Ids handed out so far. */
    private long appended;
    /** Settled by the consuming thread's own requests (commit, acknowledge, rollback): everything before this. */
    private long settled;
    /** Settled by an answered AUTO or DUPS_OK acknowledgement, written on another thread. */
    private volatile long confirmed;
    /** The greater of {@link #settled} and {@link #confirmed} as last looked at: the ring's room is counted from it. */
    private long floor;
    /** Where the last confirmation was asked for. */
    private long confirmationAsked;
    /** Generation of the link the ring's ids came over; 0 before the first. */
    private int generation;
    /** Ids handed out before a reconnection and not settled: each marks its message JMSRedelivered once. */
    private final LinkedHashSet<String> watch = new LinkedHashSet<>();

    /**
     * The application is about to get the message with {@code messageId}, delivered over link generation
     * {@code linkGeneration}.
     *
     * @return whether it was handed out before a reconnection and not settled: mark it JMSRedelivered
     */
    public boolean handOut(String messageId, int linkGeneration) {
        if (linkGeneration != generation) {
            if (linkGeneration > generation) {
                watchUnsettled();
                generation = linkGeneration;
            } else if (messageId != null) {
                // taken over a link already replaced: it will come back over the new one
                watch(messageId);
                return false;
            }
        }
        boolean seen = !watch.isEmpty() && messageId != null && watch.remove(messageId);
        append(messageId);
        return seen;
    }

    /** How many ids were handed out so far: a position to {@link #settle} or {@link #confirm} up to. */
    public long position() {
        return appended;
    }

    /** The consuming thread's request settled everything handed out before {@code position}. */
    public void settle(long position) {
        if (position > settled) {
            settled = position;
            floor = Math.max(floor, position);
        }
    }

    /**
     * Whether the next AUTO or DUPS_OK acknowledgement should be answered, to confirm what was handed out: once every
     * {@code every} messages. When true, the caller asks for it, and {@link #confirm}s {@link #position()} on the OK.
     */
    public boolean confirmationDue(int every) {
        if (appended - confirmationAsked < every) {
            return false;
        }
        confirmationAsked = appended;
        return true;
    }

    /** An answered acknowledgement confirmed everything handed out before {@code position}; any thread. */
    public void confirm(long position) {
        long seen;
        while ((seen = confirmed) < position && !CONFIRMED.compareAndSet(this, seen, position)) {
            // another confirmation raced this one: look again
        }
    }

    /** Ids handed out and not settled, watched for from now on: a reconnection has happened. */
    private void watchUnsettled() {
        for (long p = settledFloor(); p < appended; p++) {
            String id = ids[(int) (p % ids.length)];
            if (id != null) {
                watch(id);
            }
        }
        Arrays.fill(ids, null);
        settled = appended;
        floor = appended;
        confirmationAsked = appended;
    }

    private void watch(String id) {
        watch.add(id);
        if (watch.size() > WATCH_LIMIT) {
            Iterator<String> oldest = watch.iterator();
            oldest.next();
            oldest.remove();
        }
    }

    private long settledFloor() {
        return Math.max(settled, Math.max(confirmed, appended - ids.length));
    }

    private void append(String messageId) {
        if (appended - floor >= ids.length) {
            floor = Math.max(settled, confirmed); // the one volatile read, and only when the ring looks full
            if (appended - floor >= ids.length) {
                grow();
            }
        }
        ids[(int) (appended % ids.length)] = messageId;
        appended++;
    }

    /** More room: only while confirmations lag behind (or a transaction is long), since settled ids free theirs. */
    private void grow() {
        String[] bigger = new String[Math.max(FIRST_CAPACITY, ids.length * 2)];
        for (long p = floor; p < appended; p++) {
            bigger[(int) (p % bigger.length)] = ids[(int) (p % ids.length)];
        }
        ids = bigger;
    }
}
