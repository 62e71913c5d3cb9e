package org.wharfmq.server.replication;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.server.TestCertificates;
import org.wharfmq.server.config.QueueDefinition;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.store.QueueDefinitionFile;
import org.wharfmq.server.store.JournalMessageStore;
import org.wharfmq.server.store.RecoveryTarget;
import org.wharfmq.server.store.StoredMessage;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * Three members of a replicated queue manager in this JVM, each with its own data directory and journal: a
 * persistent message the active instance confirms is on a majority (the next active instance recovers it from its
 * own journal), a member that was active rejoins as a replica, and an active instance without a majority confirms
 * nothing and is fenced. Tagged slow (elections on a loaded machine).
 */
@Tag("slow")
class ReplicationMemberTest {

    private static final Duration WAIT = Trio.WAIT;

    private final ReplicationMember[] members = new ReplicationMember[3];
    private final JournalMessageStore[] stores = new JournalMessageStore[3];
    private Membership membership;
    private TestCertificates.Issued ca;
    private final ReplicationConfiguration.Timings timings = new ReplicationConfiguration.Timings(
            Duration.ofMillis(1000), Duration.ofMillis(2000), ReplicationConfiguration.SNAPSHOT_EVERY_BATCHES,
            ReplicationConfiguration.LOG_SEGMENT_BYTES);

    @Test
    void aConfirmedPersistentMessageIsOnAMajorityAndAnActiveInstanceWithoutOneConfirmsNothing(@TempDir Path dir)
            throws Exception {
        ca = TestCertificates.ca("replication-group");
        List<Member> list = new ArrayList<>();
        for (String id : new String[] {"a", "b", "c"}) {
            list.add(new Member(id, "127.0.0.1", Trio.freePort(), dir.resolve(id)));
        }
        membership = new Membership("TEST", list);
        try {
            List<CompletableFuture<Void>> starts = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                int member = i;
                starts.add(CompletableFuture.runAsync(() -> start(member)));
            }
            CompletableFuture.allOf(starts.toArray(CompletableFuture[]::new)).join();

            int first = takeOver();
            // a queue defined at run time: its definitions file is committed through the log to the replicas
            members[first].definitions().write(List.of(new QueueDefinition("RUNTIME.Q", 1234L)), List.of());
            for (int i = 0; i < 3; i++) {
                int member = i;
                Trio.await("member " + i + "'s definitions", () -> definitions(member).equals(List.of("RUNTIME.Q")));
            }
            assertNull(put(stores[first], "ORDERS", 1, "one"), "the first message was not confirmed");
            assertNull(put(stores[first], "ORDERS", 2, "two"), "the second message was not confirmed");

            // the active instance goes: another one is elected, and its own journal has both messages
            stores[first].close();
            members[first].close();
            members[first] = null;
            int second = takeOver();
            assertEquals(List.of("ORDERS/1=one", "ORDERS/2=two"), recover(stores[second]));
            assertEquals(1234L, QueueDefinitionFile.in(membership.members().get(second).dataDirectory()).read()
                    .queues().get(0).maxDepth());

            // the first one rejoins as a replica: its journal is rebuilt from the log, and it follows the new one
            start(first);
            assertNull(put(stores[second], "ORDERS", 3, "three"), "a message after the failover was not confirmed");
            long committed = members[second].log().status().committedIndex();
            Trio.await("the old active instance to catch up as a replica",
                    () -> members[first].log().appliedIndex() >= committed);
            // its definitions were deleted at its start with its journal, and the log brought them back
            assertEquals(List.of("RUNTIME.Q"), definitions(first));

            // cut off from both replicas, the active instance confirms nothing and is fenced
            for (int i = 0; i < 3; i++) {
                if (i != second) {
                    members[i].close();
                    members[i] = null;
                }
            }
            Throwable refused = put(stores[second], "ORDERS", 4, "four");
            assertNotNull(refused, "a message was confirmed by an active instance without a majority");
            assertInstanceOf(NotActiveException.class, refused);
            String reason = members[second].fenced().get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            assertNotNull(reason);
        } finally {
            for (int i = 0; i < 3; i++) {
                if (stores[i] != null) {
                    stores[i].close();
                }
                if (members[i] != null) {
                    members[i].close();
                }
            }
        }
    }

    private void start(int i) {
        Member member = membership.members().get(i);
        Trio.awaitFree(member.port());
        try {
            ServerConfig config = ServerConfig.builder().name("TEST").dataDirectory(member.dataDirectory())
                    .maxMessageLength(1 << 20).build();
            members[i] = ReplicationMember.start(config, membership, member.id(), Trio.memberTls(ca, member.id()),
                    timings);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** The queues member {@code i}'s definitions file holds. */
    private List<String> definitions(int i) {
        return QueueDefinitionFile.in(membership.members().get(i).dataDirectory()).read().queues().stream()
                .map(QueueDefinition::name).toList();
    }

    /** Waits for a running member to be elected, and makes it take over; returns its position. */
    private int takeOver() throws Exception {
        List<CompletableFuture<Void>> elected = new ArrayList<>();
        for (ReplicationMember m : members) {
            elected.add(m == null ? new CompletableFuture<>() : m.elected());
        }
        CompletableFuture.anyOf(elected.toArray(CompletableFuture[]::new)).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        for (int i = 0; i < 3; i++) {
            if (elected.get(i).isDone()) {
                stores[i] = members[i].takeOver();
                return i;
            }
        }
        throw new AssertionError("no member elected");
    }

    /** Puts a message and waits for the store's answer: null when confirmed, else why not. */
    private static Throwable put(JournalMessageStore store, String queue, long sequence, String body)
            throws Exception {
        CompletableFuture<Throwable> done = new CompletableFuture<>();
        ByteBuf content = Unpooled.copiedBuffer(body, StandardCharsets.UTF_8);
        store.put(new Message(queue, sequence, content), done::complete);
        return done.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    }

    private record Message(String queueName, long sequence, ByteBuf content) implements StoredMessage {
    }

    /** The messages the store recovered, as queue/sequence=body. */
    private static List<String> recover(JournalMessageStore store) {
        List<String> recovered = new ArrayList<>();
        store.recover(new RecoveryTarget() {
            @Override
            public void queueRecovered(String queueName, long lastSequence) {
            }

            @Override
            public void messageRecovered(String queueName, long sequence, ByteBuf content, int deliveryCount) {
                recovered.add(queueName + "/" + sequence + "=" + content.toString(StandardCharsets.UTF_8));
                content.release();
            }
        });
        return recovered;
    }
}
