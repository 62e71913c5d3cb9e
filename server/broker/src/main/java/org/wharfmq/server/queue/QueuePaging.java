package org.wharfmq.server.queue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.message.MessageHeaders;
import org.wharfmq.server.Configuration;
import org.wharfmq.server.OrderedLock;
import org.wharfmq.server.WharfException;
import org.wharfmq.server.config.MemoryPolicy;
import org.wharfmq.server.store.Persistence;
import org.wharfmq.server.store.StoreCompletion;
import org.wharfmq.server.store.StoredMessage;

import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.function.IntConsumer;

/**
 * One {@link LocalQueue}'s paged messages (docs/resilience.md, "Paging"): those handed to the {@link Pager}'s thread
 * and not written yet, the queue's {@link PageStore} with those on disk, their counts against the disk budgets, and
 * the paging thread's work for the queue: writing them, reading them back in order as its consumers catch up (only
 * while it has a consumer: a queue nobody consumes from keeps its paged messages on disk), and finding a waiting
 * consumer's match among them out of turn.
 *
 * <h2>The seam with the queue</h2>
 * The queue and its parts see this class only as a {@link QueuePager} (what they ask of paging); this class and its
 * parts see the queue only as a {@link PagingHost} (what paging asks of the queue). Both interfaces list the whole
 * seam; nothing else crosses it.
 *
 * <h2>Order</h2>
 * Once the queue pages, every new message is paged too ({@link #pageOut}), until all paged ones are read back: none
 * may overtake a paged one, but for the matches consumers' selectors find out of turn (below), each the oldest for
 * its consumer. They are read back in the order paged, each offered as if it had just arrived
 * ({@link PagingHost#offerReadBack}); the lists in memory keep sequence order, so FIFO per priority holds.
 *
 * <h2>Its parts</h2>
 * The consumers' lookups among the paged messages (a selector's scan of the page files, a correlation id's lookup
 * by its segments' hash sets) are {@link PagedLookups}'; what paging does while the page files cannot be written or
 * read (the disk budget counted as spent, a retry every {@link Configuration#PAGE_RETRY_MILLIS}) is
 * {@link PagingDiskFailure}'s. This class writes the paged messages and reads them back.
 *
 * <h2>Threading</h2>
 * Owned by its queue and guarded by the queue's lock: the paged messages not written yet ({@link #toPage}), their
 * counts ({@link #paged}, {@link #pagedBytes}) and whether a turn is scheduled are read and changed only under it;
 * the queue holds it when it calls the methods documented as "under the lock", and each of those asserts it. This class's own work runs on the paging thread ({@link #runPaging},
 * {@link #browse}, {@link #forgetStore}): it takes the queue's lock only to hand messages over and does its disk I/O,
 * and a scan's selector evaluations on disk records, outside it. The {@link PageStore} and the scans' positions are touched on
 * the paging thread alone, so no lock is ever held across I/O and no event loop reads or writes a page file.
 * {@link #blocksProducers} is read without the lock (a volatile).
 */
final class QueuePaging implements QueuePager {

    private static final System.Logger LOG = System.getLogger(QueuePaging.class.getName());

    /** The queue, as far as paging needs it: its lock, budget, consumers and the hand-over of messages. */
    private final PagingHost queue;
    /** The queue's name, for messages. */
    private final String name;
    /** Whether the queue's persistent messages are in the store (a deleted queue's paged ones are removed from it). */
    private final boolean journaled;
    /** The queue's lock, which guards this class's state (the paging thread's own fields aside). */
    private final OrderedLock lock;
    private final Pager pager;
    /** The server's memory budget, for the low watermark and whether a paging queue is over it. */
    private final MemoryBudget budget;
    /** The queue's arena: messages read back are right-sized into it, as waiting messages are. */
    private final CompactionArena arena;
    private final InstantSource clock;
    /** Where a deleted queue's persistent paged messages are removed from. */
    private final Persistence persistence;

