package org.wharfmq.perf.flow;

import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.FlowFactory;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.TransactionMode;
import org.wharfmq.flow.node.FileOutputNode;
import org.wharfmq.flow.node.InputNode;
import org.wharfmq.flow.node.OutputNode;
import org.wharfmq.perf.workload.TempFiles;

import javax.jms.BytesMessage;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.Session;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.stream.Stream;

/**
 * F-FILE-OUT: input → FileOutput appending each message as a record, a line, to a large file → an empty message to
 * the output queue (seed 002, "Writing MQ Messages as Delimited Records in Large Files": MQ Input, File Output with
 * the line end as delimiter, then an empty message to an MQ Output node, drained to count the records written). A
 * file is finished at {@value #MAX_FILE_BYTES} bytes, as the seed's were at 1 GB. The sale message holds no line end,
 * so the records written are the line ends in the folder ({@link #records}), which the runner checks against the
 * invocations.
 */
public final class FileOutputFlow implements FlowFactory {

    /** The flow's name. */
    public static final String NAME = "F-FILE-OUT";
    /** Where the clients put the input. */
    public static final String INPUT_QUEUE = "F.FILEOUT.IN";
    /** Where the clients take the output. */
    public static final String OUTPUT_QUEUE = "F.FILEOUT.OUT";
    /** A file is finished when it reaches this size: 1 GiB, as the seed's. */
    static final long MAX_FILE_BYTES = 1L << 30;
    private static final byte[] NO_PAYLOAD = new byte[0];

    private final Path directory;

    /** @param directory the folder the FileOutput node writes its files into */
    public FileOutputFlow(Path directory) {
        this.directory = directory;
    }

    /** The folder F-FILE-OUT writes to in a server whose data directory is {@code data}. */
    public static Path directory(Path data) {
        return data.resolve("files").resolve("out");
    }

    @Override
    public FlowDefinition create() {
        return FlowDefinition.builder(NAME)
                .node("in", InputNode.queue(INPUT_QUEUE).transactionMode(TransactionMode.AUTOMATIC))
                .node("file", FileOutputNode.directory(directory).name("records-{seq}.xml").maxBytes(MAX_FILE_BYTES))
                .node("empty", new ComputeFunctionNode(FileOutputFlow::emptied))
                .node("out", OutputNode.queue(OUTPUT_QUEUE))
                .wire("in", "out", "file")
                .wire("file", "out", "empty")
                .wire("empty", "out", "out")
                .build();
    }

    /** The seed's second compute node: the message goes on with its headers and no body. */
    static MessageAssembly emptied(MessageAssembly input) {
        MessageAssembly out = input.copy();
        out.message().setBody(NO_PAYLOAD);
        return out;
    }

    /** The records in the folder's files, finished or not: their line ends. */
    public static long records(Path folder) throws IOException {
        long records = 0;
        List<Path> files;
        try (Stream<Path> listed = Files.list(folder)) {
            files = listed.filter(Files::isRegularFile).toList();
        }
        byte[] buffer = new byte[1 << 16];
        for (Path file : files) {
            try (InputStream in = Files.newInputStream(file)) {
                for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                    for (int i = 0; i < n; i++) {
                        if (buffer[i] == '\n') {
                            records++;
                        }
                    }
                }
            }
        }
        return records;
    }

    /**
     * The ceiling, a plain JMS loop with no flow engine ({@link JmsLoop}) whose flow part appends each message's body
     * and a line end to a file ({@link Appender}) and sends an empty message on, as the flow does. Persistent: the
     * receive, the send and the loop's commit are its transaction, as the flow's, and the append is forced to disk
     * before the commit, as the FileOutput node forces a transactional invocation's record.
     *
     * @param persistent whether the messages are persistent and the flow's part transacted
     */
    static JmsLoop loop(boolean persistent) {
        return new JmsLoop(INPUT_QUEUE, OUTPUT_QUEUE, persistent, new Appender(persistent));
    }

    /**
     * The loop's file work: the body and a line end appended to a file, the file finished at the same size as the
     * node's (forced to disk and renamed from its {@code .part} name), in a temporary folder. A finished file stays
     * until the loop closes, as the flow's stay in the server's data directory until its run ends: deleting it would
     * hand its page cache back for the next file's writes, which then skip the kernel's work of taking new pages into
     * the cache (on this project's virtual machines 10-25 ms of CPU per 4 MB against 1-3 ms reusing freed pages:
     * docs/performance-log.md, session 36), work the node pays for every record. Then an empty message goes on, as the
     * flow's second compute node sends it. The body is read into one buffer kept for the loop. Persistent, each append
     * is forced to disk.
     */
    static final class Appender implements JmsLoop.FlowWork {
        private final Path directory;
        private final boolean forced;
        private final ByteBuffer lineEnd = ByteBuffer.wrap(new byte[] {'\n'});
        private byte[] body = new byte[0];
        private FileChannel channel;
        private Path part;
        private long size;
        private long files;

        Appender(boolean forced) {
            this.forced = forced;
            try {
                directory = Files.createTempDirectory("wharf-perf-ceiling-file-out");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public Message apply(BytesMessage read, Session flowSession) throws JMSException {
            int length = (int) read.getBodyLength();
            if (body.length < length) {
                body = new byte[length];
            }
            read.readBytes(body, length);
            try {
                append(length);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return flowSession.createBytesMessage();
        }

        private void append(int length) throws IOException {
            if (channel == null) {
                part = directory.resolve("records-" + ++files + ".xml.part");
                channel = FileChannel.open(part, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
                size = 0;
            }
            ByteBuffer[] record = {ByteBuffer.wrap(body, 0, length), lineEnd.clear()};
            while (record[1].hasRemaining()) {
                channel.write(record);
            }
            size += length + 1;
            if (size >= MAX_FILE_BYTES) {
                finish();
            } else if (forced) {
                channel.force(false);
            }
        }

        private void finish() throws IOException {
            channel.force(true);
            channel.close();
            channel = null;
            String name = part.getFileName().toString();
            Files.move(part, part.resolveSibling(name.substring(0, name.length() - ".part".length())),
                    StandardCopyOption.ATOMIC_MOVE);
        }

        @Override
        public void close() throws IOException {
            try {
                if (channel != null) {
                    channel.close();
                }
            } finally {
                TempFiles.deleteTree(directory);
            }
        }
    }
}
