package org.wharfmq.flow.runtime;

import org.wharfmq.flow.ExceptionList;
import org.wharfmq.flow.FlowException;
import org.wharfmq.flow.FlowMessage;
import org.wharfmq.flow.Folder;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.TransactionMode;
import org.wharfmq.flow.node.FileInputNode;
import org.wharfmq.flow.records.CsvFormat;
import org.wharfmq.flow.records.RecordFormat;
import org.wharfmq.flow.records.RecordFormatException;

import javax.jms.ConnectionFactory;
import javax.jms.JMSException;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The reader of a {@link FileInputNode}: one thread per node (whatever the flow's instance count, so that records
 * keep their order and one checkpoint says where the node is), with its own connection, a transacted session and
 * a plain one for the flow's sends.
 *
 * <h2>Taking a file</h2>
 * Each poll lists the directory's regular files (symbolic links are not followed) whose name matches the node's
 * glob and neither starts with {@code .} nor ends with {@code .part}; a file is taken when its size and modification
 * time are what the previous poll saw, oldest name first. An entry of such a name that is a FIFO, a socket or a
 * device is never opened (opening a FIFO waits for a writer, for ever: the node's thread would be stuck): it is moved
 * to the backout folder with its reason ({@link #refuseSpecial}), and the file is looked at again, without following
 * a link, right before it is opened, so one swapped in while the files before it ran is refused the same way.
 *
 * <h2>A record</h2>
 * Transactional (YES): the invocation's sends and the node's checkpoint after the record ({@link CheckpointQueue})
 * commit in one transaction of the queue manager, so a crash leaves both or neither: no record is processed twice
 * (nor lost). A failure rolls both back and the record is tried again, up to the backout threshold; then its backout
 * path runs in a transaction of its own, with the checkpoint: the failure terminal if wired (the file goes on, and
 * ends in the backout folder), else the file stops there and goes to the backout folder with its reason.
 * Non-transactional (NO): sends are visible at once and a failing record goes down the backout path at once; the
 * checkpoint commits after the record's sends, so a crash between them gives that record again (at least once), and
 * a file's last record has none unless the file's move fails (its move, forced to disk, says the file is done).
 * The checkpoint of a file's last record says the file is done: the file then moves to the archive (or backout)
 * folder, the move is forced to disk (the directory synced), and the checkpoint is taken off the queue. A crash
 * before the move is followed by the move at the restart, with no record again. A stop (undeploy, redeploy, server
 * stop) finishes the record in progress, and when that record was the file's last, moves the file too: whoever
 * stopped the flow finds every file it finished archived.
 *
 * <p>A crash point for tests, off unless the JVM runs with the system property {@value #HOLD}: set to a record's
 * number, the reader logs {@value #HOLDING} and waits for good right after that record's commit (of any file), so
 * that a test can kill the process there.
 */
final class FileInstance extends InputReader {

    static final String HOLD = "wharf.test.fileInput.hold";
    static final String HOLDING = "holding the FileInput reader after the commit of record";

    private static final System.Logger LOG = System.getLogger(FileInstance.class.getName());
    /** The record after whose commit the reader holds ({@value #HOLD}), or 0. */
    private static final long HOLD_AFTER = Long.getLong(HOLD, 0);

    private final FileInputNode input;
    private final boolean transactional;
    /** Where the node kept its checkpoint before it was a message: taken over once. */
    private final Path legacyCheckpoint;
    /** The node's checkpoint queue on the reader's transacted session, made again with each connection. */
    private CheckpointQueue checkpoints;
    /** The checkpoint committed last (or read at connection), null when there is none. */
    private FileCheckpoint committed;
    /**
     * Whether {@link #committed} says a file is done that this reader has moved since (its move forced to disk): the
     * checkpoint is then of no file, and goes at the end of the poll, or with the next file's first record.
     */
    private boolean committedMoved;
    /**
     * Non-transactional: the checkpoint after a file's last record, kept in memory only (its file's move, forced to
     * disk, says the file is done, as a checkpoint would at the cost of a journal sync), or null. Put on the queue only
     * when the move fails, so that the file is moved later without its last record again.
     */
    private FileCheckpoint unqueued;
    private final PathMatcher matcher;
    private final Map<Path, List<Long>> lastSeen = new HashMap<>();
    /** The record format of the file being read (its header line applied), or null outside the RECORDS domain. */
    private RecordFormat fileFormat;

    FileInstance(RunningFlow flow, FileInputNode input, ConnectionFactory connectionFactory) {
        super(flow, connectionFactory, input.transactionMode() == TransactionMode.YES);
        this.input = input;
        this.transactional = input.transactionMode() == TransactionMode.YES;
        this.legacyCheckpoint = FileCheckpoint.legacyLocation(input.directory(), flow.name(), input.name());
        this.matcher = FileSystems.getDefault().getPathMatcher("glob:" + input.pattern());
    }

    @Override
    String describe() {
        return input + " on " + input.directory();
    }

    @Override
    void prepare() throws IOException {
        Files.createDirectories(input.archiveFolder());
        Files.createDirectories(input.backoutFolder());
    }

    /** Opens the connection (started: the checkpoint is received on it) and reads the committed checkpoint. */
    @Override
    void open() throws JMSException {
        openWharf(true);
        checkpoints = new CheckpointQueue(transacted, input.checkpointQueue(flow.name()));
        try {
            committed = checkpoints.load(legacyCheckpoint);
            committedMoved = false; // not known: when its file is there, it is moved, not read again
            unqueued = null;
        } catch (IOException e) {
            JMSException failure = new JMSException("Flow '" + flow.name() + "' " + input + " cannot take over its "
                    + "checkpoint file " + legacyCheckpoint + ": " + e);
            failure.initCause(e);
            throw failure;
        }
    }

    /**
     * One poll, then the polling interval. A failure (the connection dropped, the directory cannot be read) rolled
     * back the record in progress with its checkpoint, so it is taken again.
     */
    @Override
    void work() throws IOException, JMSException {
        poll();
        flow.awaitStop(input.pollMillis());
    }

    /**
     * Takes every file ready now, in name order; the file of the checkpoint first (it was taken before). Then takes
     * the checkpoint of a file moved off the queue, unless the next file's first record replaced it.
     */
    private void poll() throws IOException, JMSException {
        FileCheckpoint checkpoint = current();
        Map<Path, List<Long>> seen = new HashMap<>();
        List<Path> ready = new ArrayList<>();
        List<Path> special = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(input.directory())) {
            for (Path file : files) {
                String name = file.getFileName().toString();
                if (name.startsWith(".") || name.endsWith(".part") || !matcher.matches(file.getFileName())) {
                    continue;
                }
                BasicFileAttributes attributes;
                try {
                    attributes = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                } catch (IOException gone) {
                    continue;
                }
                if (!attributes.isRegularFile()) {
                    if (attributes.isOther()) {
                        special.add(file);
                    }
                    continue;
                }
                List<Long> state = List.of(attributes.size(), attributes.lastModifiedTime().toMillis());
                seen.put(file, state);
                boolean resumed = checkpoint != null && checkpoint.isOf(name, state.get(0), state.get(1));
                if (resumed || state.equals(lastSeen.get(file))) {
                    ready.add(file);
                }
            }
        }
        lastSeen.clear();
        lastSeen.putAll(seen);
        for (Path file : special) {
            refuseSpecial(file);
        }
        ready.sort(null);
        for (Path file : ready) {
            if (!flow.isRunning()) {
                break;
            }
            List<Long> state = seen.get(file);
            FileCheckpoint start = current();
            if (start == null || !start.isOf(file.getFileName().toString(), state.get(0), state.get(1))) {
                start = FileCheckpoint.start(file.getFileName().toString(), state.get(0), state.get(1));
            }
            take(file, start);
            lastSeen.remove(file);
        }
        if (committedMoved) {
            // only now: a file of the same name, size and time delivered again is not taken for the one moved
            checkpoints.clear();
            transacted.commit();
            committed = null;
            committedMoved = false;
        }
    }

    /** The committed checkpoint of a file not yet moved, or null. */
    private FileCheckpoint current() {
        return committedMoved ? null : committed;
    }

    /** Reads the file's records from the checkpoint on, then moves the file to the archive or the backout folder. */
    private void take(Path file, FileCheckpoint start) throws IOException, JMSException {
        FileCheckpoint checkpoint = start;
        String failure = null;
        if (start.done()) { // its last record committed before a crash, or before a move that failed
            finish(file, failedRecords(start));
            return;
        }
        if (!stillRegular(file)) {
            return;
        }
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            fileFormat = input.recordFormat();
            long from = checkpoint.offset();
            if (input.records() == FileInputNode.Records.WHOLE_FILE && channel.size() > flow.maxMessageBytes()) {
                // never read into memory: it could not be sent, and a file larger than the heap would fill it
                failure = "it is " + channel.size() + " bytes, more than the longest message the server takes ("
                        + "maxMessageLength, " + flow.maxMessageBytes() + " bytes), so it was not read. Split it, or "
                        + "read it a record at a time (lines(), recordLength(n) or records(format)).";
            } else if (input.headerLine()) {
                RecordReader header = new RecordReader(new BufferedInputStream(Channels.newInputStream(channel)), 0);
                try {
                    byte[] line = header.next();
                    if (line != null) {
                        fileFormat = ((CsvFormat) input.recordFormat())
                                .withHeaderLine(new String(line, input.charset()));
                    }
                    from = Math.max(from, header.offset());
                } catch (RecordException | RecordFormatException e) {
                    failure = "the header line: " + e.getMessage();
                }
            }
            channel.position(from);
            RecordReader reader = new RecordReader(new BufferedInputStream(Channels.newInputStream(channel)), from);
            while (failure == null) {
                if (!flow.isRunning() && !reader.atEnd()) {
                    // the checkpoint says where to go on; a file whose records are all done is finished below, so
                    // that a stop right after its last commit does not leave it in the directory
                    return;
                }
                byte[] record;
                long number = checkpoint.records() + 1;
                ExceptionList failed;
                boolean last;
                try {
                    record = reader.next();
                    if (record == null) {
                        break;
                    }
                    last = reader.atEnd();
                    failed = refused(file.getFileName().toString(), number, record, from);
                    if (failed == null) {
                        failed = process(file.getFileName().toString(), number, record,
                                checkpoint.next(reader.offset(), false, last));
                    }
                } catch (LineTooLongException e) {
                    // a record refused unread: it takes the backout path at once, as one the flow failed on
                    record = e.start;
                    last = reader.atEnd();
                    failed = ExceptionList.of(input, new RecordFormatException("Record " + number + " of "
                            + file.getFileName() + " is longer than the limit of " + e.limit + " bytes (its first "
                            + e.limit + " bytes are the message): raise the record format's maxRecordLength if such "
                            + "records are expected."));
                } catch (RecordException e) {
                    failure = "record " + number + ": " + e.getMessage();
                    break;
                }
                if (failed != null && !backOut(file.getFileName().toString(), number, record, failed,
                        checkpoint.next(reader.offset(), true, last))) {
                    failure = "record " + number + " failed and no failure terminal took it (" + (number == 1
                            ? "no record of the file was processed: correct the file and deliver it again"
                            : (number == 2 ? "record 1 was" : "records 1 to " + (number - 1) + " were")
                            + " processed: deliver record " + number
                            + " and the records after it, corrected, in a new file") + "):\n" + failed.render();
                    break;
                }
                from = reader.offset();
                checkpoint = committed;
                if (last) {
                    break;
                }
            }
        }
        finish(file, failure != null ? failure : failedRecords(checkpoint));
    }

    /**
     * Whether {@code file}, about to be opened, is still a regular file (not through a link); one that became a FIFO,
     * socket or device meanwhile is refused ({@link #refuseSpecial}), one gone or become another thing is left to the
     * next poll.
     */
    private boolean stillRegular(Path file) throws IOException {
        BasicFileAttributes now;
        try {
            now = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException gone) {
            return false;
        }
        if (now.isOther()) {
            refuseSpecial(file);
        }
        return now.isRegularFile();
    }

    /**
     * Moves a FIFO, socket or device out of the watched directory into the backout folder, never opening it, with
     * its reason beside it and a WARNING: reading a FIFO waits for a writer (for ever, if whoever put it there never
     * writes), which would stop the node. Moved, not skipped, so that it is said once. No checkpoint is about it.
     */
    private void refuseSpecial(Path file) throws IOException {
        String name = file.getFileName().toString();
        String why = "it is " + SpecialFile.kind(file) + ", not a regular file, so it was not opened (reading one "
                + "can wait for ever for a writer, which would stop the node). Deliver regular files only.";
        try (NoFollowFolder target = NoFollowFolder.open(input.backoutFolder(), "Flow '" + flow.name() + "' "
                + input)) {
            Path moved = target.moveIn(file);
            target.write(moved.getFileName() + ".reason", "Flow '" + flow.name() + "' " + input + " could not "
                    + "process " + file.toAbsolutePath() + ": " + why + "\n");
            LOG.log(System.Logger.Level.WARNING, "Flow '" + flow.name() + "' moved " + name + " to " + moved + ": "
                    + why);
        }
    }

    /** Why a file whose records all ran goes to the backout folder (some took the failure terminal), or null. */
    private static String failedRecords(FileCheckpoint checkpoint) {
        return checkpoint.failed() > 0 ? checkpoint.failed() + " record(s) failed and went to the failure terminal"
                : null;
    }

    /**
     * In the RECORDS domain, why the record does not fit its format (its number and line, or byte offset, in the
     * file), or null when it does: such a record takes the backout path at once, as retrying cannot help.
     */
    private ExceptionList refused(String fileName, long number, byte[] record, long offset) {
        if (fileFormat == null) {
            return null;
        }
        try {
            if (input.records() == FileInputNode.Records.LINES) {
                fileFormat.parse(new String(record, input.charset()));
            } else {
                fileFormat.parse(record);
            }
            return null;
        } catch (RecordFormatException e) {
            String where = input.records() == FileInputNode.Records.LINES
                    ? "line " + (number + (input.headerLine() ? 1 : 0)) : "at byte " + offset;
            return ExceptionList.of(input, new RecordFormatException("Record " + number + " of " + fileName + " ("
                    + where + ") does not fit its format: " + e.fault()));
        }
    }

    /**
     * Runs the flow on one record, trying it up to the backout threshold (once when not transactional), and commits
     * it with the checkpoint after it ({@link #commitWith}).
     *
     * @param next the checkpoint after the record
     * @return null when it committed, else why it failed the last time
     */
    private ExceptionList process(String fileName, long number, byte[] record, FileCheckpoint next)
            throws JMSException {
        int tries = transactional ? input.backoutThreshold() : 1;
        ExceptionList failure = null;
        for (int attempt = 1; attempt <= tries && flow.isRunning() || attempt == 1; attempt++) {
            flow.statistics().invocations.increment();
            invocation.reset(transactional);
            try {
                invocation.run(input, "out", assembly(fileName, number, record));
                commitWith(next);
                return null;
            } catch (FlowException | SQLException | RuntimeException e) {
                flow.statistics().failures.increment();
                invocation.rollback();
                failure = e instanceof FlowException fe && !fe.exceptionList().isEmpty() ? fe.exceptionList()
                        : ExceptionList.of(input, e);
                ExceptionList reason = failure;
                LOG.log(System.Logger.Level.DEBUG, () -> "Flow '" + flow.name() + "' record " + number + " of "
                        + fileName + " failed: " + reason.render());
            } finally {
                invocation.release();
            }
        }
        if (!flow.isRunning()) {
            throw new JMSException("Flow '" + flow.name() + "' stopped while record " + number + " of " + fileName
                    + " was failing; it is tried again when the flow starts.");
        }
        return failure;
    }

    /** The record's backout path: the failure terminal, in a transaction of its own with the checkpoint after it. */
    private boolean backOut(String fileName, long number, byte[] record, ExceptionList failure, FileCheckpoint next)
            throws JMSException {
        if (flow.definition().targets(input, "failure").isEmpty()) {
            return false;
        }
        invocation.reset(transactional);
        try {
            invocation.runFrom(input, "failure", assembly(fileName, number, record).withExceptionList(failure));
            commitWith(next);
            flow.statistics().backouts.increment();
            return true;
        } catch (FlowException | SQLException | RuntimeException e) {
            invocation.rollback();
            LOG.log(System.Logger.Level.ERROR, "Flow '" + flow.name() + "' could not pass record " + number + " of "
                    + fileName + " to the failure terminal: " + e);
            return false;
        } finally {
            invocation.release();
        }
    }

    /**
     * Commits the invocation and the checkpoint after its record: transactional, in its transaction (the queue
     * manager commits both or neither); else after it, in a transaction of its own (a crash between them gives the
     * record again; for the file's last record its move, forced to disk, stands for the checkpoint: {@link #unqueued}).
     * Then holds at the test's crash point, if it is this record ({@value #HOLD}).
     */
    private void commitWith(FileCheckpoint next) throws SQLException, JMSException {
        if (transactional) {
            checkpoints.replace(next);
            invocation.commit();
        } else {
            invocation.commit();
            if (next.done()) {
                unqueued = next; // the file's move says it (finish)
            } else {
                checkpoints.replace(next);
                transacted.commit();
            }
        }
        committed = next;
        committedMoved = false;
        if (next.records() == HOLD_AFTER) {
            LOG.log(System.Logger.Level.WARNING, HOLDING + " " + next.records() + " of " + next.file() + " (" + HOLD
                    + ")");
            while (true) {
                java.util.concurrent.locks.LockSupport.park(this);
            }
        }
    }

    private MessageAssembly assembly(String fileName, long number, byte[] record) {
        FlowMessage message = input.records() == FileInputNode.Records.LINES
                ? FlowMessage.ofText(input.domain(), new String(record, input.charset()))
                : FlowMessage.ofBytes(input.domain(), record);
        if (fileFormat != null) {
            message.parseAs(fileFormat);
        }
        message.properties().set(FileInputNode.FILE_NAME, fileName);
        message.properties().set(FileInputNode.FILE_RECORD, number);
        return MessageAssembly.of(message, Folder.empty("Environment"));
    }

    /**
     * Moves a done file to the archive folder, or a failed one to the backout folder and then writes its
     * {@code NAME.reason} beside it, never through a link in the folder's place ({@link NoFollowFolder}). The move is forced to disk (the watched directory synced) before the checkpoint
     * may go ({@link #committedMoved}; the poll takes it off the queue once its files are done): until then the
     * checkpoint says the file is done (when its last record committed), so a crash, or a move that fails, is
     * followed by the move at a later poll with no record again. A crash after the move leaves a checkpoint of a file
     * no longer there (the next file's first record replaces it), and a backed-out file without its reason (the log
     * has it).
     */
    private void finish(Path file, String failure) throws IOException, JMSException {
        Path folder = failure == null ? input.archiveFolder() : input.backoutFolder();
        String name = file.getFileName().toString();
        try (NoFollowFolder target = NoFollowFolder.open(folder, "Flow '" + flow.name() + "' " + input)) {
            Path moved = target.moveIn(file);
            forceDirectory(input.directory());
            unqueued = null;
            if (failure != null) {
                // after the move, and whole (written aside, then renamed): whoever sees the reason finds the file there
                target.write(moved.getFileName() + ".reason", "Flow '" + flow.name() + "' " + input + " could not "
                        + "process " + file.toAbsolutePath() + ": " + failure + "\n");
                LOG.log(System.Logger.Level.WARNING, "Flow '" + flow.name() + "' moved " + name + " to " + moved
                        + ": " + failure);
            }
        } catch (IOException | RuntimeException e) {
            if (unqueued != null) { // not moved: now the checkpoint must say the file is done
                checkpoints.replace(unqueued);
                transacted.commit();
                unqueued = null;
            }
            throw e;
        }
        committedMoved = committed != null;
    }

    /** Forces a directory's entries to disk: a rename out of it survives a crash of the machine once this returns. */
    private static void forceDirectory(Path directory) throws IOException {
        try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }

    /** A file's records that cannot be cut as the node says (a short fixed-length record). */
    private static class RecordException extends Exception {
        RecordException(String message) {
            super(message);
        }
    }

    /** A line longer than the record format allows, read past (not into memory) up to its end. */
    private static final class LineTooLongException extends RecordException {
        final byte[] start;
        final int limit;

        LineTooLongException(byte[] start, int limit) {
            super("a line longer than " + limit + " bytes");
            this.start = start;
            this.limit = limit;
        }
    }

    /** Cuts a file into records from an offset on, counting the bytes it consumes. */
    private final class RecordReader {
        private final BufferedInputStream in;
        private long offset;

        RecordReader(BufferedInputStream in, long offset) {
            this.in = in;
            this.offset = offset;
        }

        long offset() {
            return offset;
        }

        /** Whether no record is left: {@link #next()} would give null (a short fixed-length record is one left). */
        boolean atEnd() throws IOException {
            if (input.records() == FileInputNode.Records.WHOLE_FILE) {
                return offset > 0;
            }
            in.mark(1);
            boolean end = in.read() == -1;
            in.reset();
            return end;
        }

        byte[] next() throws IOException, RecordException {
            return switch (input.records()) {
                case WHOLE_FILE -> whole();
                case LINES -> line();
                case FIXED_LENGTH -> fixed();
            };
        }

        private byte[] whole() throws IOException {
            if (offset > 0) {
                return null;
            }
            byte[] all = in.readAllBytes();
            offset = Math.max(1, all.length); // an empty file is one empty message, once
            return all;
        }

        private byte[] line() throws IOException, RecordException {
            ByteArrayOutputStream line = new ByteArrayOutputStream();
            int limit = input.recordFormat() != null ? input.recordFormat().maxRecordLength() + 1
                    : (int) Math.min(Integer.MAX_VALUE - 8L, flow.maxMessageBytes() + 1L); // + a '\r'
            int b;
            while ((b = in.read()) != -1) {
                offset++;
                if (line.size() == limit && b != '\n' && input.recordFormat() == null) {
                    throw unsendable(); // read no further into memory: a line larger than the heap would fill it
                }
                if (line.size() == limit && b != '\n') {
                    while ((b = in.read()) != -1) { // skip to the line's end, keeping nothing of it
                        offset++;
                        if (b == '\n') {
                            break;
                        }
                    }
                    throw new LineTooLongException(java.util.Arrays.copyOf(line.toByteArray(), limit - 1), limit - 1);
                }
                if (b == '\n') {
                    byte[] bytes = line.toByteArray();
                    int length = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
                    return sendable(length == bytes.length ? bytes : java.util.Arrays.copyOf(bytes, length));
                }
                line.write(b);
            }
            return line.size() == 0 ? null : sendable(line.toByteArray());
        }

        /** A line of text (no record format), unless it is longer than the longest message the server takes. */
        private byte[] sendable(byte[] line) throws RecordException {
            if (input.recordFormat() == null && line.length > flow.maxMessageBytes()) {
                throw unsendable();
            }
            return line;
        }

        private RecordException unsendable() {
            return new RecordException("a line longer than the longest message the server takes (maxMessageLength, "
                    + flow.maxMessageBytes() + " bytes), so it was not read. Split the line, or read the file a record "
                    + "at a time with recordLength(n).");
        }

        private byte[] fixed() throws IOException, RecordException {
            byte[] record = in.readNBytes(input.recordLength());
            if (record.length == 0) {
                return null;
            }
            if (record.length < input.recordLength()) {
                throw new RecordException("the last record has " + record.length + " bytes, not "
                        + input.recordLength());
            }
            offset += record.length;
            return record;
        }
    }
}