    /** Paged messages not yet written, in the order paged (they hold their bytes, and count them, until written). */
    private final ArrayDeque<QueuedMessage> toPage = new ArrayDeque<>(0);
    /** Messages paged and not read back: in {@link #toPage}, being written, or on disk. */
    private long paged;
    /** How many of them are persistent (a deleted queue's page files are read only to remove those from the store). */
    private long pagedPersistent;
    /** Their records' bytes, counted against the queue's disk budget and the server's. */
    private long pagedBytes;
    /** Whether the paging thread has this queue's turn queued or running. */
    private boolean pagingScheduled;
    /** A management thread waits for a batch read back whatever the watermark ({@link #readBackNow}). */
    private int readBackRequested;
    /**
     * The JMSTimestamp of the oldest paged message, or a little older: the first stamped message paged since nothing
     * was, then, as they are read back in order, the last one read back's. Meaningful while {@link #paged} is not 0.
     */
    private long oldestPagedTimestamp;
    /** A disk budget is spent and the page-full policy is block: producers are held back. */
    private volatile boolean pageFullBlocks;
    /** The record bytes of the messages in {@link #toPage} and being written: the paging thread's write-behind. */
    private long unwrittenBytes;
    /**
     * The write-behind passed {@link #maxWriteBehindBytes} and has not come back under half of it: producers are held
     * back, since the server's spent budget does not hold back senders to a paging queue.
     */
    private volatile boolean writeBehindBlocks;
    /** The consumers' lookups among the paged messages (selectors, correlation ids). */
    private final PagedLookups lookups;
    /** What paging does while the page files cannot be written or read. */
    private final PagingDiskFailure disk;
    /** The queue's page files; only ever touched on the paging thread. */
    private PageStore pageStore;

    /**
     * @param queue       what paging needs of its queue
     * @param name        the queue's name
     * @param journaled   whether the queue's persistent messages are in the store
     * @param lock        the queue's lock
     * @param pager       the server's paging thread and disk budget; null for a queue that never pages
     * @param budget      the server's memory budget
     * @param arena       the queue's arena, guarded by its lock
     * @param persistence where the queue's persistent messages are stored
     */
    QueuePaging(PagingHost queue, String name, boolean journaled, OrderedLock lock, Pager pager, MemoryBudget budget,
                CompactionArena arena, InstantSource clock, Persistence persistence) {
        this.queue = queue;
        this.name = name;
        this.journaled = journaled;
        this.lock = lock;
        this.pager = pager;
        this.budget = budget;
        this.arena = arena;
        this.clock = clock;
        this.persistence = persistence;
        this.lookups = new PagedLookups(queue, lock, this, pager);
        this.disk = new PagingDiskFailure(queue, lock, this, clock);
    }

    // ---- under the queue's lock ----

    @Override
    public boolean hasPaged() {
        assert lock.isHeldByCurrentThread();
        return paged > 0;
    }

    @Override
    public String diskFailure() {
        assert lock.isHeldByCurrentThread();
        return disk.failure();
    }

    @Override
    public long paged() {
        assert lock.isHeldByCurrentThread();
        return paged;
    }

    @Override
    public long pagedBytes() {
        assert lock.isHeldByCurrentThread();
        return pagedBytes;
    }

    @Override
    public long oldestTimestamp() {
        assert lock.isHeldByCurrentThread();
        return paged > 0 ? oldestPagedTimestamp : 0;
    }

    @Override
    public boolean anyPersistent() {
        assert lock.isHeldByCurrentThread();
        return pagedPersistent > 0;
    }

    @Override
    public QueueConsumer pageOut(QueuedMessage m) {
        assert lock.isHeldByCurrentThread();
        QueueConsumer receiver = lookups.caughtUpConsumerFor(m);
        if (receiver == null && m.undecodable == null) {
            page(m);
        }
        return receiver;
    }

