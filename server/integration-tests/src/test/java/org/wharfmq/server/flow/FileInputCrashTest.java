package org.wharfmq.server.flow;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.cli.WharfProcess;
import org.wharfmq.server.it.Receive;

import javax.jms.Connection;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A FileInput flow run by {@code wharf flow run} in a JVM of its own is killed (SIGKILL) again and again, each time
 * right after a record's transaction commits (the reader's crash point, {@code FileInstance.HOLD}: where the nodes
 * once wrote their checkpoint file after the commit), and run again: every line arrives exactly once, in order, since
 * the checkpoint commits with the record's outputs (docs/flows.md, "Files"). One kill falls after the file's last
 * record, before its move to the archive: the next run moves it with no line again.
 */
@Tag("slow")
class FileInputCrashTest {

    private static final int LINES = 300;
    /** The records after whose commit a run is killed: the first, some in the middle, the last but one, the last. */
    private static final int[] KILLS = {1, 57, 150, 299, LINES};
    /** FileInstance's crash point: its system property, and the line it logs when it holds there. */
    private static final String HOLD = "wharf.test.fileInput.hold";
    private static final String HOLDING = "holding the FileInput reader after the commit of record";
    /** Generous: a child JVM starting on a loaded 2-core machine took over 30 s to deliver its first line (CI). */
    private static final long WAIT_MILLIS = 90_000;

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void aFlowKilledRightAfterRecordsCommitsGivesEveryLineExactlyOnce() throws Exception {
        Path in = Files.createDirectories(dir.resolve("in"));
        Path jar = TestJars.build(dir, "file-flow.jar", Map.of("flows.Files", """
                package flows;
                import org.wharfmq.flow.*;
                import org.wharfmq.flow.node.*;
                public final class Files implements FlowFactory {
                    public FlowDefinition create() {
                        return FlowDefinition.builder("files")
                                .node("in", FileInputNode.directory("DIR").lines()
                                        .pollInterval(java.time.Duration.ofMillis(20)))
                                .node("out", OutputNode.queue("CRASH.OUT"))
                                .wire("in", "out", "out")
                                .build();
                    }
                }
                """.replace("DIR", in.toString())));
        String text = IntStream.rangeClosed(1, LINES).mapToObj(i -> "line " + i + "\n").collect(Collectors.joining());
        Files.move(Files.writeString(in.resolve("big.txt.part"), text), in.resolve("big.txt"), StandardCopyOption.ATOMIC_MOVE);
        try (TestServer testServer = TestServer.start()) {
            String url = testServer.server().tcpUrl();
            List<Integer> received = new ArrayList<>();
            Connection connection = new WharfConnectionFactory(url).createConnection();
            try {
                connection.start();
                Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
                MessageConsumer consumer = session.createConsumer(session.createQueue("CRASH.OUT"));
                for (int kill : KILLS) {
                    Path log = dir.resolve("run-" + kill + ".log");
                    Process run = flowRun(jar, url, log, List.of("-D" + HOLD + "=" + kill));
                    try {
                        FileNodesTest.awaitContent(log, HOLDING + " " + kill + " of big.txt", WAIT_MILLIS);
                    } finally {
                        run.destroyForcibly(); // SIGKILL, right after the record's commit
                        assertTrue(run.waitFor(WAIT_MILLIS, TimeUnit.MILLISECONDS));
                    }
                    receiveThrough(consumer, received, kill); // committed before the kill, so there
                }
                assertTrue(Files.exists(in.resolve("big.txt")), "the file was moved after its last record's commit");
                Process last = flowRun(jar, url, dir.resolve("last.log"), List.of());
                try {
                    FileNodesTest.awaitFile(in.resolve("archive/big.txt"), WAIT_MILLIS); // with no line again
                    Receive.nothingMore(consumer);
                } finally {
                    last.destroy();
                    assertTrue(last.waitFor(WAIT_MILLIS, TimeUnit.MILLISECONDS));
                }
            } finally {
                connection.close();
            }
            assertEquals(IntStream.rangeClosed(1, LINES).boxed().toList(), received,
                    "every line exactly once, in order, across " + KILLS.length + " kills");
        }
    }

    /** Receives lines until line {@code last}, failing when one does not come. */
    private static void receiveThrough(MessageConsumer consumer, List<Integer> received, int last) throws Exception {
        while (received.isEmpty() || received.get(received.size() - 1) < last) {
            Message message = consumer.receive(WAIT_MILLIS);
            assertNotNull(message, "no line after " + received);
            received.add(Integer.parseInt(((TextMessage) message).getText().substring("line ".length())));
        }
    }

    /** {@code wharf flow run} in a JVM of its own with {@code jvmOptions}, its output in {@code log}. */
    private static Process flowRun(Path jar, String url, Path log, List<String> jvmOptions) throws Exception {
        return new ProcessBuilder(WharfProcess.command(jvmOptions, List.of("flow", "run", jar.toString(), "--class",
                "flows.Files", "--url", url))).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }
}
