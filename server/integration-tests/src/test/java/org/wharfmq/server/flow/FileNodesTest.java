package org.wharfmq.server.flow;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.FlowFactory;
import org.wharfmq.flow.FlowMessage;
import org.wharfmq.flow.JavaComputeNode;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.node.FileInputNode;
import org.wharfmq.flow.node.FileOutputNode;
import org.wharfmq.flow.node.InputNode;
import org.wharfmq.flow.node.OutputNode;
import org.wharfmq.flow.runtime.RunningFlow;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.it.Receive;

import javax.jms.Connection;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.QueueBrowser;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchService;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * FileInput and FileOutput nodes in flows deployed on a real server's flow host, over real directories: records
 * become messages in order, done files are archived and failed ones backed out, a restart in the middle of a file
 * neither redoes nor loses a line, output files appear only complete, and directories outside the flow host's
 * {@code fileDirectories} are refused.
 */
class FileNodesTest {

    /** How long what the test waits for may take: it bounds a hang only (a loaded machine is slow). */
    private static final long WAIT_MILLIS = 30_000;
    private static final String CHECKPOINTS = FileInputNode.CHECKPOINT_QUEUE_PREFIX;

    @TempDir
    Path root;
    private Path in;
    private Path out;
    private TestServer testServer;
    private FlowHost flowHost;
    private Connection connection;
    private Session session;

    @BeforeEach
    void start() throws Exception {
        in = Files.createDirectories(root.resolve("files/in"));
        out = Files.createDirectories(root.resolve("files/out"));
        startServer(List.of(root.resolve("files")));
    }

    private void startServer(List<Path> fileDirectories) throws Exception {
        startServer(fileDirectories, UnaryOperator.identity());
    }

    private void startServer(List<Path> fileDirectories, UnaryOperator<ServerConfig.Builder> customizer)
            throws Exception {
        FlowHostSettings settings = FlowHostSettings.defaults().withFileDirectories(fileDirectories);
        testServer = TestServer.start(customizer, config -> {
            flowHost = new FlowHost(settings); // a restart makes a new flow host, as a restarted server does
            return WharfServer.builder(config).plugins(flowHost).start();
        });
        connect();
    }

    private void connect() throws Exception {
        connection = new WharfConnectionFactory(testServer.server().vmUrl()).createConnection();
        connection.start();
        session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
    }

    @AfterEach
    void stop() throws Exception {
        connection.close();
        testServer.close();
    }

    /** A flow from the server's class path, as an embedding application deploys one. */
    private DeployedFlow deploy(FlowFactory factory) throws Exception {
        return flowHost.deploy(factory, 1);
    }

    private FileInputNode lineInput() {
        return FileInputNode.directory(in).lines().pollInterval(Duration.ofMillis(20));
    }

    /** Writes a file of {@code lines} lines ("line 1"...) under a .part name, then renames it into the directory. */
    private static Path writeLines(Path directory, String name, int lines) throws IOException {
        String text = IntStream.rangeClosed(1, lines).mapToObj(i -> "line " + i + "\n").collect(Collectors.joining());
        Path part = Files.writeString(directory.resolve(name + ".part"), text);
        return Files.move(part, directory.resolve(name), StandardCopyOption.ATOMIC_MOVE);
    }