    /** Hands a message to the paging thread; it counts as paged from now on. Under the lock. */
    private void page(QueuedMessage m) {
        toPage.addLast(m);
        if (paged == 0 || oldestPagedTimestamp == 0) {
            oldestPagedTimestamp = m.headers().timestamp();
        }
        paged++;
        if (m.correlationId() != null && queue.awaitsCorrelationId(m.correlationId())) {
            lookups.lookFor(m.correlationId()); // its requester waits: it may be the oldest paged reply for it
        }
        if (m.persistent()) {
            pagedPersistent++;
        }
        long bytes = PageStore.recordBytes(m);
        pagedBytes += bytes;
        pager.diskBudget().add(bytes);
        unwrittenBytes += bytes;
        if (unwrittenBytes > maxWriteBehindBytes()) {
            writeBehindBlocks = true;
        }
        notePageFull();
        schedulePaging();
    }

    /** {@link Configuration#PAGE_WRITE_BEHIND_BYTES}, at most an eighth of the server's memory budget. */
    private long maxWriteBehindBytes() {
        return Math.max(1, Math.min(Configuration.PAGE_WRITE_BEHIND_BYTES, budget.maxBytes() / 8));
    }

    /**
     * {@code bytes} of the write-behind are written or taken back: under half its bound, the producers it held back
     * are woken (unless a disk budget holds them too). Under the lock.
     */
    private void unwritten(long bytes) {
        assert lock.isHeldByCurrentThread();
        unwrittenBytes -= bytes;
        if (writeBehindBlocks && unwrittenBytes <= maxWriteBehindBytes() / 2) {
            writeBehindBlocks = false;
            if (!pageFullBlocks) {
                queue.pageFullEnded();
            }
        }
    }

    @Override
    public void readBackIfDue() {
        assert lock.isHeldByCurrentThread();
        if (paged > 0 && !pagingScheduled && readBackDue()) {
            schedulePaging();
        }
    }

    @Override
    public long drop(List<QueuedMessage> out) {
        assert lock.isHeldByCurrentThread();
        out.addAll(toPage);
        long onDisk = paged - toPage.size();
        long dropped = 0;
        for (QueuedMessage m : toPage) {
            dropped += PageStore.recordBytes(m);
        }
        toPage.clear();
        unwritten(dropped);
        pager.diskBudget().release(pagedBytes);
        paged = 0;
        pagedPersistent = 0;
        pagedBytes = 0;
        notePageFull();
        return onDisk;
    }

    @Override
    public void refuseIfFull(QueuedMessage m) {
        assert lock.isHeldByCurrentThread();
        MemoryLimit limit = queue.memoryLimit();
        if (!limit.pages() || limit.paging().whenFull() != MemoryPolicy.FAIL
                || !(paged > 0 || queue.overBudget() || budget.pagingDue())) {
            return;
        }
        long bytes = PageStore.recordBytes(m);
        if (disk.failed()) {
            throw disk.refusal(limit);
        }
        MemoryLimit.PageLimit own = limit.paging();
        if (own.limited() && pagedBytes + bytes > own.maxBytes()) {
            throw new WharfException(ErrorCode.QUEUE_FULL, "The disk budget of " + limit.owner() + " is spent: it"
                    + " holds " + pagedBytes + " bytes of paged messages and may hold " + own.maxBytes() + " ("
                    + own.setting() + "), and it is over its memory budget; this message needs " + bytes
                    + " more, and its pageFullPolicy, fail, refuses it. Consume its messages or raise the budget.");
        }
        MemoryBudget disk = pager.diskBudget();
        if (!disk.hasRoomFor(bytes)) {
            throw new WharfException(ErrorCode.QUEUE_FULL, "The server's disk budget for paged messages is spent:"
                    + " its queues hold " + disk.usedBytes() + " bytes on disk and may hold " + disk.maxBytes() + " ("
                    + disk.setting() + "), so " + limit.owner() + " (over its memory budget, pageFullPolicy fail)"
                    + " takes no more. Consume messages or raise the budget.");
        }
    }

