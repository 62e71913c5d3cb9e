package org.wharfmq.perf.flow;

import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.FlowFactory;
import org.wharfmq.flow.FlowMessage;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.TransactionMode;
import org.wharfmq.flow.node.FileInputNode;
import org.wharfmq.flow.node.OutputNode;
import org.wharfmq.perf.workload.TempFiles;

import javax.jms.DeliveryMode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.function.ToIntFunction;

/**
 * F-FILE: FileInput (a whole file is one message, a BLOB) → output queue (seed 002, "Reading Whole Files and Writing
 * them as MQ Messages"). The harness's file feeders write the files into the watched folder and take the outputs from
 * {@value #OUTPUT_QUEUE}; a small compute node between the two turns the file's name into the feeder's correlation id
 * and the file's number ({@link #fileName}), so that each feeder finds its own outputs and the harness can count
 * every file once. The folder is polled every {@value #POLL_MILLIS} ms: the feeders keep it topped up, so the node
 * finds a batch of files at each poll and the rate is the node's, not the polling interval's.
 *
 * <p>Non-persistent runs read the files without a transaction and send non-persistent messages, as the seed's
 * non-persistent rows did; persistent runs (F-PERSIST) commit each file's message in a transaction of its own and
 * keep it persistent (the node's default).
 */
public final class FileFlow implements FlowFactory {

    /** The flow's name. */
    public static final String NAME = "F-FILE";
    /** Where the feeders take the outputs. */
    public static final String OUTPUT_QUEUE = "F.FILE.OUT";
    /** The files the flow takes: {@code KEY~NUMBER.msg}. */
    public static final String SUFFIX = ".msg";
    /** The user property carrying the file's number, for the feeder's exactly-once ledger. */
    public static final String NUMBER = "perfFileNumber";
    /** How often the node looks at its folder. */
    static final long POLL_MILLIS = 10;
    private static final char SEPARATOR = '~';

    private final Path directory;
    private final boolean persistent;

    /**
     * @param directory  the folder the node watches (its archive and backout folders go inside it)
     * @param persistent whether the run's messages are persistent
     */
    public FileFlow(Path directory, boolean persistent) {
        this.directory = directory;
        this.persistent = persistent;
    }

    /** The folder F-FILE watches in a server whose data directory is {@code data}. */
    public static Path directory(Path data) {
        return data.resolve("files").resolve("in");
    }

    /** The name of a feeder's file: its correlation key, {@code ~}, its number (from 0), {@value #SUFFIX}. */
    public static String fileName(String key, long number) {
        return key + SEPARATOR + number + SUFFIX;
    }

    @Override
    public FlowDefinition create() {
        return FlowDefinition.builder(NAME)
                .node("in", FileInputNode.directory(directory).pattern("*" + SUFFIX)
                        .pollInterval(Duration.ofMillis(POLL_MILLIS))
                        .transactionMode(persistent ? TransactionMode.YES : TransactionMode.NO))
                .node("tag", new ComputeFunctionNode(persistent ? FileFlow::tag : FileFlow::tagNonPersistent))
                .node("out", OutputNode.queue(OUTPUT_QUEUE))
                .wire("in", "out", "tag")
                .wire("tag", "out", "out")
                .build();
    }

    /** The file's name as the feeder's correlation id and the file's number, on a copy of the (read-only) input. */
    static MessageAssembly tag(MessageAssembly input) {
        String name = input.message().properties().getString(FileInputNode.FILE_NAME);
        int separator = name.lastIndexOf(SEPARATOR);
        if (separator < 0 || !name.endsWith(SUFFIX)) {
            throw new IllegalArgumentException("F-FILE takes files named KEY~NUMBER" + SUFFIX + ", not " + name);
        }
        MessageAssembly out = input.copy();
        out.message().setCorrelationId(name.substring(0, separator));
        out.message().setUserProperty(NUMBER, Long.parseLong(name, separator + 1, name.length() - SUFFIX.length(), 10));
        return out;
    }

    private static MessageAssembly tagNonPersistent(MessageAssembly input) {
        MessageAssembly out = tag(input);
        out.message().headers().set(FlowMessage.JMS_DELIVERY_MODE, DeliveryMode.NON_PERSISTENT);
        return out;
    }

    /**
     * The ceiling, a file copy doing the file-system work of the feeders and the node: the body written to a file
     * under a {@code .part} name and renamed into the folder (as a feeder delivers it), read back whole and moved to
     * an archive folder, and that move forced to disk by a sync of the folder, as the node says a file is done: one
     * directory sync per file, the node's own sync (a sync of the file's data instead is another kind of disk work,
     * whose cost goes its own way on a shared disk). On this thread, in a temporary folder deleted when the loop is
     * closed. The archive keeps the last {@value #ARCHIVED} files (one more delete per file): a loop that runs for half
     * a minute makes hundreds of thousands of files, whose deletion took minutes after the measurement on the busy
     * machine.
     */
    static final class Loop implements ToIntFunction<byte[]>, AutoCloseable {
        private static final int ARCHIVED = 1000;
        private final Path directory;
        private final Path archive;
        private final Path[] archived = new Path[ARCHIVED];
        private long number;

        Loop() {
            try {
                directory = Files.createTempDirectory("wharf-perf-ceiling-files");
                archive = Files.createDirectory(directory.resolve("archive"));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public int applyAsInt(byte[] body) {
            String name = fileName("ceiling", number++);
            try {
                Path part = Files.write(directory.resolve(name + ".part"), body, StandardOpenOption.CREATE_NEW);
                Path file = Files.move(part, directory.resolve(name), StandardCopyOption.ATOMIC_MOVE);
                int read = Files.readAllBytes(file).length;
                int slot = (int) (number % ARCHIVED);
                if (archived[slot] != null) {
                    Files.delete(archived[slot]);
                }
                archived[slot] = Files.move(file, archive.resolve(name), StandardCopyOption.ATOMIC_MOVE);
                try (FileChannel folder = FileChannel.open(directory, StandardOpenOption.READ)) {
                    folder.force(true);
                }
                return read;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public void close() {
            TempFiles.deleteTree(directory);
        }
    }
}
