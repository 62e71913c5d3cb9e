package org.wharfmq.server.replication;

import org.wharfmq.server.FreePorts;
import org.wharfmq.server.TestCertificates;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

/** Three real replication members in this JVM, on loopback ephemeral ports, each with its own directory. */
final class Trio implements AutoCloseable {

    /** Generous: the build machine is shared and loaded. */
    static final Duration WAIT = Duration.ofSeconds(30);
    /**
     * The members' settings: messages of up to 20 MiB, five times the most one log entry carries (4 MiB), so that a
     * batch of the largest has more pieces (six) than the active member has uncommitted at once (four).
     */
    static final GroupSettings SETTINGS = GroupSettings.of("TEST", 20 << 20);
    /** The largest batch the members take: a record of the largest message, appended in pieces. */
    static final int MAX_BATCH_BYTES = ReplicationConfiguration.maxRecordBytes(SETTINGS.maxMessageLength());

    final Membership membership;
    final ReplicationConfiguration.Timings timings;
    /** The group's CA: every member's credentials come from it. */
    final TestCertificates.Issued ca;
    private final ReplicatedLog[] logs = new ReplicatedLog[3];
    private final RecordingSink[] sinks = new RecordingSink[3];
    private final Activity[] activity = new Activity[3];

    /** What a member's {@link ActiveListener} last heard, and how often it heard each. */
    static final class Activity implements ActiveListener {
        volatile boolean active;
        final java.util.concurrent.atomic.AtomicInteger actives = new java.util.concurrent.atomic.AtomicInteger();
        final java.util.concurrent.atomic.AtomicInteger inactives = new java.util.concurrent.atomic.AtomicInteger();

        @Override
        public void active() {
            actives.incrementAndGet();
            active = true;
        }

        @Override
        public void inactive() {
            inactives.incrementAndGet();
            active = false;
        }
    }

    Trio(Path root, ReplicationConfiguration.Timings timings) throws Exception {
        this.timings = timings;
        this.ca = TestCertificates.ca("replication-group");
        List<Member> members = new ArrayList<>();
        String[] ids = {"a", "b", "c"};
        for (int i = 0; i < 3; i++) {
            members.add(new Member(ids[i], "127.0.0.1", FreePorts.one(), root.resolve(ids[i])));
        }
        membership = new Membership("TEST", members);
        // started together: each start is mostly the JVM warming up Ratis and gRPC, and the election needs two
        List<CompletableFuture<Void>> starts = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            int member = i;
            starts.add(CompletableFuture.runAsync(() -> {
                try {
                    start(member);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }));
        }
        CompletableFuture.allOf(starts.toArray(CompletableFuture[]::new)).join();
    }

    /** Member {@code id}'s key store: its key and a certificate {@code ca} issues for 127.0.0.1. */
    static KeyStore memberKeys(TestCertificates.Issued ca, String id) throws Exception {
        return TestCertificates.issue(ca, "CN=" + id + ",O=Wharf Test", Duration.ofDays(1), "127.0.0.1").keyStore();
    }

    /** Credentials for member {@code id} on the loopback address, trusting {@code ca} only. */
    static MemberTls memberTls(TestCertificates.Issued ca, String id) throws Exception {
        return MemberTls.of(memberKeys(ca, id), TestCertificates.PASSWORD.toCharArray(),
                TestCertificates.trustStore(ca.certificate()));
    }

    /**
     * Waits until nothing listens on {@code port} of the loopback address: a member started again on its port while
     * its stopped instance's listener is still closing fails to bind, and Ratis then ends the JVM.
     */
    static void awaitFree(int port) {
        await("port " + port + " to be free", () -> {
            try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
                return true;
            } catch (IOException inUse) {
                return false;
            }
        });
    }

    void start(int i) throws IOException {
        String id = membership.members().get(i).id();
        MemberTls tls;
        try {
            tls = memberTls(ca, id);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        awaitFree(membership.members().get(i).port());
        sinks[i] = new RecordingSink();
        activity[i] = new Activity();
        logs[i] = ReplicatedLog.start(membership, id, tls, sinks[i], activity[i], timings, SETTINGS);
    }

    void stop(int i) throws IOException {
        logs[i].close();
        logs[i] = null;
    }

    void wipe(int i) throws IOException {
        deleteTree(membership.members().get(i).dataDirectory());
    }

    /** Deletes {@code dir} and everything in it. */
    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.delete(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }

    ReplicatedLog log(int i) {
        return logs[i];
    }

    Activity activity(int i) {
        return activity[i];
    }

    RecordingSink sink(int i) {
        return sinks[i];
    }

    /** Waits until one running member is active; returns its position. */
    int awaitActive() {
        int[] found = {-1};
        await("a member to become active", () -> {
            for (int i = 0; i < 3; i++) {
                if (logs[i] != null && logs[i].isActive()) {
                    found[0] = i;
                    return true;
                }
            }
            return false;
        });
        return found[0];
    }

    /** Waits until member {@code i}'s sink holds {@code n} batches. */
    void awaitApplied(int i, int n) {
        await("member " + i + " to apply " + n + " batches (has " + sinks[i].size() + ")",
                () -> sinks[i].size() >= n);
    }

    static void await(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Timed out after " + WAIT + " waiting for " + what);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
        }
    }

    @Override
    public void close() throws IOException {
        for (int i = 0; i < 3; i++) {
            if (logs[i] != null) {
                logs[i].close();
            }
        }
    }
}