    /**
     * Notes whether a disk budget is spent with the page-full policy block (producers held back); back under it, the
     * queue wakes the producers waiting for it ({@link PagingHost#pageFullEnded}). Under the lock.
     */
    void notePageFull() {
        assert lock.isHeldByCurrentThread();
        MemoryLimit limit = queue.memoryLimit();
        if (!limit.pages() || limit.paging().whenFull() != MemoryPolicy.BLOCK) {
            return;
        }
        boolean blocks = paged > 0 && (ownDiskBudgetSpent() || pager.diskBudget().spent() || disk.failed());
        if (pageFullBlocks && !blocks) {
            pageFullBlocks = false;
            if (!writeBehindBlocks) {
                queue.pageFullEnded();
            }
        } else if (blocks && !pageFullBlocks) {
            pageFullBlocks = true;
        }
    }

    /** This queue's turn on the paging thread has ended (a disk failure's retry schedules the next); under the lock. */
    void turnEnded() {
        assert lock.isHeldByCurrentThread();
        pagingScheduled = false;
    }

    /** The paged messages not written yet, in the order paged, for the lookups to take from; under the lock. */
    Iterator<QueuedMessage> unwritten() {
        assert lock.isHeldByCurrentThread();
        return toPage.iterator();
    }

    @Override
    public long recordsScanned() {
        return lookups.recordsScanned();
    }

    @Override
    public void addConsumer(QueueConsumer consumer) {
        assert lock.isHeldByCurrentThread();
        lookups.addConsumer(consumer);
        readBackIfDue(); // the first consumer of a queue whose messages are all paged: nothing else would read back
    }

    @Override
    public void removeConsumer(QueueConsumer consumer) {
        lookups.removeConsumer(consumer);
    }

    @Override
    public void lookFor(QueueConsumer consumer) {
        lookups.lookFor(consumer);
    }

    @Override
    public boolean blocksProducers() {
        return pageFullBlocks || writeBehindBlocks;
    }

    @Override
    public PageFull pageFull() {
        assert lock.isHeldByCurrentThread();
        notePageFull();
        if (!pageFullBlocks) {
            return writeBehindBlocks ? PageFull.WRITE_BEHIND : PageFull.NONE;
        }
        return ownDiskBudgetSpent() ? PageFull.OWN_BUDGET : PageFull.SERVER_BUDGET;
    }

    @Override
    public void whenDiskAvailable(Runnable task) {
        pager.diskBudget().whenAvailable(task);
    }

    /** Whether the queue's own disk budget (its maxPageBytes) is spent; under the lock. */
    private boolean ownDiskBudgetSpent() {
        assert lock.isHeldByCurrentThread();
        MemoryLimit.PageLimit own = queue.memoryLimit().paging();
        return own.limited() && pagedBytes >= own.maxBytes();
    }

    /** Queues this queue's turn on the paging thread unless it is queued or running; under the lock. */
    void schedulePaging() {
        assert lock.isHeldByCurrentThread();
        if (!pagingScheduled) {
            pagingScheduled = true;
            pager.execute(this::runPaging);
        }
    }

    /**
     * The bytes in memory under which a paging queue reads paged messages back, and about the most one read takes:
     * a share of its own budget, else of the server's (at most {@link Configuration#PAGE_READ_AHEAD_BYTES}).
     */
    private long lowWatermark() {
        MemoryLimit limit = queue.memoryLimit();
        long watermark = limit.limited() ? limit.maxBytes() / 100 * Configuration.PAGE_LOW_WATERMARK_PERCENT
                : Math.min(Configuration.PAGE_READ_AHEAD_BYTES, budget.maxBytes() / 4);
        return Math.max(1, watermark);
    }

