package org.wharfmq.server.replication;

import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Function;

/**
 * The active member's submitting thread: takes the journal's batches in the order appended and hands them to Ratis,
 * every batch waiting when the thread comes back for more merged into one log entry (up to
 * {@link ReplicationConfiguration#MAX_BATCH_BYTES}), so the batches that arrive while Ratis takes an entry travel,
 * are forced and are committed as one: the journal groups its records so, while its previous batch is written.
 * A batch larger than one entry goes alone, in pieces ({@code pieces}).
 *
 * <p>Why a thread: Ratis appends an entry on the caller's thread, which waits while its log's write queue is full or
 * a leadership change holds the division's lock, and a large record's pieces wait for the earlier pieces' commit;
 * the journal writer must never wait (docs/resilience.md, "Replicated queue manager").
 *
 * <p>Ownership: {@link #submit} from the journal writer (one thread); the queue is the only shared state; the rest is
 * the submitting thread's.
 */
final class BatchSubmitter implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(BatchSubmitter.class.getName());

    /** A batch waiting for the submitting thread. */
    private record Batch(ByteBuffer records, CompletableFuture<Long> committed, long since) {
    }

    private static final Batch STOP = new Batch(null, null, 0);

    private final ByteString header;
    /** Hands one entry to Ratis (on this thread, returning once its log has it); completes when committed. */
    private final Function<ByteString, CompletableFuture<Long>> entry;
    /** Hands a batch larger than one entry to Ratis in pieces (on this thread); completes when the last is committed. */
    private final Function<ByteBuffer, CompletableFuture<Long>> pieces;
    /** Makes the failure of batches left when the member closes. */
    private final java.util.function.Supplier<RuntimeException> closed;
    private final LinkedBlockingQueue<Batch> queue = new LinkedBlockingQueue<>();
    private final ArrayList<Batch> merged = new ArrayList<>();
    /** Entries handed to Ratis and not yet committed (or failed), for {@link ReplicatedEntryEvent}. */
    private final java.util.concurrent.atomic.AtomicInteger inFlight = new java.util.concurrent.atomic.AtomicInteger();
    /** Set by the thread as it ends. */
    private volatile boolean stopped;

    BatchSubmitter(ByteString header, Function<ByteString, CompletableFuture<Long>> entry,
                   Function<ByteBuffer, CompletableFuture<Long>> pieces,
                   java.util.function.Supplier<RuntimeException> closed) {
        this.header = header;
        this.entry = entry;
        this.pieces = pieces;
        this.closed = closed;
        Thread thread = new Thread(this::run, "wharf-replication-submit");
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * Queues a batch of framed journal records ({@code records} not copied: unchanged until the future completes).
     * Never blocks. The future completes with the log index of the entry that carries it once committed, or fails.
     */
    CompletableFuture<Long> submit(ByteBuffer records) {
        CompletableFuture<Long> committed = new CompletableFuture<>();
        if (stopped) {
            committed.completeExceptionally(closed.get());
            return committed;
        }
        queue.add(new Batch(records.slice(), committed, System.nanoTime()));
        if (stopped) {
            failQueued(); // the thread may have gone meanwhile: nothing is left waiting for it
        }
        return committed;
    }

    private void run() {
        try {
            while (true) {
                Batch first = queue.take();
                if (first == STOP) {
                    break;
                }
                if (first.records.remaining() > ReplicationConfiguration.MAX_BATCH_BYTES) {
                    relay(pieces.apply(first.records), first.committed);
                    continue;
                }
                merged.add(first);
                int bytes = first.records.remaining();
                for (Batch next = queue.peek(); next != null && next != STOP
                        && bytes + next.records.remaining() <= ReplicationConfiguration.MAX_BATCH_BYTES;
                        next = queue.peek()) {
                    merged.add(queue.poll());
                    bytes += next.records.remaining();
                }
                submitMerged(bytes);
                merged.clear();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException | Error e) {
            LOG.log(System.Logger.Level.ERROR, "The replication's submitting thread failed", e);
            for (Batch b : merged) {
                b.committed.completeExceptionally(e);
            }
        } finally {
            stopped = true;
            failQueued();
        }
    }

    private void failQueued() {
        RuntimeException failure = null;
        for (Batch b = queue.poll(); b != null; b = queue.poll()) {
            if (b != STOP) {
                failure = failure != null ? failure : closed.get();
                b.committed.completeExceptionally(failure);
            }
        }
    }

    /** One entry for the batches in {@link #merged}: the header, then their records, not copied. */
    private void submitMerged(int bytes) {
        ReplicatedEntryEvent event = ReplicatedEntryEvent.recorded() ? new ReplicatedEntryEvent() : null;
        if (event != null) {
            event.begin();
        }
        long taken = System.nanoTime();
        ByteString data = header;
        for (int i = 0; i < merged.size(); i++) {
            data = data.concat(BatchEntry.wrap(merged.get(i).records));
        }
        int before = inFlight.getAndIncrement();
        CompletableFuture<Long> committed = entry.apply(data);
        committed.whenComplete((index, failure) -> inFlight.decrementAndGet());
        for (int i = 0; i < merged.size(); i++) {
            relay(committed, merged.get(i).committed);
        }
        if (event != null) {
            long inLog = System.nanoTime();
            event.before = before;
            event.batches = merged.size();
            event.records = records();
            event.bytes = bytes;
            event.queued = taken - merged.get(0).since;
            event.submitted = inLog - taken;
            committed.whenComplete((index, failure) -> {
                event.committed = System.nanoTime() - inLog;
                event.failed = failure != null;
                event.commit();
            });
        }
    }

    /** The journal records in {@link #merged}'s batches (each a 4-byte length, then its bytes). */
    private int records() {
        int records = 0;
        for (int i = 0; i < merged.size(); i++) {
            ByteBuffer batch = merged.get(i).records;
            for (int at = batch.position(); at + 4 <= batch.limit() && batch.getInt(at) >= 0;
                    at += 4 + batch.getInt(at)) {
                records++;
            }
        }
        return records;
    }

    private static void relay(CompletableFuture<Long> from, CompletableFuture<Long> to) {
        from.whenComplete((index, failure) -> {
            if (failure == null) {
                to.complete(index);
            } else {
                to.completeExceptionally(failure instanceof java.util.concurrent.CompletionException
                        && failure.getCause() != null ? failure.getCause() : failure);
            }
        });
    }

    /** Stops the thread once it has handed over what is queued; later batches fail with {@code closed}. */
    @Override
    public void close() {
        queue.add(STOP);
    }
}
