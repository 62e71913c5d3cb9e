package org.wharfmq.server.store;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;

/**
 * Keeps the journal's disk use within live data plus a slack, on the writer thread after each batch:
 *
 * <ul>
 *   <li>moves on to a new file once the current one holds {@code journalFileBytes};</li>
 *   <li>reclaims the oldest file once it has no live record, or once the dead bytes of the whole journal exceed
 *       {@code journalSlackBytes}: its live records (unconsumed messages, queue and subscription definitions) are first copied
 *       forward into the current file and synced, then the file is deleted. Only the oldest file is ever deleted,
 *       so a consume record is never lost while the message record it cancels still exists;</li>
 *   <li>refuses new messages (not consumes, commits or rollbacks) when the journal reaches
 *       {@code journalMaxBytes} or the disk's free space falls below a reserve.</li>
 * </ul>
 *
 * A file that still holds a record of an open transaction waits until that transaction ends; one that holds records
 * of prepared XA transactions only (in doubt, maybe for hours) copies each of them forward whole, as live messages.
 */
final class JournalSpace {

    private static final System.Logger LOG = System.getLogger(JournalSpace.class.getName());

    /** Free disk a new segment needs: Chronicle's metadata and the new file's header and first index. */
    static final long ROLL_ROOM_BYTES = 16L << 20;

    private final Journal journal;
    private final JournalState state;
    private final long fileBytes;
    private final long slackBytes;
    private final long maxBytes;
    private final long diskReserve;
    /** Reads the free bytes of the journal's disk (-1 when unknown): {@link #diskFreeSpace} but in tests. */
    private final ToLongFunction<Path> freeSpace;
    private long usableDisk = -1;
    private boolean squeezed;
    private volatile long reclaimedFiles;
    private volatile long journalBytes;
    /**
     * While recovery hands its messages to the queues it reads their records where the first pass found them
     * ({@link JournalReader}): reclamation, which moves records and deletes files, waits until it is done.
     */
    private volatile boolean recoveryReading;

    JournalSpace(Journal journal, JournalState state, long fileBytes, long slackBytes, long maxBytes, long diskReserve,
                 ToLongFunction<Path> freeSpace) {
        this.journal = journal;
        this.state = state;
        this.fileBytes = fileBytes;
        this.slackBytes = slackBytes;
        this.maxBytes = maxBytes;
        this.diskReserve = diskReserve;
        this.freeSpace = freeSpace;
    }

    /**
     * Reads the free space on the disk of a directory (-1 when it cannot be read). The disk is looked up once per
     * directory: on Linux, {@link Files#getFileStore} parses the whole mount table, 0.2 ms of the writer's time
     * at every check, where reading the free space of a known disk is one {@code statvfs}.
     */
    static ToLongFunction<Path> diskFreeSpace() {
        return new ToLongFunction<>() {
            private Path directory;
            private FileStore store;

            @Override
            public long applyAsLong(Path path) {
                try {
                    if (store == null || !path.equals(directory)) {
                        store = Files.getFileStore(path);
                        directory = path;
                    }
                    return store.getUsableSpace();
                } catch (IOException e) {
                    store = null;
                    return -1;
                }
            }
        };
    }

    /** Reads the disk's free space (the writer does, every few milliseconds). */
    void checkDisk() {
        usableDisk = freeSpace.applyAsLong(journal.directory());
    }

    /** Why a message of {@code length} bytes cannot be written now, or null when it can. */
    JournalFullException refusal(int length) {
        long used = state.totalBytes();
        if (maxBytes > 0 && used + length + 128 > maxBytes) {
            squeezed = true;
            return new JournalFullException("The journal is full: it holds " + used + " bytes and its limit is "
                    + maxBytes + " (setting journalMaxBytes). Consume messages or raise the limit; sending works again "
                    + "once there is room.");
        }
        if (usableDisk >= 0 && usableDisk - length < diskReserve) {
            squeezed = true;
            return new JournalFullException("The disk of the journal (" + journal.directory() + ") is full: "
                    + usableDisk + " bytes free, " + diskReserve + " kept in reserve for consumers and commits. "
                    + "Free disk space or consume messages; sending works again once there is room.");
        }
        return null;
    }

    /** Bytes of records in the journal after the last batch (read by other threads). */
    long journalBytes() {
        return journalBytes;
    }

    /** Segments reclaimed since the start. */
    long reclaimedFiles() {
        return reclaimedFiles;
    }