    /**
     * Whether paged messages are to be read back: only for consumers, so while one is registered (with credit or not:
     * one that only PULLs has none), and then when the queue holds less than its low watermark in memory and the
     * server's budget is at most half spent, or when no message waits in memory for its consumers and the server's
     * budget is at most half spent (what the queue holds then is delivered and not yet acknowledged: a transacted or
     * client-acknowledging consumer holding half the queue's budget would otherwise wait for ever for the next message
     * its commit needs; it may now hold what its credit allows, up to half the server's budget), or when it holds
     * nothing at all in memory, so that its consumers always make progress, whatever other queues hold. A queue nobody
     * consumes from reads nothing back: its paged messages stay on disk, and it holds none of the server's budget for
     * them (what else needs them reads the page files itself: a browse, a selector's scan, a correlation id's lookup;
     * an administrator's clear or move asks for a batch, {@link #readBackNow}). Under the lock.
     */
    private boolean readBackDue() {
        assert lock.isHeldByCurrentThread();
        if (!queue.hasConsumers()) {
            return false;
        }
        long held = queue.bytesHeld();
        return held == 0
                || (held < lowWatermark() || queue.nothingWaits()) && budget.hasRoomFor(budget.maxBytes() / 2);
    }

    // ---- any thread but an event loop ----

    @Override
    public boolean readBackNow() {
        queue.lock();
        try {
            if (paged == 0 || queue.deleted()) {
                return false;
            }
            readBackRequested++;
            schedulePaging();
        } finally {
            queue.unlock();
        }
        awaitPagingThread("reading back the paged messages of"); // after this queue's turn, which the request made read
        return true;
    }

    @Override
    public void recoveryPaged(long bytes) {
        if (pager.recoveryPaged(bytes)) {
            awaitPagingThread("writing the recovered messages of");
        }
    }

    /**
     * Waits until the paging thread has run every task handed to it so far, this queue's turn included (which runs
     * until nothing is left to do): an administrator's read-back, recovery's writes ({@link LocalQueue#restore}).
     * Takes no lock; never call it on an event loop.
     */
    private void awaitPagingThread(String doing) {
        CountDownLatch done = new CountDownLatch(1);
        pager.execute(done::countDown);
        try {
            done.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new WharfException(ErrorCode.INTERNAL_ERROR, "Interrupted while the paging thread was " + doing
                    + " queue '" + name + "'.");
        }
    }

    @Override
    public void forgetStoreLater(boolean persistentPaged, StoreCompletion removed) {
        pager.execute(() -> forgetStore(persistentPaged, removed));
    }

    // ---- on the paging thread ----

    /**
     * This queue's turn on the paging thread, until there is nothing to do: looks for the paged messages consumers
     * with credit wait for (by correlation id; by selector, up to {@value PagedLookups#SCAN_TURN_BYTES} bytes of scans
     * a turn); reads paged messages back while the queue has a consumer and holds less than its low watermark in
     * memory ({@link #readBackDue}), or an administrator asks, from memory when none was written yet, else from disk;
     * writes the ones waiting to be written otherwise. When a scan is left to go on, the turn queues the next one
     * behind the other queues' turns. Disk I/O happens outside the lock, and only here.
     */
    private void runPaging() {
        PageStore store = pageStore;
        if (store == null) {
            store = pageStore = pager.newStore();
        }
        lookups.newTurn();
        while (true) {
            List<QueuedMessage> writing = null;
            List<QueueConsumer> receivers = null;
            boolean read = false;
            String correlationId = null;
            PagedLookups.SelectorScan scan = null;
            queue.lock();
            try {
                if (queue.deleted() || disk.waitsForRetry()) {
                    pagingScheduled = false; // after a disk failure, the retry schedules the next turn
                    return;
                }
                disk.retryTaken();
                if (lookups.correlationLookupsDue()) {
                    correlationId = lookups.nextCorrelationLookup();
                }
                boolean wanted = paged > 0 && (readBackRequested > 0 || readBackDue());
                if (correlationId != null) {
                    // looked for below
                } else if (wanted && !store.isEmpty()) {
                    read = true; // the oldest paged messages are on disk
                } else if (wanted && !toPage.isEmpty()) {
                    receivers = readBackUnwritten(); // none on disk: no I/O
                } else if (lookups.turnLeft() && (scan = lookups.nextScan()) != null) {
                    // a step of it below
                } else if (!toPage.isEmpty()) {
                    writing = takeToWrite();
                } else if (lookups.nextScan() != null) {
                    pager.execute(this::runPaging); // the scan goes on in a turn behind the other queues' turns
                    return;
                } else {
                    pagingScheduled = false;
                    readBackRequested = 0; // nothing left to read back: an administrator's wait is over
                    return;
                }
            } finally {
                queue.unlock();
            }
            try {
                if (correlationId != null) {
                    receivers = lookups.findPaged(store, correlationId);
                } else if (scan != null) {
                    receivers = lookups.scan(store, scan);
                } else if (writing != null) {
                    write(store, writing);
                } else if (read) {
                    int records = store.read(pager.readBuffer(), (int) lowWatermark());
                    receivers = readBack(pager.readBuffer(), records);
                }
            } catch (java.io.UncheckedIOException e) {
                disk.failed(e);
                return;
            }
            disk.worked(correlationId != null || scan != null || writing != null || read);
            QueueDispatch.flush(receivers);
        }
    }

