package org.wharfmq.server.store;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.it.Receive;

import javax.jms.BytesMessage;
import javax.jms.Connection;
import javax.jms.JMSException;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Queue;
import javax.jms.Session;
import javax.jms.TransactionRolledBackException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The journal on a filesystem that really fills up: a small tmpfs mounted for the server process alone, in a mount
 * namespace of its own ({@code unshare --user --map-root-user --mount}, so no root is needed, and nothing is left
 * mounted when the process ends). Unlike the tests that make the journal believe the disk is full, here a write
 * past the end of the space fails for real; through Chronicle's memory map that would be a SIGBUS that kills the
 * JVM, so the server must stop taking messages while there is still room for consumes and commits.
 *
 * <p>Skipped where the kernel or container does not allow unprivileged user and mount namespaces.
 */
@Tag("slow")
class FullFilesystemTest {

    /** Room for the journal (about 48 MiB) above the 64 MiB reserve the server keeps for consumes and commits. */
    private static final int DISK_MIB = 112;
    private static final int BODY = 64 * 1024;
    private static final String QUEUE = "FULL.DISK";

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void aFullDiskRefusesProducersClearlyConsumersGoOnNothingWrittenIsDamagedAndSendingResumes() throws Exception {
        try (SmallDiskServer server = smallDisk()) {
            int sent = 0;
            Connection connection = new WharfConnectionFactory(server.start()).createConnection();
            try {
                connection.start();
                Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
                Queue queue = session.createQueue(QUEUE);
                MessageProducer producer = session.createProducer(queue); // persistent: each send is journaled
                JMSException refused = null;
                while (refused == null && sent < 10_000) {
                    try {
                        producer.send(message(session, sent));
                        sent++;
                    } catch (JMSException e) {
                        refused = e;
                    }
                }
                assertNotNull(refused, "a " + DISK_MIB + " MiB disk took " + sent + " messages of 64 KiB");
                assertTrue(sent > 100, "the disk took messages until it was nearly full, not " + sent);
                assertTrue(refused.getMessage().contains("disk of the journal"), refused.getMessage());
                assertTrue(refused.getMessage().contains("is full"), refused.getMessage());
                assertTrue(refused.getMessage().contains("Free disk space or consume messages"),
                        "says what to do: " + refused.getMessage());

                Session transacted = connection.createSession(true, Session.SESSION_TRANSACTED);
                transacted.createProducer(queue).send(message(transacted, -1));
                JMSException commit = assertThrows(TransactionRolledBackException.class, transacted::commit);
                assertTrue(commit.getMessage().contains("disk of the journal"), commit.getMessage());

                MessageConsumer consumer = session.createConsumer(queue);
                for (int i = 0; i < sent; i++) {
                    assertIntact(consumer.receive(10_000), i, "consumers keep working on a full disk");
                }
                Receive.nothingMore(consumer); // the refused send and the rolled back one never appear
                consumer.close();

                boolean accepted = false;
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (!accepted && System.nanoTime() < deadline) {
                    try {
                        producer.send(message(session, sent));
                        accepted = true;
                    } catch (JMSException e) {
                        assertTrue(e.getMessage().contains("disk of the journal"), e.getMessage());
                    }
                }
                assertTrue(accepted, "consuming made room: the journal takes messages again\n" + server.output());
                producer.send(message(session, sent + 1));
            } finally {
                connection.close();
            }

            server.stop();
            Connection again = new WharfConnectionFactory(server.start()).createConnection();
            try {
                again.start();
                Session session = again.createSession(false, Session.AUTO_ACKNOWLEDGE);
                MessageConsumer consumer = session.createConsumer(session.createQueue(QUEUE));
                assertIntact(consumer.receive(10_000), sent, "after a restart on the same disk");
                assertIntact(consumer.receive(10_000), sent + 1, "after a restart on the same disk");
                Receive.nothingMore(consumer); // consumed messages stay consumed across the restart
            } finally {
                again.close();
            }
            String output = server.output();
            assertFalse(output.contains("DAMAGE"), "the journal recovered without damage:\n" + output);
        }
    }

