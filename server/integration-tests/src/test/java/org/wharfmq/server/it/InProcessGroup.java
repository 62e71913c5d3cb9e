package org.wharfmq.server.it;

import org.wharfmq.server.FreePorts;
import org.wharfmq.server.TestCertificates;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.replication.Member;
import org.wharfmq.server.replication.MemberTls;
import org.wharfmq.server.replication.Membership;
import org.wharfmq.server.replication.ReplicationConfiguration;
import org.wharfmq.server.replication.ReplicationMember;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Members of a replicated queue manager in this JVM, without processes: each with its data directory in
 * {@code dir/ID}, on a loopback port, with a certificate from a CA made for the run (mutual TLS, as between
 * processes). For tests of what the active member serves (the console's members); the process tests
 * (ReplicatedMembersTest, ReplicatedFailoverTest) cover the processes.
 */
final class InProcessGroup implements AutoCloseable {

    private static final Duration WAIT = Duration.ofSeconds(60);

    private final Path dir;
    private final TestCertificates.Issued ca;
    private final List<Member> list = new ArrayList<>();
    private final Map<String, ReplicationMember> running = new LinkedHashMap<>();

    /** Starts the founding members {@code ids} (three at least). */
    InProcessGroup(Path dir, String... ids) throws Exception {
        this.dir = dir;
        this.ca = TestCertificates.ca("replication-group");
        for (String id : ids) {
            list.add(newMember(id));
        }
        Membership founders = new Membership("CONSOLE", List.copyOf(list));
        for (String id : ids) {
            start(id, founders);
        }
    }

    /** A member that is not in the group yet, on a free port: {@link #start} it on {@link #membership()}. */
    Member newMember(String id) throws IOException {
        return new Member(id, "127.0.0.1", FreePorts.one(), dir.resolve(id));
    }

    /** The founders and the members added with {@link #join} since. */
    Membership membership() {
        return new Membership("CONSOLE", List.copyOf(list));
    }

    /** Starts {@code member} on the list of the founders and it, as a new member does before it is added. */
    ReplicationMember join(Member member) throws Exception {
        list.add(member);
        return start(member.id(), membership());
    }

    private ReplicationMember start(String id, Membership membership) throws Exception {
        ServerConfig config = ServerConfig.builder().name("CONSOLE").dataDirectory(membership.member(id).dataDirectory())
                .maxMessageLength(1 << 20).build();
        MemberTls tls = MemberTls.of(TestCertificates.issue(ca, "CN=" + id + ",O=Wharf Test", Duration.ofDays(1),
                "127.0.0.1").keyStore(), TestCertificates.PASSWORD.toCharArray(),
                TestCertificates.trustStore(ca.certificate()));
        ReplicationMember member = ReplicationMember.start(config, membership, id, tls,
                ReplicationConfiguration.Timings.DEFAULT);
        running.put(id, member);
        return member;
    }

    /** Waits until a running member is elected active; returns it (it has not taken over). */
    ReplicationMember awaitElected() throws Exception {
        CompletableFuture.anyOf(running.values().stream().map(ReplicationMember::elected)
                .toArray(CompletableFuture[]::new)).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        return running.values().stream().filter(m -> m.elected().isDone()).findFirst().orElseThrow();
    }

    /** Stops member {@code id}. */
    void stop(String id) throws IOException {
        ReplicationMember member = running.remove(id);
        if (member != null) {
            member.close();
        }
    }

    @Override
    public void close() throws IOException {
        for (String id : List.copyOf(running.keySet())) {
            stop(id);
        }
    }
}