    /**
     * Writes a batch of messages to the page files; those a failed write left out go back to the front of the ones
     * waiting to be written, in order, still in memory, before the failure is rethrown (unless the queue was deleted
     * meanwhile: then they are let go, as its deletion left the batch in flight to this thread).
     */
    private void write(PageStore store, List<QueuedMessage> writing) {
        try {
            store.append(writing, pager.writeBuffer());
            written(writing);
        } catch (PageStore.WriteFailed e) {
            written(writing.subList(0, e.written));
            List<QueuedMessage> rest = writing.subList(e.written, writing.size());
            boolean deleted;
            queue.lock();
            try {
                deleted = queue.deleted();
                for (int i = rest.size() - 1; i >= 0 && !deleted; i--) {
                    toPage.addFirst(rest.get(i));
                }
            } finally {
                queue.unlock();
            }
            if (deleted) { // deleted while they were written: as after a write that worked, they are let go
                written(rest);
                return;
            }
            throw e;
        }
    }

    /** Up to a batch of the messages waiting to be written, in order; under the lock. */
    private List<QueuedMessage> takeToWrite() {
        assert lock.isHeldByCurrentThread();
        List<QueuedMessage> writing = new ArrayList<>();
        long bytes = 0;
        while (!toPage.isEmpty() && bytes < Configuration.PAGE_READ_AHEAD_BYTES) {
            QueuedMessage m = toPage.pollFirst();
            bytes += m.memoryBytes();
            writing.add(m);
        }
        return writing;
    }

    /**
     * The messages are on disk now: their memory is let go (they stay counted as paged and in the depth), and the
     * caught-up scans, which have looked at them already, move past them.
     */
    private void written(List<QueuedMessage> writing) {
        queue.lock();
        try {
            long bytes = 0;
            for (int i = 0; i < writing.size(); i++) {
                queue.letGo(writing.get(i).memoryBytes());
                bytes += PageStore.recordBytes(writing.get(i));
            }
            unwritten(bytes);
            lookups.movePastWritten(pageStore);
        } finally {
            queue.unlock();
        }
        writing.forEach(QueuedMessage::release);
    }

    /** Reads back messages paged but not written yet (nothing is on disk): no I/O. Under the lock. */
    private List<QueueConsumer> readBackUnwritten() {
        assert lock.isHeldByCurrentThread();
        List<QueueConsumer> receivers = null;
        long bytes = 0;
        while (!toPage.isEmpty() && bytes < lowWatermark()) {
            QueuedMessage m = toPage.pollFirst();
            bytes += m.memoryBytes();
            readBackInOrder(m);
            receivers = offerUnwritten(m, receivers);
        }
        if (readBackRequested > 0) {
            readBackRequested--;
        }
        return receivers;
    }

    /** Makes messages read back from disk ({@code records} whole records in {@code buffer}) waiting messages again. */
    private List<QueueConsumer> readBack(ByteBuf buffer, int records) {
        List<QueueConsumer> receivers = null;
        queue.lock();
        try {
            if (queue.deleted()) { // deleted while they were read: they left the depth then, and the store must forget them
                forgetRecords(buffer, records);
                return null;
            }
            for (int i = 0; i < records; i++) {
                QueuedMessage m = unpageRecord(buffer);
                readBackInOrder(m);
                receivers = queue.offerReadBack(m, receivers);
            }
            if (readBackRequested > 0) {
                readBackRequested--;
            }
        } finally {
            queue.unlock();
        }
        return receivers;
    }