    /**
     * Another program fills the disk to the last byte, under the journal's reserve: the journal learns it only at
     * its next free-space read, and its next records land on blocks nobody has allocated. Written through the memory
     * map, such a record was a SIGBUS that stopped the journal until a restart; the journal now claims its blocks
     * ahead (fallocate), so consumes go on in the room already claimed and producers get the disk-full error.
     */
    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void aDiskFilledByAnotherProgramStopsProducersClearlyAndConsumersGoOn() throws Exception {
        int messages = 40;
        try (SmallDiskServer server = smallDisk()) {
            Connection connection = new WharfConnectionFactory(server.start()).createConnection();
            try {
                connection.start();
                Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
                Queue queue = session.createQueue(QUEUE);
                MessageProducer producer = session.createProducer(queue);
                for (int i = 0; i < messages; i++) {
                    producer.send(message(session, i));
                }
                Path filler = server.diskSeenFromOutside().resolve("filler");
                assumeTrue(Files.isDirectory(filler.getParent()), "cannot see the server's disk from outside");
                fill(filler);
                assumeTrue(Files.exists(filler) && Files.size(filler) > 0, "cannot write to the server's disk from outside");

                // each consume is a journal record, written after the disk filled up
                MessageConsumer consumer = session.createConsumer(queue);
                for (int i = 0; i < messages; i++) {
                    assertIntact(consumer.receive(10_000), i, "consumers keep working on a disk another program filled");
                }
                consumer.close();

                JMSException refused = null;
                int accepted = 0;
                while (refused == null && accepted < 1000) {
                    try {
                        producer.send(message(session, messages + accepted));
                        accepted++; // in the room claimed before the disk filled, or before the journal looked
                    } catch (JMSException e) {
                        refused = e;
                    }
                }
                assertNotNull(refused, "a full disk took " + accepted + " more messages of 64 KiB");
                assertTrue(refused.getMessage().contains("disk of the journal"), refused.getMessage() + "\n" + server.output());
                assertTrue(refused.getMessage().contains("is full"), refused.getMessage());

                Files.delete(filler);
                boolean resumed = false;
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (!resumed && System.nanoTime() < deadline) {
                    try {
                        producer.send(message(session, messages + accepted));
                        resumed = true;
                    } catch (JMSException e) {
                        assertTrue(e.getMessage().contains("disk of the journal"), e.getMessage() + "\n" + server.output());
                    }
                }
                assertTrue(resumed, "with the disk freed the journal takes messages again\n" + server.output());
                MessageConsumer again = session.createConsumer(queue);
                for (int i = 0; i <= accepted; i++) {
                    assertIntact(again.receive(10_000), messages + i, "after the disk was freed");
                }
                Receive.nothingMore(again);
            } finally {
                connection.close();
            }
            server.stop();
            assertFalse(server.output().contains("journal writer failed"), server.output());

            // the records refused for want of room left nothing behind: a restart finds every message consumed
            Connection again = new WharfConnectionFactory(server.start()).createConnection();
            try {
                again.start();
                Session session = again.createSession(false, Session.AUTO_ACKNOWLEDGE);
                // consumed messages stay consumed across the restart
                Receive.nothingMore(session.createConsumer(session.createQueue(QUEUE)));
            } finally {
                again.close();
            }
            assertFalse(server.output().contains("DAMAGE"), "the journal recovered without damage:\n" + server.output());
            assertFalse(server.output().contains("did not stop in order"), server.output());
        }
    }

    /** A shell with the small disk mounted, ready to start the server on it; skips the test where it cannot be. */
    private SmallDiskServer smallDisk() throws IOException, InterruptedException {
        assumeTrue(SmallDiskServer.canMount(dir.resolve("probe")),
                "needs unprivileged user and mount namespaces (unshare -Urm) to mount a small tmpfs");
        Path config = dir.resolve("wharf.yaml");
        Files.writeString(config, "maxMessageLength: 1048576\n"); // the reserve is then its 64 MiB minimum
        return SmallDiskServer.open(dir.resolve("disk"), DISK_MIB, config);
    }

    /** Writes to {@code file} until the disk is full. */
    private static void fill(Path file) {
        byte[] block = new byte[1 << 20];
        try (java.io.OutputStream out = Files.newOutputStream(file)) {
            while (true) {
                out.write(block);
            }
        } catch (IOException full) {
            // the disk is full (the message is the platform's); were it not, the producer would not be refused
        }
    }

    private static BytesMessage message(Session session, int sequence) throws JMSException {
        BytesMessage m = session.createBytesMessage();
        m.setIntProperty("seq", sequence);
        m.writeBytes(body(sequence));
        return m;
    }

    private static byte[] body(int sequence) {
        byte[] body = new byte[BODY];
        for (int i = 0; i < body.length; i++) {
            body[i] = (byte) (sequence * 31 + i);
        }
        return body;
    }

    private static void assertIntact(javax.jms.Message received, int sequence, String when) throws JMSException {
        assertNotNull(received, when + ": message " + sequence + " is missing");
        assertEquals(sequence, received.getIntProperty("seq"), when + ": out of order");
        BytesMessage bytes = (BytesMessage) received;
        byte[] body = new byte[(int) bytes.getBodyLength()];
        bytes.readBytes(body);
        assertArrayEquals(body(sequence), body, when + ": the body of message " + sequence + " changed");
    }

    /**
     * A shell in a mount namespace of its own, with a tmpfs mounted on a directory, that runs the server on it each
     * time it reads "start" (so the server can stop and start again on the same small disk).
     */
    private static final class SmallDiskServer implements AutoCloseable {

