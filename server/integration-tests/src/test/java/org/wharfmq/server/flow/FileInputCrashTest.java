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
 * A FileInput flow run by {@code wharf flow run} in a JVM of its own is killed (SIGKILL) in the middle of a file and
 * run again: every line arrives, in order, and the only line that may arrive twice is the one whose commit the kill
 * fell between and its checkpoint (docs/flows.md, "Files": at most one record, only after a crash).
 */
@Tag("slow")
class FileInputCrashTest {

    private static final int LINES = 2000;
    /** Generous: a child JVM starting on a loaded 2-core machine took over 30 s to deliver its first line (CI). */
    private static final long WAIT_MILLIS = 90_000;

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void aKilledFlowGoesOnAfterItsLastCheckpointLosingNoLineAndRedoingAtMostOne() throws Exception {
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
                Process first = flowRun(jar, url, "first");
                try {
                    receive(consumer, received, LINES / 10);
                } finally {
                    first.destroyForcibly(); // SIGKILL: no drain, no last checkpoint
                    assertTrue(first.waitFor(WAIT_MILLIS, TimeUnit.MILLISECONDS));
                }
                Process second = flowRun(jar, url, "second");
                try {
                    while (received.isEmpty() || received.get(received.size() - 1) != LINES) {
                        receive(consumer, received, 1);
                    }
                    FileNodesTest.awaitFile(in.resolve("archive/big.txt")); // after the last record's commit
                    Receive.nothingMore(consumer);
                } finally {
                    second.destroy();
                    assertTrue(second.waitFor(WAIT_MILLIS, TimeUnit.MILLISECONDS));
                }
            } finally {
                connection.close();
            }
            List<Integer> distinct = received.stream().distinct().toList();
            assertEquals(IntStream.rangeClosed(1, LINES).boxed().toList(), distinct, "a line was lost or out of order");
            java.util.Set<Integer> seen = new java.util.HashSet<>();
            List<Integer> twice = received.stream().filter(line -> !seen.add(line)).toList();
            assertTrue(twice.size() <= 1, twice.size() + " lines came twice: " + twice);
        }
    }

    private static void receive(MessageConsumer consumer, List<Integer> received, int count) throws Exception {
        for (int i = 0; i < count; i++) {
            Message message = consumer.receive(WAIT_MILLIS);
            assertNotNull(message, "no line after " + received.size() + " lines");
            received.add(Integer.parseInt(((TextMessage) message).getText().substring("line ".length())));
        }
    }

    /** {@code wharf flow run} in a JVM of its own, its output in {@code name}.log under the test's directory. */
    private Process flowRun(Path jar, String url, String name) throws Exception {
        Path log = dir.resolve(name + ".log");
        return WharfProcess.builder("flow", "run", jar.toString(), "--class", "flows.Files", "--url", url)
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }
}