    /** The next record of {@code buffer} as a message of this queue, right-sized in the queue's arena; under the lock. */
    private QueuedMessage fromRecord(ByteBuf buffer) {
        assert lock.isHeldByCurrentThread();
        int length = buffer.readInt();
        long sequence = buffer.readLong();
        int deliveryCount = buffer.readInt();
        buffer.skipBytes(4); // the correlation hash, for the page segment's set
        ByteBuf bytes = buffer.readSlice(length + 4 - PageStore.RECORD_HEADER_BYTES);
        ByteBuf copy = arena.copy(bytes);
        QueuedMessage m = queue.fromPage(copy);
        m.sequence = sequence;
        m.readBackWithDeliveryCount(deliveryCount);
        return m;
    }

    /** The next record of {@code buffer}, found out of turn, offered as the queue's; under the lock. */
    List<QueueConsumer> offerRecord(ByteBuf buffer, List<QueueConsumer> receivers) {
        assert lock.isHeldByCurrentThread();
        return queue.offerReadBack(unpageRecord(buffer), receivers);
    }

    /** The next record of {@code buffer} as the queue's message, in memory again, not paged; under the lock. */
    private QueuedMessage unpageRecord(ByteBuf buffer) {
        assert lock.isHeldByCurrentThread();
        QueuedMessage m = fromRecord(buffer);
        queue.hold(m);
        unpage(m, PageStore.RECORD_HEADER_BYTES + m.content().readableBytes());
        return m;
    }

    /**
     * {@code m}, the oldest paged message, was read back (not found out of turn, before it is offered): the next paged
     * one is no older, as far as JMSTimestamps follow arrival. Under the lock.
     */
    private void readBackInOrder(QueuedMessage m) {
        long timestamp = m.headers().timestamp();
        if (timestamp != 0) {
            oldestPagedTimestamp = timestamp;
        }
    }

    /** A message not written yet, taken off {@link #toPage} by the caller, offered again; under the lock. */
    List<QueueConsumer> offerUnwritten(QueuedMessage m, List<QueueConsumer> receivers) {
        assert lock.isHeldByCurrentThread();
        long bytes = PageStore.recordBytes(m);
        unpage(m, bytes);
        unwritten(bytes);
        return queue.offerReadBack(m, receivers);
    }

    /** A message leaves the paged ones; under the lock. */
    private void unpage(QueuedMessage m, long recordBytes) {
        assert lock.isHeldByCurrentThread();
        paged--;
        if (m.persistent()) {
            pagedPersistent--;
        }
        pagedBytes -= recordBytes;
        pager.diskBudget().release(recordBytes);
        notePageFull();
    }

    @Override
    public void browse(BrowseCursor cursor, int max, long maxBytes, LocalQueue.BrowseSink sink, Executor whereDone,
                       IntConsumer done) {
        pager.execute(() -> {
            int shown = browse(cursor, max, maxBytes, sink);
            whereDone.execute(() -> done.accept(shown));
        });
    }

