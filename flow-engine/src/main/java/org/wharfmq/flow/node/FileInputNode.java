package org.wharfmq.flow.node;

import org.wharfmq.flow.Domain;
import org.wharfmq.flow.FlowContext;
import org.wharfmq.flow.FlowValidationException;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.Node;
import org.wharfmq.flow.TransactionMode;
import org.wharfmq.flow.records.CsvFormat;
import org.wharfmq.flow.records.FixedFormat;
import org.wharfmq.flow.records.RecordFormat;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where files enter a flow: one reader thread watches a directory and propagates each complete file, whole or one
 * message per record, to {@code out} (docs/flows.md, "Files").
 *
 * <p>A file is taken when its name matches the glob {@link #pattern(String)} (names starting with {@code .} and
 * ending with {@code .part} never match: write under such a name and rename into the directory) and its size and
 * modification time have not changed over one polling interval, so a file still being written is not read half.
 * Files are taken in name order. A done file moves to the archive folder; a file one of whose records failed moves
 * to the backout folder, with a {@code NAME.reason} file beside it. A checkpoint (file, size, time, records done),
 * a persistent message on the queue manager's queue {@link #checkpointQueue(String)} replaced in each record's
 * transaction, lets a restarted flow go on where it stopped with no record twice.
 *
 * <p>The message's {@code properties()} carry {@code FileName} (the file's name) and {@code FileRecord} (the
 * record's number, from 1).
 */
public final class FileInputNode extends ReadingNode<FileInputNode> implements FileNode {

    /** How a file is cut into messages. */
    public enum Records {
        /** The whole file is one message (bytes). */
        WHOLE_FILE,
        /** One message per line (text; {@code \n} or {@code \r\n} ends a line, the last line may lack it). */
        LINES,
        /** One message per {@link #recordLength(int)} bytes. */
        FIXED_LENGTH
    }

    /** Default backout threshold: a failing record is tried this many times. */
    public static final int DEFAULT_BACKOUT_THRESHOLD = 3;

    /** Default polling interval: {@value} ms. A file is taken after being unchanged over one interval. */
    public static final long DEFAULT_POLL_MILLIS = 1000;

    /** Properties field: the name of the file a record came from. */
    public static final String FILE_NAME = "FileName";

    /** Properties field: the record's number in its file, from 1. */
    public static final String FILE_RECORD = "FileRecord";

    /** The checkpoint queues' names start with this: the queue manager's own ({@code SYSTEM.*}, admins only). */
    public static final String CHECKPOINT_QUEUE_PREFIX = "SYSTEM.FLOW.CHECKPOINT.";

    private final Path directory;
    private String pattern = "*";
    private Records records = Records.WHOLE_FILE;
    private int recordLength;
    private Charset charset = StandardCharsets.UTF_8;
    private Path archive;
    private Path backout;
    private long pollMillis = DEFAULT_POLL_MILLIS;
    private RecordFormat recordFormat;

    private FileInputNode(Path directory) {
        super("FileInput", List.of(), List.of("out", "failure"));
        this.directory = directory;
    }

    /** Watches {@code directory}; done files go to its {@code archive} folder, failed ones to {@code backout}. */
    public static FileInputNode directory(String directory) {
        return new FileInputNode(Path.of(directory));
    }

    /** As {@link #directory(String)}. */
    public static FileInputNode directory(Path directory) {
        return new FileInputNode(directory);
    }

    /** Takes only files whose name matches this glob (default {@code *}), e.g. {@code *.csv}. */
    public FileInputNode pattern(String glob) {
        this.pattern = glob;
        return this;
    }

    /** One message per line, decoded from UTF-8 (or {@link #charset(Charset)}). */
    public FileInputNode lines() {
        this.records = Records.LINES;
        return this;
    }

    /** One message per {@code length} bytes; a shorter last record fails its file. */
    public FileInputNode recordLength(int length) {
        this.records = Records.FIXED_LENGTH;
        this.recordLength = length;
        return this;
    }

    /** The whole file as one message (the default). */
    public FileInputNode wholeFile() {
        this.records = Records.WHOLE_FILE;
        return this;
    }

    /**
     * One message per record of {@code format}, in the RECORDS domain: a CSV record per line (a header line, if the
     * format has one, names the columns of every record of its file and is no message itself), or a fixed-length
     * record per {@code recordLength} bytes (per line when the model's records end with a line end). A line longer
     * than the format's {@code maxRecordLength} is not read into memory: it fails as a record of its own. Call
     * {@link #wholeFile()} after it to have the whole file as one message of records instead.
     */
    public FileInputNode records(RecordFormat format) {
        this.recordFormat = format;
        domain(Domain.RECORDS);
        this.charset = format.charset();
        if (format instanceof FixedFormat fixed && fixed.recordSeparator().isEmpty()) {
            this.records = Records.FIXED_LENGTH;
            this.recordLength = fixed.recordLength();
        } else {
            this.records = Records.LINES;
        }
        return this;
    }

    /** The records' format in the RECORDS domain, or null. */
    public RecordFormat recordFormat() {
        return recordFormat;
    }

    /** Whether each file's first line is a CSV header naming the columns of the records after it. */
    public boolean headerLine() {
        return records == Records.LINES && recordFormat instanceof CsvFormat csv && csv.hasHeader();
    }

    /** The character set of {@link #lines()} (default UTF-8). */
    public FileInputNode charset(Charset charset) {
        this.charset = charset;
        return this;
    }

    /** Where done files go (default: {@code archive} in the watched directory). */
    public FileInputNode archive(Path folder) {
        this.archive = folder;
        return this;
    }

    /** Where failed files go, with their reason files (default: {@code backout} in the watched directory). */
    public FileInputNode backout(Path folder) {
        this.backout = folder;
        return this;
    }

    /** How often the directory is looked at (default 1 s); a file must be unchanged over one interval. */
    public FileInputNode pollInterval(Duration interval) {
        this.pollMillis = interval.toMillis();
        return this;
    }

    /** The watched directory. */
    public Path directory() {
        return directory;
    }

    /** The glob file names must match. */
    public String pattern() {
        return pattern;
    }

    /** How files are cut into messages. */
    public Records records() {
        return records;
    }

    /** The record length of {@link Records#FIXED_LENGTH}. */
    public int recordLength() {
        return recordLength;
    }

    /** The character set of lines. */
    public Charset charset() {
        return charset;
    }

    /** Where done files go. */
    public Path archiveFolder() {
        return archive != null ? archive : directory.resolve("archive");
    }

    /** Where failed files go. */
    public Path backoutFolder() {
        return backout != null ? backout : directory.resolve("backout");
    }

    /** The polling interval in ms. */
    public long pollMillis() {
        return pollMillis;
    }

    @Override
    public List<Path> directories() {
        return List.of(directory, archiveFolder(), backoutFolder());
    }

    /**
     * The queue that holds this node's checkpoint in flow {@code flow}: {@value #CHECKPOINT_QUEUE_PREFIX}, the flow's
     * name, {@code .} and the node's name, each name with {@code .}, {@code /}, {@code %}, spaces, controls and
     * non-ASCII characters written {@code %XX} (their UTF-8 bytes in hex), so that no two flows' nodes share one.
     */
    public String checkpointQueue(String flow) {
        return CHECKPOINT_QUEUE_PREFIX + escape(flow) + "." + escape(name());
    }

    private static String escape(String name) {
        StringBuilder out = new StringBuilder(name.length());
        for (byte b : name.getBytes(StandardCharsets.UTF_8)) {
            if (b == '.' || b == '/' || b == '%' || b <= ' ' || b > '~') {
                out.append('%').append(String.format("%02X", b & 0xff));
            } else {
                out.append((char) b);
            }
        }
        return out.toString();
    }

    @Override
    public Map<String, Object> properties() {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("directory", directory);
        p.put("pattern", pattern);
        p.put("records", records == Records.FIXED_LENGTH ? "FIXED_LENGTH " + recordLength : records);
        p.put("domain", domain());
        if (recordFormat != null) {
            p.put("format", recordFormat);
        }
        p.put("transactionMode", transactionMode());
        p.put("backoutThreshold", backoutThreshold());
        p.put("archive", archiveFolder());
        p.put("backout", backoutFolder());
        p.put("pollMillis", pollMillis);
        return p;
    }

    @Override
    protected void validate() {
        validateReading();
        if (directory == null || pattern == null || pattern.isBlank() || charset == null) {
            throw new FlowValidationException("a FileInput node needs a directory, a pattern and a charset.");
        }
        TransactionMode transactionMode = transactionMode();
        if (transactionMode != TransactionMode.YES && transactionMode != TransactionMode.NO) {
            throw new FlowValidationException("a FileInput node's transactionMode is YES or NO (a file record has no "
                    + "persistence to follow), was " + transactionMode + ".");
        }
        if (records == Records.FIXED_LENGTH && recordLength < 1) {
            throw new FlowValidationException("recordLength must be at least 1, was " + recordLength + ".");
        }
        Domain domain = domain();
        if ((domain == Domain.RECORDS) != (recordFormat != null)) {
            throw new FlowValidationException(recordFormat == null
                    ? "a FileInput node in the RECORDS domain needs the records' layout: records(format)."
                    : "a FileInput node lays records out in " + recordFormat + " only in the RECORDS domain, but its "
                    + "domain is " + domain + ": set records(format) last.");
        }
        if (recordFormat instanceof FixedFormat fixed && records == Records.LINES
                && !fixed.recordSeparator().equals("\n") && !fixed.recordSeparator().equals("\r\n")) {
            throw new FlowValidationException("a FileInput node reads fixed-length records one after another or one "
                    + "per line; the model's record separator " + fixed.recordSeparator().codePoints()
                    .mapToObj(c -> String.format("U+%04X", c)).toList() + " is neither.");
        }
        if (pollMillis < 1) {
            throw new FlowValidationException("pollInterval must be at least 1 ms, was " + pollMillis + " ms.");
        }
        if (archiveFolder().equals(backoutFolder()) || directory.equals(archiveFolder())
                || directory.equals(backoutFolder())) {
            throw new FlowValidationException("the watched directory, the archive and the backout folders must be "
                    + "three different folders: " + directories() + ".");
        }
    }

    /** Propagates a record the runtime read to {@code out}. */
    @Override
    public void receive(String terminal, MessageAssembly assembly, FlowContext context) throws Exception {
        context.propagate(this, terminal, assembly);
    }
}
