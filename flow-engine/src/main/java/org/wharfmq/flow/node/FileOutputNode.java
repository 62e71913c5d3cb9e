package org.wharfmq.flow.node;

import org.wharfmq.flow.FlowContext;
import org.wharfmq.flow.FlowMessage;
import org.wharfmq.flow.FlowValidationException;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.Node;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Appends each message's body, and a delimiter, to a file in a directory; the file is finished when it holds
 * {@link #maxRecords(int)} records, reaches {@link #maxBytes(long)} bytes or has been open {@link #maxAge(Duration)}
 * (whichever comes first), by an atomic rename from its working name {@code NAME.part} to {@code NAME}. A reader of
 * the directory that ignores {@code .part} names never sees a partial file (docs/flows.md, "Files").
 *
 * <p>The name is a pattern with {@code {seq}} (a sequence number, 6 digits, going on from the highest in the
 * directory) and optionally {@code {timestamp}} (UTC, {@code yyyyMMdd-HHmmssSSS}), e.g. {@code orders-{seq}.csv}.
 * When the flow stops, the open file is finished; a {@code .part} file left by a crash is finished when the flow
 * starts again, cut back to its last delimiter (a record half written by the crash is dropped). Only a regular file
 * is: a symbolic link of such a name (the directory may be one others write into) is left alone, never followed, and
 * the files it writes are made anew ({@code CREATE_NEW}), never opened through a link.
 *
 * <p>In a transactional invocation the record is written when the invocation commits, before its database work and its
 * messages ({@link FlowContext#write}), and forced to disk before them ({@link #force}, with {@link Sync#COMMIT}, the
 * default): an invocation that rolls back writes nothing, and its retry writes the record once; a write or force that
 * fails then rolls the invocation back; a message whose commit returned has its record on disk. Outside a transaction
 * the record is written at once, and on disk when its file is finished. All the flow's instances append to one file,
 * one record at a time (under this node's lock), and share its forces: one force makes every record written before it
 * durable, so concurrent invocations pay one force between them (a group commit, as the journal's).
 * The assembly goes on to {@code out}; a write at once that fails goes to {@code failure} if wired, else the path
 * fails.
 */
public final class FileOutputNode extends Node implements FileNode {

    /** When a transactional invocation's records are forced to disk. */
    public enum Sync {
        /** Before the invocation's commits (its message, database work, sends): a record is on disk before its
         *  message is consumed. The default. */
        COMMIT,
        /** Only when the file is finished: faster, but a power loss (or a crash of the machine) loses the records
         *  written since the file's last finish whose messages were consumed. A crash of the process alone loses
         *  nothing (the records are in the operating system's cache). */
        FINISH
    }

    private static final DateTimeFormatter TIMESTAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmssSSS");
    private static final String PART = ".part";
    /** How much of a file a crash left is read at a time, backwards, to find its last delimiter. */
    private static final int LEFT_BLOCK_BYTES = 64 * 1024;

    private final Path directory;
    private String name = "out-{seq}";
    private byte[] delimiter = {'\n'};
    private int maxRecords = Integer.MAX_VALUE;
    private long maxBytes = Long.MAX_VALUE;
    private long maxAgeMillis;
    private Sync sync = Sync.COMMIT;

    /** Held by the invocation forcing the file, so that the others wait for its force and then need none. */
    private final Object forcing = new Object();

    // the open file and the counts of records written and known on disk, guarded by this node's lock
    private long appended;
    private long durable;
    private ScheduledExecutorService timer;
    private FileChannel channel;
    private Path part;
    private int records;
    private long size;
    private long sequence;
    private ScheduledFuture<?> ageLimit;

    private FileOutputNode(Path directory) {
        super("FileOutput", List.of("in"), List.of("out", "failure"));
        this.directory = directory;
    }

    /** Writes files into {@code directory}. */
    public static FileOutputNode directory(String directory) {
        return new FileOutputNode(Path.of(directory));
    }

    /** As {@link #directory(String)}. */
    public static FileOutputNode directory(Path directory) {
        return new FileOutputNode(directory);
    }

    /** The files' name pattern (default {@code out-{seq}}): {@code {seq}} required, {@code {timestamp}} optional. */
    public FileOutputNode name(String pattern) {
        this.name = pattern;
        return this;
    }

    /** What follows each record (default a newline); empty for fixed-length records. */
    public FileOutputNode delimiter(String delimiter) {
        this.delimiter = delimiter.getBytes(StandardCharsets.UTF_8);
        return this;
    }

    /** Finishes a file when it holds this many records. */
    public FileOutputNode maxRecords(int records) {
        this.maxRecords = records;
        return this;
    }

    /** Finishes a file when it holds this many bytes or more (the record that reaches it stays whole). */
    public FileOutputNode maxBytes(long bytes) {
        this.maxBytes = bytes;
        return this;
    }

    /** Finishes a file this long after its first record, even when no more records come. */
    public FileOutputNode maxAge(Duration age) {
        this.maxAgeMillis = age.toMillis();
        return this;
    }

    /** When a transactional invocation's records are forced to disk (default {@link Sync#COMMIT}). */
    public FileOutputNode sync(Sync when) {
        this.sync = when;
        return this;
    }

    /** The directory written to. */
    public Path directory() {
        return directory;
    }

    @Override
    public List<Path> directories() {
        return List.of(directory);
    }

    /** True: a file write may block. */
    @Override
    public final boolean mayBlock() {
        return true;
    }

    @Override
    public Map<String, Object> properties() {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("directory", directory);
        p.put("name", name);
        p.put("delimiter", new String(delimiter, StandardCharsets.UTF_8).replace("\n", "\\n").replace("\r", "\\r"));
        if (maxRecords != Integer.MAX_VALUE) {
            p.put("maxRecords", maxRecords);
        }
        if (maxBytes != Long.MAX_VALUE) {
            p.put("maxBytes", maxBytes);
        }
        if (maxAgeMillis > 0) {
            p.put("maxAgeMillis", maxAgeMillis);
        }
        p.put("sync", sync);
        return p;
    }

    @Override
    protected void validate() {
        if (directory == null || name == null || !name.contains("{seq}")) {
            throw new FlowValidationException("a FileOutput node needs a directory and a name pattern with {seq}, "
                    + "was " + name + ".");
        }
        if (name.contains("/") || name.contains("\\") || name.startsWith(".")) {
            throw new FlowValidationException("a FileOutput node's name pattern is a file name in its directory "
                    + "(no separator, not hidden), was " + name + ".");
        }
        if (sync == null) {
            throw new FlowValidationException("a FileOutput node's sync is COMMIT or FINISH, not null.");
        }
        if (maxRecords < 1 || maxBytes < 1 || maxAgeMillis < 0) {
            throw new FlowValidationException("maxRecords and maxBytes must be at least 1 and maxAge not negative.");
        }
    }

    /**
     * Called by the runtime when the flow starts: creates the directory, finishes the {@code .part} files a crash
     * left (cut back to their last delimiter) and continues the sequence after the highest in the directory.
     */
    public synchronized void open() throws IOException {
        Files.createDirectories(directory);
        Pattern names = namePattern();
        long highest = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(directory)) {
            for (Path file : files) {
                String fileName = file.getFileName().toString();
                boolean left = fileName.endsWith(PART);
                Matcher m = names.matcher(left ? fileName.substring(0, fileName.length() - PART.length()) : fileName);
                if (!m.matches()) {
                    continue;
                }
                highest = Math.max(highest, Long.parseLong(m.group(1)));
                if (left && Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
                    finishLeft(file);
                } else if (left) { // not one this node wrote (its files are made anew): never followed
                    System.getLogger(FileOutputNode.class.getName()).log(System.Logger.Level.WARNING, this + " left "
                            + file + " as it is: it is " + (Files.isSymbolicLink(file) ? "a symbolic link" : "not a"
                            + " regular file") + ", not a file this node wrote, so it is neither cut back nor finished."
                            + " Remove it, and let only the flow host's account write into " + directory + ".");
                }
            }
        }
        sequence = highest;
        if (maxAgeMillis > 0) {
            timer = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "wharf-file-output-" + name());
                t.setDaemon(true);
                return t;
            });
        }
    }

    /** Called by the runtime when the flow stops: finishes the open file. */
    public synchronized void close() throws IOException {
        if (timer != null) {
            timer.shutdownNow();
            timer = null;
        }
        finish();
    }

    @Override
    public void receive(String terminal, MessageAssembly assembly, FlowContext context) throws Exception {
        FlowMessage message = assembly.message();
        byte[] body = message.isTextBody() ? message.bodyText().getBytes(StandardCharsets.UTF_8) : message.bodyBytes();
        try {
            context.write(this, body);
        } catch (IOException | UncheckedIOException e) {
            propagateFailure(assembly, e, context);
            return;
        }
        context.propagate(this, "out", assembly);
    }

    /**
     * Called by the runtime ({@link FlowContext#write}): appends one record to the open file, starting one if none is.
     *
     * @return the record's ticket, for {@link #force}
     */
    public synchronized long append(byte[] body) throws IOException {
        if (channel == null) {
            startFile();
        }
        ByteBuffer[] record = {ByteBuffer.wrap(body), ByteBuffer.wrap(delimiter)};
        while (record[1].hasRemaining()) {
            channel.write(record);
        }
        records++;
        size += body.length + delimiter.length;
        long ticket = ++appended;
        if (records >= maxRecords || size >= maxBytes) {
            finish();
        }
        return ticket;
    }

    /**
     * Called by the runtime before a transactional invocation's other commits ({@link Sync#COMMIT}): returns once
     * the record of {@code ticket}, and every one appended before it, is on disk. One invocation at a time forces the
     * file, outside the lock appends take, so records go on being appended meanwhile; those who waited for it find
     * their records forced by it, or force once for all that came since (a group commit). A record whose file was
     * finished meanwhile was forced by the finish.
     *
     * @throws IOException when the file cannot be forced (the invocation rolls back)
     */
    public void force(long ticket) throws IOException {
        if (sync != Sync.COMMIT) {
            return;
        }
        synchronized (forcing) {
            FileChannel open;
            long through;
            synchronized (this) {
                if (durable >= ticket) {
                    return;
                }
                open = channel;
                through = appended;
            }
            if (open == null) {
                throw new IOException(this + " could not force its records to disk: the file they were written to "
                        + "was not finished (its force failed)");
            }
            try {
                open.force(false);
            } catch (ClosedChannelException finishedMeanwhile) {
                synchronized (this) {
                    if (durable >= ticket) {
                        return; // the finish forced it before it closed it
                    }
                }
                throw finishedMeanwhile;
            }
            synchronized (this) {
                durable = Math.max(durable, through);
            }
        }
    }

    /** How many records this node has written and forced to disk since the flow started (for tests and statistics). */
    public synchronized long durableRecords() {
        return durable;
    }

    private void startFile() throws IOException {
        String finalName = name.replace("{seq}", String.format("%06d", ++sequence))
                .replace("{timestamp}", TIMESTAMP.format(ZonedDateTime.now(ZoneOffset.UTC)));
        part = directory.resolve(finalName + PART);
        channel = FileChannel.open(part, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        records = 0;
        size = 0;
        if (timer != null) {
            Path thisFile = part;
            ageLimit = timer.schedule(() -> finishIfStill(thisFile), maxAgeMillis, TimeUnit.MILLISECONDS);
        }
    }

    private synchronized void finishIfStill(Path file) {
        if (file.equals(part)) {
            try {
                finish();
            } catch (IOException e) {
                System.getLogger(FileOutputNode.class.getName()).log(System.Logger.Level.ERROR,
                        this + " cannot finish " + file + " at its age limit: " + e);
            }
        }
    }

    /** Forces the open file to disk, closes it and renames it to its final name. */
    private void finish() throws IOException {
        if (channel == null) {
            return;
        }
        if (ageLimit != null) {
            ageLimit.cancel(false);
            ageLimit = null;
        }
        Path file = part;
        try {
            channel.force(true);
            durable = appended;
            channel.close();
        } finally {
            channel = null;
            part = null;
        }
        rename(file);
    }

    /** A {@code .part} file a crash left: cut back to its last delimiter and finished (with no delimiter, as it is). */
    private void finishLeft(Path file) throws IOException {
        if (delimiter.length > 0) {
            // not through a link put in its place since it was looked at
            try (FileChannel left = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE,
                    LinkOption.NOFOLLOW_LINKS)) {
                left.truncate(lastDelimiterEnd(left));
                left.force(true);
            }
        }
        rename(file);
    }

    /**
     * Where the file's last delimiter ends (0 when it has none), read backwards a block at a time: a file left by a
     * crash can be of any size (no maxBytes), larger than the heap or than an array.
     */
    private long lastDelimiterEnd(FileChannel file) throws IOException {
        ByteBuffer window = ByteBuffer.allocate(LEFT_BLOCK_BYTES + delimiter.length - 1);
        byte[] bytes = window.array();
        long end = file.size();
        while (end >= delimiter.length) {
            long start = Math.max(0, end - window.capacity());
            window.clear().limit(Math.toIntExact(end - start));
            while (window.hasRemaining() && file.read(window, start + window.position()) >= 0) {
                // reads the window whole
            }
            for (int at = window.position(); at >= delimiter.length; at--) {
                if (Arrays.equals(bytes, at - delimiter.length, at, delimiter, 0, delimiter.length)) {
                    return start + at;
                }
            }
            if (start == 0) {
                return 0;
            }
            end = start + delimiter.length - 1; // the next window overlaps: a delimiter across the two is found
        }
        return 0;
    }

    private static void rename(Path file) throws IOException {
        String fileName = file.getFileName().toString();
        Files.move(file, file.resolveSibling(fileName.substring(0, fileName.length() - PART.length())),
                StandardCopyOption.ATOMIC_MOVE);
    }

    /** The name pattern as a regular expression, its group 1 the sequence number. */
    private Pattern namePattern() {
        StringBuilder regex = new StringBuilder();
        for (String piece : name.split("((?=\\{seq})|(?<=\\{seq})|(?=\\{timestamp})|(?<=\\{timestamp}))")) {
            switch (piece) {
                case "{seq}" -> regex.append("(\\d+)");
                case "{timestamp}" -> regex.append("\\d{8}-\\d{9}");
                default -> regex.append(Pattern.quote(piece));
            }
        }
        return Pattern.compile(regex.toString());
    }
}