        private static final String SCRIPT = "mount -t tmpfs -o size=\"$2\" wharf-small-disk \"$1\" || exit 97; "
                + "shift 2; while read -r line && [ \"$line\" = start ]; do \"$@\"; echo \"server exited: $?\"; done";

        private final Process shell;
        private final Writer input;
        private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        private final StringBuffer output = new StringBuffer();
        private final Path mountPoint;

        private SmallDiskServer(Process shell, Path mountPoint) {
            this.shell = shell;
            this.mountPoint = mountPoint.toAbsolutePath();
            this.input = new OutputStreamWriter(shell.getOutputStream(), StandardCharsets.UTF_8);
            Thread reader = new Thread(() -> {
                try (BufferedReader out = new BufferedReader(
                        new InputStreamReader(shell.getInputStream(), StandardCharsets.UTF_8))) {
                    for (String line; (line = out.readLine()) != null; ) {
                        output.append(line).append('\n');
                        lines.add(line);
                    }
                } catch (IOException ignored) {
                    // the shell ended
                }
            }, "small-disk-output");
            reader.setDaemon(true);
            reader.start();
        }

        /** Whether this machine lets an unprivileged process mount a tmpfs in a namespace of its own. */
        static boolean canMount(Path probe) throws IOException, InterruptedException {
            Files.createDirectories(probe);
            try {
                Process p = new ProcessBuilder("unshare", "--user", "--map-root-user", "--mount", "sh", "-c",
                        "mount -t tmpfs -o size=1m wharf-probe \"$1\"", "probe", probe.toString())
                        .redirectErrorStream(true).start();
                p.getInputStream().readAllBytes();
                return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
            } catch (IOException noUnshare) {
                return false;
            }
        }

        static SmallDiskServer open(Path mountPoint, int mib, Path config) throws IOException {
            Files.createDirectories(mountPoint);
            List<String> command = new ArrayList<>(List.of("unshare", "--user", "--map-root-user", "--mount",
                    "sh", "-c", SCRIPT, "wharf-small-disk", mountPoint.toString(), mib + "m"));
            command.addAll(ServerProcess.command(mountPoint.resolve("data"), "--config", config.toString()));
            return new SmallDiskServer(new ProcessBuilder(command).redirectErrorStream(true).start(), mountPoint);
        }

        /** Starts the server on the small disk; returns its URL once it is ready. */
        String start() throws IOException, InterruptedException {
            input.write("start\n");
            input.flush();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (System.nanoTime() < deadline) {
                String line = lines.poll(1, TimeUnit.SECONDS);
                if (line == null) {
                    continue;
                }
                int port = ServerProcess.readyPort(line);
                if (port >= 0) {
                    return "tcp://127.0.0.1:" + port;
                }
                if (line.startsWith("server exited") || line.contains("exit 97")) {
                    break;
                }
            }
            throw new IllegalStateException("the server did not start on the small disk:\n" + output);
        }

        /** Stops the server in order (SIGTERM) and waits until it has exited. */
        void stop() throws Exception {
            ProcessHandle java = shell.descendants()
                    .filter(p -> p.info().command().map(c -> c.endsWith("java")).orElse(false))
                    .findFirst().orElseThrow(() -> new IllegalStateException("no server running:\n" + output));
            java.destroy();
            java.onExit().get(30, TimeUnit.SECONDS);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            String line;
            do {
                line = lines.poll(1, TimeUnit.SECONDS);
            } while ((line == null || !line.startsWith("server exited")) && System.nanoTime() < deadline);
            assertNotNull(line, "the server's exit was not seen:\n" + output);
            // 143: the JVM's status after SIGTERM and its shutdown hooks; a crash (a SIGBUS from the map) is 134
            assertTrue(line.equals("server exited: 143") || line.equals("server exited: 0"),
                    "the server stops in order on a full disk too (" + line + "):\n" + output);
        }

        /** The small disk as the running server sees it, through its root in /proc (the mount is its alone). */
        Path diskSeenFromOutside() {
            ProcessHandle java = shell.descendants()
                    .filter(p -> p.info().command().map(c -> c.endsWith("java")).orElse(false))
                    .findFirst().orElseThrow(() -> new IllegalStateException("no server running:\n" + output));
            return Path.of("/proc", Long.toString(java.pid()), "root").resolve(mountPoint.toString().substring(1));
        }

        /** Everything the shell and the servers printed so far. */
        String output() {
            return output.toString();
        }

        @Override
        public void close() throws IOException, InterruptedException {
            shell.descendants().forEach(ProcessHandle::destroyForcibly);
            input.close(); // ends the shell's loop; the mount goes with its namespace
            if (!shell.waitFor(30, TimeUnit.SECONDS)) {
                shell.destroyForcibly();
            }
        }
    }
}