    /**
     * The paged part of a browse ({@link LocalQueue#browsePaged}), on the paging thread: up to {@code max} more paged
     * messages that the cursor's selector accepts, and none more once their encoded lengths reach {@code maxBytes}
     * (so at least one), read from the page files in the order paged (those read back meanwhile are not shown
     * again), each handed to {@code sink} as a copy of its own.
     *
     * @return how many were shown; fewer than {@code max} only once the cursor's paged part is finished or
     *         {@code maxBytes} is reached
     */
    private int browse(BrowseCursor cursor, int max, long maxBytes, LocalQueue.BrowseSink sink) {
        PageStore store = pageStore;
        if (store == null || queue.deleted()) { // read without the lock: a deleted queue's files are going anyway
            cursor.pagedFinished = true;
            return 0;
        }
        if (cursor.paged == null) {
            cursor.paged = new PageStore.Position();
        }
        ByteBuf buffer = pager.readBuffer();
        long now = clock.millis();
        int shown = 0;
        long shownBytes = 0;
        while (shown < max && shownBytes < maxBytes) {
            int found;
            try {
                found = store.browse(cursor.paged, buffer, 1);
            } catch (java.io.UncheckedIOException e) { // JMS lets a browse miss messages: it ends here, said once
                LOG.log(System.Logger.Level.WARNING, "A browse of " + queue.memoryLimit().owner() + " ends before"
                        + " its paged messages: " + e.getMessage());
                found = 0;
            }
            if (found == 0) {
                cursor.pagedFinished = true;
                break;
            }
            int length = buffer.readInt();
            long sequence = buffer.readLong();
            int deliveryCount = buffer.readInt();
            buffer.skipBytes(4);
            ByteBuf bytes = buffer.readSlice(length + 4 - PageStore.RECORD_HEADER_BYTES);
            if (sequence >= cursor.endSequence) {
                continue; // arrived after the browse began
            }
            ByteBuf copy = CompactionArena.copyAlone(bytes, ByteBufAllocator.DEFAULT);
            QueuedMessage m = queue.fromPage(copy); // to select on
            if (!m.isExpiredAt(now) && QueueDispatch.matches(cursor.selector, m)) {
                shownBytes += copy.readableBytes();
                sink.browsed(copy, deliveryCount);
                shown++;
            } else {
                copy.release();
            }
        }
        return shown;
    }

    /**
     * For a deleted queue: removes its persistent paged messages from the store ({@code removed} runs then; the page
     * files are read only when there are any) and deletes its page files.
     */
    private void forgetStore(boolean persistentPaged, StoreCompletion removed) {
        PageStore store = pageStore;
        if (store == null) {
            removed.completed(null);
            return;
        }
        List<StoredMessage> persistent = new ArrayList<>();
        if (persistentPaged) {
            ByteBuf buffer = pager.readBuffer();
            int records;
            try {
                while ((records = store.read(buffer, Configuration.PAGE_READ_AHEAD_BYTES)) > 0) {
                    collectPersistent(buffer, records, persistent);
                }
            } catch (java.io.UncheckedIOException e) {
                // the rest cannot be read: they stay in the journal and come back with their queue at the next start
                LOG.log(System.Logger.Level.WARNING, "Deleting " + queue.memoryLimit().owner() + ": its page files "
                        + "cannot all be read (" + e.getMessage() + "); the persistent messages among the rest stay in "
                        + "the journal, and their queue comes back with them when the server starts again.");
            }
        }
        store.delete();
        pageStore = null;
        persistence.remove(persistent, removed);
    }

    /** Adds the persistent ones of {@code records} whole records in {@code buffer} to {@code persistent}. */
    private void collectPersistent(ByteBuf buffer, int records, List<StoredMessage> persistent) {
        for (int i = 0; i < records; i++) {
            int length = buffer.readInt();
            long sequence = buffer.readLong();
            buffer.skipBytes(8);
            ByteBuf bytes = buffer.readSlice(length + 4 - PageStore.RECORD_HEADER_BYTES);
            if (journaled && MessageHeaders.read(bytes).persistent()) {
                persistent.add(new PagedMessage(name, sequence));
            }
        }
    }

    /**
     * Records read from the page files of a queue deleted meanwhile: its deletion took them out of the depth, so only
     * the persistent ones' removal from the store is left (nobody waits for it).
     */
    void forgetRecords(ByteBuf buffer, int records) {
        List<StoredMessage> persistent = new ArrayList<>();
        collectPersistent(buffer, records, persistent);
        persistence.remove(persistent, StoreCompletion.NONE);
    }

    /** A paged message as the store knows it: its queue and sequence. */
    private record PagedMessage(String queueName, long sequence) implements StoredMessage {
        @Override
        public ByteBuf content() {
            throw new UnsupportedOperationException("a removal needs no bytes");
        }
    }
}