    private List<String> texts(MessageConsumer consumer, int count) throws Exception {
        List<String> texts = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Message message = consumer.receive(WAIT_MILLIS);
            assertNotNull(message, "only " + i + " of " + count + " messages arrived: " + texts);
            texts.add(((TextMessage) message).getText());
        }
        return texts;
    }

    private static List<String> lines(int from, int to) {
        return IntStream.rangeClosed(from, to).mapToObj(i -> "line " + i).toList();
    }

    /** Waits until {@code file} exists, woken by the file system's events for its directory. */
    static void awaitFile(Path file) throws Exception {
        awaitFile(file, WAIT_MILLIS);
    }

    /** Waits up to {@code millis} until {@code file} exists, woken by the file system's events for its directory. */
    static void awaitFile(Path file, long millis) throws Exception {
        await(file, Files::exists, " did not appear", millis);
    }

    /**
     * Waits up to {@code millis} until {@code file} holds {@code text}, woken by the file system's events for its
     * directory.
     */
    static void awaitContent(Path file, String text, long millis) throws Exception {
        await(file, f -> {
            try {
                return Files.exists(f) && Files.readString(f).contains(text);
            } catch (IOException replacedMeanwhile) {
                return false;
            }
        }, " did not come to hold " + text, millis);
    }

    private static void await(Path file, Predicate<Path> condition, String failure, long millis)
            throws Exception {
        try (WatchService watcher = FileSystems.getDefault().newWatchService()) {
            file.getParent().register(watcher, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_MODIFY,
                    StandardWatchEventKinds.ENTRY_DELETE);
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
            while (!condition.test(file)) {
                long left = deadline - System.nanoTime();
                assertTrue(left > 0, file + failure + " within " + millis + " ms");
                var key = watcher.poll(Math.min(TimeUnit.NANOSECONDS.toMillis(left), 200), TimeUnit.MILLISECONDS);
                if (key != null) {
                    key.pollEvents();
                    key.reset();
                }
            }
        }
    }

    /**
     * The text of the checkpoint of node "in" of {@code flow}, browsed on its queue, or null when it has none; while
     * the flow runs, its reader holds the checkpoint (a browser does not see it): {@link #awaitNoCheckpoint}.
     */
    private String checkpoint(String flow) throws Exception {
        try (QueueBrowser browser = session.createBrowser(session.createQueue(CHECKPOINTS + flow + ".in"))) {
            Enumeration<?> messages = browser.getEnumeration();
            String text = messages.hasMoreElements() ? ((TextMessage) messages.nextElement()).getText() : null;
            assertFalse(messages.hasMoreElements(), "more than one checkpoint");
            return text;
        }
    }

    /**
     * Waits until the checkpoint of node "in" of {@code flow} is taken off its queue (the file is done): its depth,
     * which counts the message the reader holds, is 0.
     */
    private void awaitNoCheckpoint(String flow) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS);
        String queue = CHECKPOINTS + flow + ".in";
        long depth;
        while ((depth = testServer.server().management().queue(queue).depth()) != 0) {
            assertTrue(System.nanoTime() < deadline, queue + " still holds " + depth + " message(s)");
            Thread.onSpinWait();
        }
    }

    /**
     * A checkpoint file of a FileInput node from before checkpoints were messages is taken over once: the file goes
     * on after the records it says are done, and the checkpoint file is deleted.
     */
    @Test
    void aCheckpointFileFromBeforeIsTakenOverOnceAndTheFileGoesOnAfterIt() throws Exception {
        Path file = writeLines(in, "orders.txt", 5);
        Path legacy = in.resolve(".wharf-legacy-in.checkpoint");
        Files.writeString(legacy, "file=orders.txt\nsize=" + Files.size(file) + "\nmodified="
                + Files.getLastModifiedTime(file).toMillis() + "\nrecords=2\noffset="
                + "line 1\nline 2\n".length() + "\nfailed=0\n");
        deploy(() -> FlowDefinition.builder("legacy")
                .node("in", lineInput())
                .node("out", OutputNode.queue("LEGACY.OUT"))
                .wire("in", "out", "out")
                .build());
        try (MessageConsumer consumer = session.createConsumer(session.createQueue("LEGACY.OUT"))) {
            assertEquals(lines(3, 5), texts(consumer, 3));
            awaitFile(in.resolve("archive/orders.txt"));
            Receive.nothingMore(consumer);
        }
        assertFalse(Files.exists(legacy), "the checkpoint file was left behind");
        awaitNoCheckpoint("legacy");
    }

    /**
     * In a transactional invocation a FileOutput node's record is forced to disk before the message's commit: when
     * the output of the n-th message is visible, the node has forced at least n records, though no file is finished.
     * With sync FINISH it forces none until a file is finished.
     */
    @Test
    void aRecordIsForcedToDiskBeforeItsMessageCommits() throws Exception {
        FileOutputNode forcing = FileOutputNode.directory(out).name("forced-{seq}.txt");
        FileOutputNode lazy = FileOutputNode.directory(out).name("lazy-{seq}.txt").sync(FileOutputNode.Sync.FINISH);
        deploy(() -> FlowDefinition.builder("forced")
                .node("in", InputNode.queue("FORCED.IN"))
                .node("file", forcing)
                .node("lazy", lazy)
                .node("done", OutputNode.queue("FORCED.DONE"))
                .wire("in", "out", "file")
                .wire("file", "out", "lazy")
                .wire("lazy", "out", "done")
                .build());
        try (MessageProducer producer = session.createProducer(session.createQueue("FORCED.IN"));
             MessageConsumer done = session.createConsumer(session.createQueue("FORCED.DONE"))) {
            for (int i = 1; i <= 20; i++) {
                producer.send(session.createTextMessage("line " + i));
                assertNotNull(done.receive(WAIT_MILLIS), "message " + i);
                assertTrue(forcing.durableRecords() >= i, "message " + i + " committed with "
                        + forcing.durableRecords() + " records forced");
            }
        }
        assertEquals(0, lazy.durableRecords(), "sync FINISH forced a record before its file was finished");
        assertEquals(List.of("forced-000001.txt.part", "lazy-000001.txt.part"), names(out));
        assertEquals(lines(1, 20), Files.readAllLines(out.resolve("forced-000001.txt.part")));
    }

    @Test
    void aFileWhoseMoveToTheArchiveFailsIsFinishedAtALaterPollWithNoRecordAgain() throws Exception {
        Path archive = root.resolve("files/done"); // outside the watched folder: the file put in its place is not input
        deploy(() -> FlowDefinition.builder("moving")
                .node("in", lineInput().archive(archive))
                .node("out", OutputNode.queue("MOVING.OUT"))
                .wire("in", "out", "out")
                .build());
        Files.delete(archive); // made at deploy: a file in its place makes the move fail
        Files.writeString(archive, "not a folder");
        writeLines(in, "orders.txt", 3);
        try (MessageConsumer consumer = session.createConsumer(session.createQueue("MOVING.OUT"))) {
            assertEquals(lines(1, 3), texts(consumer, 3));
            // the last line's checkpoint, committed with it, says the file is done: only its move is left
            assertTrue(Files.exists(in.resolve("orders.txt")));
            Files.delete(archive);
            Files.createDirectory(archive);
            awaitFile(archive.resolve("orders.txt"));
            awaitNoCheckpoint("moving");
            Receive.nothingMore(consumer); // the last line not again
        }
    }

    /**
     * Whoever delivers files may replace the archive folder in the watched directory by a symbolic link once the flow
     * runs: the server moves no file (and writes no reason) through it, so the files it delivers cannot be put in a
     * directory outside fileDirectories (the server's own, another account's). The file stays, its records done once;
     * with a folder in the link's place it is archived with no record again.
     */
    @Test
    void anArchiveFolderReplacedByALinkIsNotFollowedAndTheFileWaitsWithNoRecordAgain() throws Exception {
        Path outside = Files.createDirectories(root.resolve("outside"));
        DeployedFlow flow = deploy(() -> FlowDefinition.builder("linked")
                .node("in", lineInput())
                .node("out", OutputNode.queue("LINKED.OUT"))
                .wire("in", "out", "out")
                .build());
        Path archive = in.resolve("archive"); // made at deploy, inside the watched directory
        Files.delete(archive);
        Files.createSymbolicLink(archive, outside);
        writeLines(in, "authorized_keys", 2);
        try (MessageConsumer consumer = session.createConsumer(session.createQueue("LINKED.OUT"))) {
            assertEquals(lines(1, 2), texts(consumer, 2));
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS);
            while (flow.running().statistics().reconnects() == 0) { // the refused move: the reader tries again later
                assertTrue(System.nanoTime() < deadline, "the move through the link was not refused");
                Thread.onSpinWait();
            }
            assertEquals(List.of(), names(outside), "a file moved through the link");
            assertTrue(Files.exists(in.resolve("authorized_keys")));

            Files.delete(archive);
            Files.createDirectory(archive);
            awaitFile(archive.resolve("authorized_keys"));
            awaitNoCheckpoint("linked");
            Receive.nothingMore(consumer); // no line again
        }
        assertEquals(List.of(), names(outside));
    }

    @Test
    void aFileOfLinesGivesOneMessagePerLineInOrderAndIsArchived() throws Exception {
        int n = 50;
        deploy(() -> FlowDefinition.builder("lines")
                .node("in", lineInput())
                .node("out", OutputNode.queue("LINES.OUT"))
                .wire("in", "out", "out")
                .build());
        writeLines(in, "orders.txt", n);
        try (MessageConsumer consumer = session.createConsumer(session.createQueue("LINES.OUT"))) {
            assertEquals(lines(1, n), texts(consumer, n));
            awaitFile(in.resolve("archive/orders.txt"));
            Receive.nothingMore(consumer);
        }
        assertFalse(Files.exists(in.resolve("orders.txt")));
        assertEquals(lines(1, n), Files.readAllLines(in.resolve("archive/orders.txt")));
        // the checkpoint goes once the file is archived (in that order: a crash between them redoes nothing)
        awaitNoCheckpoint("lines");
    }

    @Test
    void aFileStillBeingWrittenOrNamedPartIsNotTaken() throws Exception {
        deploy(() -> FlowDefinition.builder("whole")
                .node("in", FileInputNode.directory(in).pattern("*.xml*").pollInterval(Duration.ofMillis(20)))
                .node("out", OutputNode.queue("WHOLE.OUT"))
                .wire("in", "out", "out")
                .build());
        Files.writeString(in.resolve("b.xml.part"), "<b/>");
        Files.writeString(in.resolve(".c.xml"), "<c/>");
        Files.writeString(in.resolve("ignored.txt"), "not matching");
        Files.writeString(in.resolve("a.xml"), "<a/>");
        try (MessageConsumer consumer = session.createConsumer(session.createQueue("WHOLE.OUT"))) {
            Message whole = consumer.receive(WAIT_MILLIS);
            assertNotNull(whole);
            javax.jms.BytesMessage bytes = (javax.jms.BytesMessage) whole;
            byte[] body = new byte[(int) bytes.getBodyLength()];
            bytes.readBytes(body);
            assertEquals("<a/>", new String(body));
            awaitFile(in.resolve("archive/a.xml"));
            Receive.nothingMore(consumer);
        }
        assertTrue(Files.exists(in.resolve("b.xml.part")));
        assertTrue(Files.exists(in.resolve(".c.xml")));
        assertTrue(Files.exists(in.resolve("ignored.txt")));
    }

    /**
     * A FIFO of a name the node takes, put in the watched directory, is never opened (a reader would wait for a
     * writer for ever, the node's thread stuck): it goes to the backout folder with its reason, and the files after it
     * are read. (Before, it stayed in the directory, skipped at every poll without a word; put in place of a file the
     * node had seen, it was opened.) Linux and macOS: made with mkfifo.
     */
    @Test
    void aFifoInTheDirectoryIsNeverOpenedButBackedOutAndTheFilesAfterItAreRead() throws Exception {
        Path fifo = in.resolve("a.txt");
        Process mkfifo;
        try {
            mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).redirectErrorStream(true).start();
        } catch (IOException none) {
            mkfifo = null;
        }
        org.junit.jupiter.api.Assumptions.assumeTrue(mkfifo != null && mkfifo.waitFor() == 0,
                "no mkfifo on this platform");
        deploy(() -> FlowDefinition.builder("fifo")
                .node("in", lineInput())
                .node("out", OutputNode.queue("FIFO.OUT"))
                .wire("in", "out", "out")
                .build());
        writeLines(in, "b.txt", 2);
        try (MessageConsumer consumer = session.createConsumer(session.createQueue("FIFO.OUT"))) {
            assertEquals(lines(1, 2), texts(consumer, 2));
            awaitFile(in.resolve("archive/b.txt"));
        }
        awaitContent(in.resolve("backout/a.txt.reason"), "could not process " + fifo.toAbsolutePath()
                + ": it is a FIFO (named pipe), not a regular file, so it was not opened", WAIT_MILLIS);
        assertTrue(Files.exists(in.resolve("backout/a.txt")), "the FIFO itself, moved");
        assertFalse(Files.exists(fifo, LinkOption.NOFOLLOW_LINKS));
    }

    @Test
    void fixedLengthRecordsAreMessagesAndAShortLastRecordSendsTheFileToBackout() throws Exception {
        deploy(() -> FlowDefinition.builder("fixed")
                .node("in", FileInputNode.directory(in).recordLength(4).pollInterval(Duration.ofMillis(20)))
                .node("out", OutputNode.queue("FIXED.OUT"))
                .wire("in", "out", "out")
                .build());
        Files.move(Files.writeString(in.resolve("records.dat.part"), "AAAABBBBCC"), in.resolve("records.dat"),
                StandardCopyOption.ATOMIC_MOVE);
        try (MessageConsumer consumer = session.createConsumer(session.createQueue("FIXED.OUT"))) {
            for (String expected : List.of("AAAA", "BBBB")) {
                javax.jms.BytesMessage record = (javax.jms.BytesMessage) consumer.receive(WAIT_MILLIS);
                assertNotNull(record);
                byte[] body = new byte[(int) record.getBodyLength()];
                record.readBytes(body);
                assertEquals(expected, new String(body));
            }
            awaitFile(in.resolve("backout/records.dat.reason"));
            Receive.nothingMore(consumer);
        }
        String reason = Files.readString(in.resolve("backout/records.dat.reason"));
        assertTrue(reason.contains("record 3: the last record has 2 bytes, not 4"), reason);
    }

    /** Fails on the record whose text is {@code line 3}, every time. */
    public static final class FailOnLineThree extends JavaComputeNode {
        @Override
        public void evaluate(MessageAssembly assembly) throws Exception {
            if (assembly.message().bodyText().equals("line 3")) {
                throw new IllegalStateException("boom on " + assembly.message().bodyText());
            }
            propagate("out", assembly);
        }
    }

    @Test
    void aFailingRecordTakesTheFailureTerminalAndItsFileEndsInBackout() throws Exception {
        deploy(() -> FlowDefinition.builder("failing")
                .node("in", lineInput().backoutThreshold(2))
                .node("compute", new FailOnLineThree())
                .node("out", OutputNode.queue("FAIL.OUT"))
                .node("failed", OutputNode.queue("FAIL.FAILED"))
                .wire("in", "out", "compute")
                .wire("compute", "out", "out")
                .wire("in", "failure", "failed")
                .build());
        writeLines(in, "batch.txt", 5);
        try (MessageConsumer outputs = session.createConsumer(session.createQueue("FAIL.OUT"));
             MessageConsumer failed = session.createConsumer(session.createQueue("FAIL.FAILED"))) {
            assertEquals(List.of("line 1", "line 2", "line 4", "line 5"), texts(outputs, 4));
            assertEquals(List.of("line 3"), texts(failed, 1));
            awaitFile(in.resolve("backout/batch.txt.reason"));
            Receive.nothingMore(outputs);
            Receive.nothingMore(failed);
        }
        assertTrue(Files.exists(in.resolve("backout/batch.txt")));
        assertFalse(Files.exists(in.resolve("archive/batch.txt")));
        assertTrue(Files.readString(in.resolve("backout/batch.txt.reason")).contains("1 record(s) failed"));
        assertEquals(2, flowHost.flow("failing").running().statistics().failures(), "line 3 tried backoutThreshold times");
    }

    /**
     * Whoever may drop files into a watched directory may drop one larger than the heap: a whole file or a line longer
     * than the longest message the server takes is not read into memory (it could not be sent anyway) nor tried, but
     * goes to the backout folder with the reason, and the node goes on with the next file.
     */
    @Test
    void aFileOrLineLongerThanTheServersLongestMessageIsNotReadButBackedOut() throws Exception {
        stop();
        int limit = 4096;
        startServer(List.of(root.resolve("files")), config -> config.maxMessageLength(limit));
        Path lines = Files.createDirectories(root.resolve("files/lines"));
        deploy(() -> FlowDefinition.builder("whole")
                .node("in", FileInputNode.directory(in).pollInterval(Duration.ofMillis(20)))
                .node("out", OutputNode.queue("WHOLE.OUT"))
                .wire("in", "out", "out")
                .build());
        deploy(() -> FlowDefinition.builder("lines")
                .node("in", FileInputNode.directory(lines).lines().pollInterval(Duration.ofMillis(20)))
                .node("out", OutputNode.queue("LINES.OUT"))
                .wire("in", "out", "out")
                .build());
        Files.write(in.resolve("a-big.dat"), new byte[limit + 1]);
        Files.writeString(in.resolve("b-small.dat"), "small");
        Files.writeString(lines.resolve("long.txt"), "first\n" + "x".repeat(limit + 1) + "\nafter\n");
        try (MessageConsumer whole = session.createConsumer(session.createQueue("WHOLE.OUT"));
             MessageConsumer line = session.createConsumer(session.createQueue("LINES.OUT"))) {
            Message small = whole.receive(WAIT_MILLIS);
            assertNotNull(small, "the node stopped at the large file");
            awaitFile(in.resolve("backout/a-big.dat.reason"));
            assertEquals(List.of("first"), texts(line, 1));
            awaitFile(lines.resolve("backout/long.txt.reason"));
            Receive.nothingMore(whole);
            Receive.nothingMore(line);
        }
        String reason = Files.readString(in.resolve("backout/a-big.dat.reason"));
        assertTrue(reason.contains("it is 4097 bytes, more than the longest message the server takes "
                + "(maxMessageLength, 4096 bytes), so it was not read"), reason);
        String lineReason = Files.readString(lines.resolve("backout/long.txt.reason"));
        assertTrue(lineReason.contains("record 2: a line longer than the longest message the server takes "
                + "(maxMessageLength, 4096 bytes)"), lineReason);
        assertEquals(0, flowHost.flow("whole").running().statistics().failures(), "the large file was tried");
        assertEquals(0, flowHost.flow("lines").running().statistics().failures(), "the long line was tried");
    }

    /**
     * ... and its reason, which names the record, why, and what to deliver again (the records before it are done), is
     * written as a file of its own, never through a link someone put in the backout folder.
     */
    @Test
    void withoutAFailureTerminalAFailingRecordStopsItsFileInBackoutWithTheReason() throws Exception {
        deploy(() -> FlowDefinition.builder("stopping")
                .node("in", lineInput().backoutThreshold(1))
                .node("compute", new FailOnLineThree())
                .node("out", OutputNode.queue("STOP.OUT"))
                .wire("in", "out", "compute")
                .wire("compute", "out", "out")
                .build());
        // whoever may drop files into the watched folder made a link where the reason is written aside first
        Path outside = Files.writeString(root.resolve("outside.txt"), "not the flow's");
        Files.createSymbolicLink(Files.createDirectories(in.resolve("backout")).resolve("batch.txt.reason.part"),
                outside);
        writeLines(in, "batch.txt", 5);
        try (MessageConsumer outputs = session.createConsumer(session.createQueue("STOP.OUT"))) {
            assertEquals(List.of("line 1", "line 2"), texts(outputs, 2));
            awaitFile(in.resolve("backout/batch.txt.reason"));
            Receive.nothingMore(outputs);
        }
        String reason = Files.readString(in.resolve("backout/batch.txt.reason"));
        assertTrue(reason.contains("record 3 failed and no failure terminal took it (records 1 to 2 were processed: "
                + "deliver record 3 and the records after it, corrected, in a new file):\n"),
                () -> "names the record, what was done and what to deliver again: " + reason);
        assertTrue(reason.contains("boom on line 3"), reason);
        assertTrue(Files.exists(in.resolve("backout/batch.txt")));
        assertEquals("not the flow's", Files.readString(outside), "the reason was written through the link");
    }

    /** Holds the record {@code line 100} until the test lets it go, so that the flow is stopped in mid-file. */
    public static final class Gate extends JavaComputeNode {
        static final CountDownLatch REACHED = new CountDownLatch(1);
        static final CountDownLatch RELEASE = new CountDownLatch(1);

        @Override
        public void evaluate(MessageAssembly assembly) throws Exception {
            if (assembly.message().bodyText().equals("line 100")) {
                REACHED.countDown();
                assertTrue(RELEASE.await(WAIT_MILLIS, TimeUnit.MILLISECONDS));
            }
            propagate("out", assembly);
        }
    }

    @Test
    void aServerStoppedInTheMiddleOfAFileGoesOnWhereItStoppedWithNoLineTwiceOrLost() throws Exception {
        int n = 200;
        FlowFactory factory = () -> FlowDefinition.builder("resume")
                .node("in", lineInput())
                .node("gate", new Gate())
                .node("out", OutputNode.queue("RESUME.OUT"))
                .wire("in", "out", "gate")
                .wire("gate", "out", "out")
                .build();
        deploy(factory);
        writeLines(in, "big.txt", n);
        assertTrue(Gate.REACHED.await(WAIT_MILLIS, TimeUnit.MILLISECONDS));
        RunningFlow running = flowHost.flow("resume").running();
        connection.close();
        Thread serverStop = new Thread(testServer::stop);
        serverStop.start();
        while (running.isRunning()) {
            Thread.onSpinWait(); // the stop has begun: the record held at the gate is the last before it
        }
        Gate.RELEASE.countDown();
        serverStop.join(WAIT_MILLIS);
        assertFalse(serverStop.isAlive());
        assertTrue(Files.exists(in.resolve("big.txt")), "the file was finished although the flow stopped in it");

        testServer.restart();
        connect();
        assertTrue(checkpoint("resume").contains("records=100\n"), checkpoint("resume")); // from the journal
        deploy(factory); // new node objects, on the new server's flow host
        try (MessageConsumer consumer = session.createConsumer(session.createQueue("RESUME.OUT"))) {
            assertEquals(lines(1, n), texts(consumer, n));
            awaitFile(in.resolve("archive/big.txt"));
            Receive.nothingMore(consumer);
        }
    }

    /** Holds every record until the test lets it go, so that the flow is stopped while its file's last one runs. */
    public static final class LastRecordGate extends JavaComputeNode {
        static final CountDownLatch REACHED = new CountDownLatch(1);
        static final CountDownLatch RELEASE = new CountDownLatch(1);

        @Override
        public void evaluate(MessageAssembly assembly) throws Exception {
            REACHED.countDown();
            assertTrue(RELEASE.await(WAIT_MILLIS, TimeUnit.MILLISECONDS));
            propagate("out", assembly);
        }
    }

    @Test
    void aFlowStoppedWhileItsFilesLastRecordRunsArchivesTheFileBeforeTheStopReturns() throws Exception {
        deploy(() -> FlowDefinition.builder("last")
                .node("in", FileInputNode.directory(in).pollInterval(Duration.ofMillis(20)))
                .node("gate", new LastRecordGate())
                .node("out", OutputNode.queue("LAST.OUT"))
                .wire("in", "out", "gate")
                .wire("gate", "out", "out")
                .build());
        Files.move(Files.writeString(in.resolve("whole.msg.part"), "whole"), in.resolve("whole.msg"),
                StandardCopyOption.ATOMIC_MOVE);
        assertTrue(LastRecordGate.REACHED.await(WAIT_MILLIS, TimeUnit.MILLISECONDS));
        RunningFlow running = flowHost.flow("last").running();
        Thread undeploy = new Thread(() -> flowHost.undeploy("last"));
        undeploy.start();
        while (running.isRunning()) {
            Thread.onSpinWait(); // the stop has begun: the record held at the gate commits after it
        }
        LastRecordGate.RELEASE.countDown();
        undeploy.join(WAIT_MILLIS);
        assertFalse(undeploy.isAlive());
        // the stop drained: the file's one record committed, so the file is done and archived, its checkpoint gone
        assertFalse(Files.exists(in.resolve("whole.msg")), "the stop returned with a finished file left unarchived");
        assertEquals("whole", Files.readString(in.resolve("archive/whole.msg")));
        assertNull(checkpoint("last"));
        try (MessageConsumer consumer = session.createConsumer(session.createQueue("LAST.OUT"))) {
            assertNotNull(consumer.receive(WAIT_MILLIS));
            Receive.nothingMore(consumer);
        }
    }

    @Test
    void outputFilesAreRolledByRecordCountAndAppearOnlyComplete() throws Exception {
        deploy(() -> FlowDefinition.builder("writer")
                .node("in", InputNode.queue("WRITE.IN"))
                .node("file", FileOutputNode.directory(out).name("batch-{seq}.txt").maxRecords(10))
                .node("done", OutputNode.queue("WRITE.DONE"))
                .wire("in", "out", "file")
                .wire("file", "out", "done")
                .build());
        // a reader of the directory, as another program would be: every file it sees under a final name is whole
        AtomicBoolean reading = new AtomicBoolean(true);
        AtomicReference<String> partial = new AtomicReference<>();
        Thread reader = new Thread(() -> {
            while (reading.get() && partial.get() == null) {
                try (Stream<Path> files = Files.list(out)) {
                    for (Path file : files.filter(f -> !f.toString().endsWith(".part")).toList()) {
                        List<String> content = Files.readAllLines(file);
                        if (content.size() != 10 && !content.equals(lines(31, 35))) {
                            partial.set(file + " " + content);
                        }
                    }
                } catch (IOException e) {
                    partial.set(e.toString());
                }
            }
        });
        reader.start();
        try (MessageProducer producer = session.createProducer(session.createQueue("WRITE.IN"));
             MessageConsumer done = session.createConsumer(session.createQueue("WRITE.DONE"))) {
            for (int i = 1; i <= 35; i++) {
                producer.send(session.createTextMessage("line " + i));
            }
            assertEquals(lines(1, 35), texts(done, 35));
        }
        assertEquals(List.of("batch-000001.txt", "batch-000002.txt", "batch-000003.txt", "batch-000004.txt.part"),
                names(out));
        assertEquals(lines(31, 35), Files.readAllLines(out.resolve("batch-000004.txt.part")));
        flowHost.undeploy("writer"); // a stop finishes the open file
        reading.set(false);
        reader.join();
        assertNull(partial.get(), "a reader saw a partial file under its final name");
        assertEquals(List.of("batch-000001.txt", "batch-000002.txt", "batch-000003.txt", "batch-000004.txt"), names(out));
        List<String> all = new ArrayList<>();
        for (String name : names(out)) {
            all.addAll(Files.readAllLines(out.resolve(name)));
        }
        assertEquals(lines(1, 35), all);
    }

    @Test
    void aRecordOfAnInvocationThatRollsBackIsNotWrittenAndItsRetryWritesItOnce() throws Exception {
        deploy(() -> FlowDefinition.builder("retried")
                .node("in", InputNode.queue("RETRIED.IN").backoutQueue("RETRIED.BAD"))
                .node("file", FileOutputNode.directory(out).name("retried-{seq}.txt"))
                .node("flaky", new FailsBeforeDelivery(3)) // a later node fails the first two deliveries
                .node("done", OutputNode.queue("RETRIED.DONE"))
                .wire("in", "out", "file")
                .wire("file", "out", "flaky")
                .wire("flaky", "out", "done")
                .build());
        try (MessageProducer producer = session.createProducer(session.createQueue("RETRIED.IN"));
             MessageConsumer done = session.createConsumer(session.createQueue("RETRIED.DONE"))) {
            producer.send(session.createTextMessage("line 1"));
            producer.send(session.createTextMessage("line 2"));
            assertEquals(lines(1, 2), texts(done, 2));
        }
        flowHost.undeploy("retried"); // finishes the open file
        assertEquals(List.of("retried-000001.txt"), names(out));
        assertEquals(lines(1, 2), Files.readAllLines(out.resolve("retried-000001.txt")),
                "each record once, though each message was rolled back twice after the node had it");
    }

    /** Fails each message's deliveries before {@code passing}, then passes it on. */
    static final class FailsBeforeDelivery extends JavaComputeNode {
        private final int passing;

        FailsBeforeDelivery(int passing) {
            this.passing = passing;
        }

        @Override
        public void evaluate(MessageAssembly assembly) throws Exception {
            int attempt = ((Number) assembly.message().headers().get(FlowMessage.JMSX_DELIVERY_COUNT)).intValue();
            if (attempt < passing) {
                throw new IllegalStateException("delivery " + attempt + " fails");
            }
            propagate("out", assembly);
        }
    }

    @Test
    void aFileIsAlsoFinishedBySizeAndByAge() throws Exception {
        deploy(() -> FlowDefinition.builder("sized")
                .node("in", InputNode.queue("SIZED.IN"))
                .node("file", FileOutputNode.directory(out).name("sized-{seq}.txt").maxBytes(20)
                        .maxAge(Duration.ofSeconds(2)))
                .node("done", OutputNode.queue("SIZED.DONE"))
                .wire("in", "out", "file")
                .wire("file", "out", "done")
                .build());
        // the first file's three records must come within its age limit of each other: put in one transaction, they
        // reach the flow together, not as a test thread on a loaded machine sends them; the age limit is far longer
        // than three invocations, and the fourth record's file waits for it
        Session sending = connection.createSession(true, Session.SESSION_TRANSACTED);
        try (MessageProducer producer = sending.createProducer(sending.createQueue("SIZED.IN"));
             MessageConsumer done = session.createConsumer(session.createQueue("SIZED.DONE"))) {
            for (int i = 1; i <= 4; i++) {
                producer.send(sending.createTextMessage("line " + i)); // 7 bytes with its newline
            }
            sending.commit();
            texts(done, 4);
        } finally {
            sending.close();
        }
        // 21 bytes reach maxBytes after three records; the fourth is finished by its age, with no record after it
        assertEquals(lines(1, 3), Files.readAllLines(out.resolve("sized-000001.txt")));
        awaitFile(out.resolve("sized-000002.txt"));
        assertEquals(lines(4, 4), Files.readAllLines(out.resolve("sized-000002.txt")));
    }

    @Test
    void aPartFileLeftByACrashIsFinishedAtStartWithoutItsHalfRecord() throws Exception {
        Files.writeString(out.resolve("batch-000007.txt.part"), "a\nb\nhal");
        deploy(() -> FlowDefinition.builder("writer")
                .node("in", InputNode.queue("CRASHED.IN"))
                .node("file", FileOutputNode.directory(out).name("batch-{seq}.txt").maxRecords(1))
                .node("done", OutputNode.queue("CRASHED.DONE"))
                .wire("in", "out", "file")
                .wire("file", "out", "done")
                .build());
        assertEquals(List.of("batch-000007.txt"), names(out));
        assertEquals("a\nb\n", Files.readString(out.resolve("batch-000007.txt")));
        try (MessageProducer producer = session.createProducer(session.createQueue("CRASHED.IN"));
             MessageConsumer done = session.createConsumer(session.createQueue("CRASHED.DONE"))) {
            producer.send(session.createTextMessage("next"));
            texts(done, 1);
        }
        assertEquals("next\n", Files.readString(out.resolve("batch-000008.txt")), "the sequence goes on after 7");
    }

    @Test
    void directoriesOutsideFileDirectoriesAreRefusedAtDeploy() throws Exception {
        Path outside = Files.createDirectories(root.resolve("outside"));
        Path link = Files.createSymbolicLink(root.resolve("files/link"), outside);
        // the last: a '..' after a directory not made yet, then the link (creating the directories would go through it)
        for (Path escape : List.of(root.resolve("files/in/../../outside"), link.resolve("sub"), outside,
                root.resolve("files/notyet/../link/sub"))) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> deploy(() ->
                    FlowDefinition.builder("escape")
                            .node("in", InputNode.queue("ESCAPE.IN"))
                            .node("file", FileOutputNode.directory(escape))
                            .wire("in", "out", "file")
                            .build()));
            assertTrue(e.getMessage().contains("uses directory " + escape) && e.getMessage().contains("fileDirectories")
                    && e.getMessage().contains(root.resolve("files").toString()), e.getMessage());
        }
        IllegalArgumentException archive = assertThrows(IllegalArgumentException.class, () -> deploy(() ->
                FlowDefinition.builder("escape")
                        .node("in", lineInput().archive(outside))
                        .build()));
        assertTrue(archive.getMessage().contains("uses directory " + outside), archive.getMessage());
        assertTrue(archive.getMessage().endsWith("change the flow to use one of them."), archive.getMessage());
        // a relative directory: from the working directory, which the refusal names (a sample run from elsewhere)
        IllegalArgumentException relative = assertThrows(IllegalArgumentException.class, () -> deploy(() ->
                FlowDefinition.builder("escape")
                        .node("in", InputNode.queue("ESCAPE.IN"))
                        .node("file", FileOutputNode.directory("data/files/out"))
                        .wire("in", "out", "file")
                        .build()));
        assertTrue(relative.getMessage().contains("uses directory data/files/out ("), relative.getMessage());
        assertTrue(relative.getMessage().contains("(the flow's relative directory is taken from the server's working "
                + "directory, " + Path.of("").toAbsolutePath() + ": a flow written for another one"),
                () -> "names where a relative directory is taken from: " + relative.getMessage());
        assertNull(flowHost.flow("escape"));
        assertFalse(Files.exists(link.resolve("sub")), "a refused flow wrote into the directory");
    }

    @Test
    void withoutFileDirectoriesNoFlowMayUseFiles() throws Exception {
        stop();
        startServer(List.of());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> deploy(() ->
                FlowDefinition.builder("files").node("in", lineInput()).build()));
        assertTrue(e.getMessage().contains("setting flowHost.fileDirectories in wharf.yaml: none"), e.getMessage());
    }

    private static List<String> names(Path directory) throws IOException {
        try (Stream<Path> files = Files.list(directory)) {
            return files.map(f -> f.getFileName().toString()).sorted().toList();
        }
    }
}