    /** Rolls and reclaims as needed; called by the writer between batches. */
    void afterBatch(JournalWriter writer) {
        JournalState.Segment current = state.segment(journal.currentSegment());
        boolean dead = current.bytes > current.liveBytes;
        if ((current.bytes >= fileBytes || (squeezed && dead && current.bytes > 0)) && roomToRoll()) {
            writer.awaitSynced(); // the file is closed: nothing may still be syncing it
            // records nobody waited for (a DELIVERED, an unanswered acknowledgement) may not be synced yet: they are
            // forced with their file, since the next sync, which a later waiter's durability takes for theirs too,
            // forces only the new one
            writer.syncFile();
            journal.roll();
            state.segment(journal.currentSegment());
        }
        reclaim(writer);
        squeezed = false;
        journalBytes = state.totalBytes();
    }

    /**
     * Whether the disk has room for a new segment's files, read afresh: Chronicle writes their headers through a
     * memory map, where a full disk is a SIGBUS, not an error. On a disk another program has filled, the journal
     * stays in its current file (whose blocks it claims ahead) until there is room.
     */
    private boolean roomToRoll() {
        checkDisk();
        return usableDisk < 0 || usableDisk >= ROLL_ROOM_BYTES;
    }

    /** Recovery reads records by position from now until {@link #recoveryRead}: reclamation waits. */
    void recoveryReads() {
        recoveryReading = true;
    }

    /** Recovery has read every record it needed: reclamation goes on with the next batch. */
    void recoveryRead() {
        recoveryReading = false;
    }

    private void reclaim(JournalWriter writer) {
        if (recoveryReading) {
            return;
        }
        int currentSegment = journal.currentSegment();
        while (true) {
            Map.Entry<Integer, JournalState.Segment> oldest = state.segments().firstEntry();
            if (oldest == null || oldest.getKey() >= currentSegment) {
                return;
            }
            int segment = oldest.getKey();
            JournalState.Segment file = oldest.getValue();
            List<Long> prepared = file.pendingRecords == 0 ? List.of() : state.preparedHolding(segment);
            if (prepared == null) {
                return; // a transaction not prepared has records there: it ends soon
            }
            long deadBytes = state.totalBytes() - state.liveBytes();
            // a full journal with nothing dead gains nothing from copying: only consumption makes room then
            boolean worthIt = file.liveBytes == 0 || deadBytes > slackBytes || (squeezed && deadBytes > 0);
            if (!worthIt) {
                return;
            }
            int moved;
            try {
                moved = moveForward(writer, segment, prepared);
            } catch (JournalFullException full) {
                // no disk for the copies: what was copied stays (recovery keeps one of two copies, as after a
                // crash here), the rest is copied after a later batch, once there is room
                LOG.log(System.Logger.Level.DEBUG, () -> "Journal: reclaiming segment " + segment + " waits: " + full);
                return;
            }
            if (moved > 0) {
                writer.syncFile(); // the copies must be durable before the originals go
            }
            writer.segmentDeleted(segment);
            journal.delete(segment);
            state.segments().remove(segment);
            reclaimedFiles++;
            LOG.log(System.Logger.Level.DEBUG, () -> "Journal: reclaimed the file of segment " + segment + " ("
                    + file.bytes + " bytes, " + moved + " live records copied forward)");
        }
    }

    /** Copies what {@code segment} holds that is still needed into the current file; returns the records written. */
    private int moveForward(JournalWriter writer, int segment, List<Long> prepared) {
        int copied = 0;
        for (long tx : prepared) {
            copied += writer.rewritePrepared(tx); // a prepared transaction waits for its transaction manager, not here
        }
        List<JournalState.Live> survivors = state.liveIn(segment);
        survivors.sort(java.util.Comparator.comparingLong(l -> l.index));
        for (JournalState.Live live : survivors) {
            writer.rewrite(live);
        }
        int moved = copied + survivors.size();
        for (JournalState.Definition definition : List.copyOf(state.subscriptions().values())) {
            if (definition.segment() == segment) {
                writer.rewriteSubscription(definition.subscription());
                moved++;
            }
        }
        for (Map.Entry<String, JournalState.Placed> definition : List.copyOf(state.queueDefinitions().entrySet())) {
            if (definition.getValue().segment() == segment) {
                writer.rewriteQueue(definition.getKey());
                moved++;
            }
        }
        return moved;
    }
}
