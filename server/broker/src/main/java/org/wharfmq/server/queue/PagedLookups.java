package org.wharfmq.server.queue;

import io.netty.buffer.ByteBuf;
import org.wharfmq.protocol.message.MessageHeaders;
import org.wharfmq.protocol.selector.Selector;
import org.wharfmq.server.OrderedLock;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * The lookups of one {@link LocalQueue}'s consumers among its paged messages (docs/resilience.md, "Selectors"): a
 * consumer with credit that finds nothing its selector accepts in memory has the paging thread look among the paged
 * messages for the oldest it accepts, in the order paged (arrival order, whatever the priority: the messages in memory
 * went first, by priority), on disk first, then among those not written yet, and offers that one out of turn. When
 * its selector pins a JMSCorrelationID, the lookup reads only the segments whose correlation-id set holds the id's
 * hash ({@link #findPaged}). Any other selector has a {@link SelectorScan}: a position in the page files that only
 * moves on, so that while it waits the consumer looks at each paged record once; at the end it looks at those not
 * written yet and is then <i>caught up</i>: a message paged from then on is checked against its selector as it is
 * paged ({@link #caughtUpConsumerFor}) and goes straight to it if it has credit, so a scan never starts again from
 * the beginning for new messages. The scans read at most {@value #SCAN_TURN_BYTES} bytes in a turn of the paging
 * thread, then let other queues' turns go first: a selector that matches nothing on a large paged backlog costs one
 * pass, in steps, and then nothing until new messages are paged.
 *
 * <h2>Threading</h2>
 * Owned by the queue's {@link QueuePaging} and guarded by the queue's lock: the lookups due ({@link
 * #correlationLookups}, {@link #dueScans}) and the scans' flags are read and changed only under it, and the methods
 * documented "under the lock" assert it. It reaches the queue only through {@link PagingHost}. The scans' positions, and the reading and selector evaluations of {@link #scan} and {@link #findPaged},
 * are the paging thread's, outside the lock, which they take only to hand what they found over.
 */
final class PagedLookups {

    /** The most the selectors' scans read in one turn of the paging thread: {@value} bytes (1 MiB). */
    static final int SCAN_TURN_BYTES = 1024 * 1024;

    /** The queue, as far as paging needs it. */
    private final PagingHost queue;
    private final OrderedLock lock;
    private final QueuePaging paging;
    private final Pager pager;
    /**
     * Correlation ids that consumers with credit wait for while the queue pages: the paging thread looks for the
     * oldest paged message of each (on disk, then among those not written yet) and offers it out of turn.
     */
    private final LinkedHashSet<String> correlationLookups = new LinkedHashSet<>(0);
    /**
     * The queue's general consumers with a selector (neither those whose selector pins a correlation id nor those
     * without one), each with how far it has looked among the paged messages for one it accepts.
     */
    private final ArrayList<SelectorScan> scans = new ArrayList<>(0);
    /** Scans whose consumer had credit and found nothing in memory, in the order they came due. */
    private final ArrayDeque<SelectorScan> dueScans = new ArrayDeque<>(0);
    /** Paged messages the scans have looked at, on disk or not written yet, over the queue's life (for tests). */
    private long recordsScanned;
    /** What the scans may still read in the paging thread's turn running now; paging thread only. */
    private long scanBytesLeft;

    PagedLookups(PagingHost queue, OrderedLock lock, QueuePaging paging, Pager pager) {
        this.queue = queue;
        this.lock = lock;
        this.paging = paging;
        this.pager = pager;
    }

    // ---- under the queue's lock ----

    /** Paged messages the consumers' selector scans have looked at, over the queue's life; under the lock. */
    long recordsScanned() {
        assert lock.isHeldByCurrentThread();
        return recordsScanned;
    }

    /**
     * A consumer registers: one with a selector that no correlation id pins gets a scan, caught up when nothing is
     * paged (the messages paged from now on are checked as they are paged). Under the lock.
     */
    void addConsumer(QueueConsumer consumer) {
        assert lock.isHeldByCurrentThread();
        if (scanned(consumer.selector())) {
            scans.add(new SelectorScan(consumer, !paging.hasPaged()));
        }
    }

    /** A consumer leaves: its scan, if any, is forgotten. Under the lock. */
    void removeConsumer(QueueConsumer consumer) {
        assert lock.isHeldByCurrentThread();
        SelectorScan scan = scanOf(consumer);
        if (scan != null) {
            scans.remove(scan);
            dueScans.remove(scan);
            scan.due = false; // one the paging thread holds now is not queued again
        }
    }

    /**
     * A consumer with credit found nothing in memory: has the paging thread look for the oldest paged message its
     * selector accepts, unless it has looked at them all already (or has no selector: it takes them as they are read
     * back). Under the lock.
     */
    void lookFor(QueueConsumer consumer) {
        assert lock.isHeldByCurrentThread();
        String correlationId = consumer.selector().requiredCorrelationId();
        if (correlationId != null) {
            lookFor(correlationId);
            return;
        }
        SelectorScan scan = scanOf(consumer);
        if (scan != null && !scan.caughtUp && !scan.due) {
            scan.due = true;
            dueScans.addLast(scan);
            paging.schedulePaging();
        }
    }

    /** Has the paging thread look for a paged message with {@code correlationId}; under the lock. */
    void lookFor(String correlationId) {
        assert lock.isHeldByCurrentThread();
        if (correlationLookups.add(correlationId)) {
            paging.schedulePaging();
        }
    }

    /**
     * A consumer with credit whose scan is caught up and whose selector accepts {@code m}, about to be paged: no paged
     * message it accepts is older, so it may have {@code m} at once (null: none). Unless a consumer with credit waits
     * for {@code m}'s correlation id: as on a queue that does not page, that one goes first (it finds {@code m} among
     * the paged messages). A caught-up scan that accepts {@code m} and does not get it is caught up no more: it looks
     * again, from where it stopped, now or once its consumer has credit. Under the lock.
     */
    QueueConsumer caughtUpConsumerFor(QueuedMessage m) {
        assert lock.isHeldByCurrentThread();
        if (scans.isEmpty()) {
            return null;
        }
        boolean requesterWaits = m.correlationId() != null && queue.waitsWithCredit(m.correlationId());
        for (int i = 0; i < scans.size(); i++) {
            SelectorScan scan = scans.get(i);
            if (scan.caughtUp && QueueDispatch.matches(scan.consumer.selector(), m)) {
                if (scan.consumer.window().hasCredit() && !requesterWaits) {
                    return scan.consumer;
                }
                scan.caughtUp = false;
                if (scan.consumer.window().hasCredit()) {
                    lookFor(scan.consumer);
                }
            }
        }
        return null;
    }

    /** Whether a consumer with {@code selector} scans the paged messages: not with none, nor one pinning a correlation id. */
    private static boolean scanned(Selector selector) {
        return !selector.matchesAll() && selector.requiredCorrelationId() == null;
    }

    private SelectorScan scanOf(QueueConsumer consumer) {
        for (int i = 0; i < scans.size(); i++) {
            if (scans.get(i).consumer == consumer) {
                return scans.get(i);
            }
        }
        return null;
    }

    /**
     * The next correlation id to look for among the paged messages, if a consumer with credit still waits for it and
     * any message is paged; under the lock.
     */
    String nextCorrelationLookup() {
        assert lock.isHeldByCurrentThread();
        while (!correlationLookups.isEmpty()) {
            String id = correlationLookups.iterator().next();
            correlationLookups.remove(id);
            if (paging.hasPaged() && queue.waitsWithCredit(id)) {
                return id;
            }
        }
        return null;
    }

    /**
     * The first due scan whose consumer still has credit, left at the head of the due ones (null: none); those without
     * credit stop being due (they are due again once their consumer, with credit, finds nothing in memory), and with
     * nothing paged a scan is caught up: there is nothing to look at. Under the lock.
     */
    SelectorScan nextScan() {
        assert lock.isHeldByCurrentThread();
        while (!dueScans.isEmpty()) {
            SelectorScan scan = dueScans.peekFirst();
            if (paging.hasPaged() && scan.consumer.window().hasCredit()) {
                return scan;
            }
            dueScans.pollFirst();
            scan.due = false;
            scan.caughtUp |= !paging.hasPaged();
        }
        return null;
    }

    /** Whether a correlation id is to be looked for among the paged messages; under the lock. */
    boolean correlationLookupsDue() {
        assert lock.isHeldByCurrentThread();
        return !correlationLookups.isEmpty();
    }

    /**
     * Messages were written to the page files: the caught-up scans, which have looked at them already (as they were
     * paged), move past them. Under the lock, on the paging thread.
     */
    void movePastWritten(PageStore store) {
        assert lock.isHeldByCurrentThread();
        for (int i = 0; i < scans.size(); i++) {
            if (scans.get(i).caughtUp) {
                store.toEnd(scans.get(i).position);
            }
        }
    }

    // ---- on the paging thread ----

    /** A new turn of the paging thread: the scans may read {@value #SCAN_TURN_BYTES} bytes in it. */
    void newTurn() {
        scanBytesLeft = SCAN_TURN_BYTES;
    }

    /** Whether the scans may still read in this turn. */
    boolean turnLeft() {
        return scanBytesLeft > 0;
    }

    /**
     * One step of a selector's scan: looks at the paged records on disk from where the scan has got to, as far as the
     * turn's {@link #scanBytesLeft} allow, evaluating its selector outside the lock, and offers the first it accepts
     * out of turn; at the end of the disk, looks at the messages not written yet, under the lock, and the scan is then
     * caught up. It stays due (at the back) until it is caught up or its consumer runs out of credit.
     */
    List<QueueConsumer> scan(PageStore store, SelectorScan scan) {
        Selector selector = scan.consumer.selector();
        ByteBuf buffer = pager.readBuffer();
        long[] looked = {0};
        scanBytesLeft -= store.scan(scan.position, buffer, (int) scanBytesLeft, record -> {
            looked[0]++;
            return QueueDispatch.matches(selector, toSelectOn(record));
        });
        boolean found = buffer.isReadable();
        boolean atEnd = !found && store.atEnd(scan.position);
        queue.lock();
        try {
            recordsScanned += looked[0];
            dueScans.remove(scan);
            if (queue.deleted()) {
                if (found) {
                    paging.forgetRecords(buffer, 1);
                }
                return null;
            }
            List<QueueConsumer> receivers = found ? paging.offerRecord(buffer, null) : null;
            if (atEnd) {
                receivers = scanUnwritten(scan, receivers);
            }
            if (scan.due && !scan.caughtUp) {
                dueScans.addLast(scan); // round-robin among the queue's scans
            } else {
                scan.due = false;
            }
            return receivers;
        } finally {
            queue.unlock();
        }
    }

    /**
     * The end of a scan's pass: looks at the messages not written yet, in order, offering those the selector accepts
     * while its consumer has credit; once it has looked at them all, the scan is caught up. Under the lock.
     */
    private List<QueueConsumer> scanUnwritten(SelectorScan scan, List<QueueConsumer> receivers) {
        assert lock.isHeldByCurrentThread();
        Selector selector = scan.consumer.selector();
        Iterator<QueuedMessage> i = paging.unwritten();
        while (i.hasNext() && scan.consumer.window().hasCredit()) {
            QueuedMessage m = i.next();
            recordsScanned++;
            if (QueueDispatch.matches(selector, m)) {
                i.remove();
                receivers = paging.offerUnwritten(m, receivers);
            }
        }
        scan.caughtUp = !i.hasNext();
        return receivers;
    }

    /**
     * A paged record's message, to evaluate a selector on in place: its bytes stay the read buffer's (it is never
     * released), with the delivery count it was paged with (JMSXDeliveryCount).
     */
    private QueuedMessage toSelectOn(ByteBuf record) {
        ByteBuf bytes = messageOf(record);
        QueuedMessage m = queue.fromPage(bytes);
        m.readBackWithDeliveryCount(record.getInt(record.readerIndex() + 12));
        return m;
    }

    /**
     * Offers the oldest paged messages with {@code correlationId} out of turn while a consumer with credit waits for
     * them: on disk first (only segments whose correlation set holds the id's hash are read), then among those not
     * written yet. Other paged messages keep their order.
     */
    List<QueueConsumer> findPaged(PageStore store, String correlationId) {
        int hash = PageStore.correlationHash(correlationId);
        ByteBuf buffer = pager.readBuffer();
        List<QueueConsumer> receivers = null;
        while (true) {
            try {
                if (!store.take(hash, buffer, record -> correlationId.equals(headersOf(record).correlationId()))) {
                    break;
                }
            } catch (java.io.UncheckedIOException e) {
                QueueDispatch.flush(receivers); // the matches offered before the failure reach their consumers
                throw e;
            }
            queue.lock();
            try {
                if (queue.deleted()) {
                    paging.forgetRecords(buffer, 1);
                    return receivers;
                }
                receivers = paging.offerRecord(buffer, receivers);
                if (!queue.waitsWithCredit(correlationId)) {
                    return receivers;
                }
            } finally {
                queue.unlock();
            }
        }
        queue.lock();
        try {
            for (Iterator<QueuedMessage> i = paging.unwritten(); i.hasNext() && queue.waitsWithCredit(correlationId); ) {
                QueuedMessage m = i.next();
                if (correlationId.equals(m.correlationId())) {
                    i.remove();
                    receivers = paging.offerUnwritten(m, receivers);
                }
            }
        } finally {
            queue.unlock();
        }
        return receivers;
    }

    /** The headers of the message in a whole record at the start of {@code record}. */
    private static MessageHeaders headersOf(ByteBuf record) {
        return MessageHeaders.read(messageOf(record));
    }

    /** The message's bytes in a whole record at the start of {@code record}, in place. */
    static ByteBuf messageOf(ByteBuf record) {
        int length = record.getInt(record.readerIndex());
        return record.slice(record.readerIndex() + PageStore.RECORD_HEADER_BYTES,
                length + 4 - PageStore.RECORD_HEADER_BYTES);
    }

    /**
     * A general consumer with a selector, and how far it has looked among the paged messages for one it accepts. Its
     * position moves on the paging thread only; the flags are guarded by the queue's lock.
     */
    static final class SelectorScan {
        final QueueConsumer consumer;
        /** The next record on disk to look at (records read back since are skipped: the consumer saw them offered). */
        final PageStore.Position position = new PageStore.Position();
        /**
         * It has looked at every paged message: those paged from now on are checked as they are paged, and those
         * written to disk from now on it has looked at already (its position moves past them).
         */
        boolean caughtUp;
        /** Queued in {@link #dueScans}, or being stepped on the paging thread. */
        boolean due;

        SelectorScan(QueueConsumer consumer, boolean caughtUp) {
            this.consumer = consumer;
            this.caughtUp = caughtUp;
        }
    }
}
