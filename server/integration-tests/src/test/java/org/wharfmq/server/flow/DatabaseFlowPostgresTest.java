package org.wharfmq.server.flow;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.JavaComputeNode;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.TransactionMode;
import org.wharfmq.flow.node.DatabaseNode;
import org.wharfmq.flow.node.InputNode;
import org.wharfmq.flow.node.OutputNode;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Database nodes against a real PostgreSQL server ({@link TestPostgres}), and that server killed mid-invocation
 * (coordinated too: {@link DatabaseFlowXaPostgresTest} runs these with the data source XA).
 */
class DatabaseFlowPostgresTest extends DatabaseFlowContract {

    private static TestPostgres postgres;
    /** Whether {@link KillTheDatabaseOnce} has killed it (and started it again) already. */
    private static final AtomicBoolean KILLED = new AtomicBoolean();

    @BeforeAll
    static void startPostgres() throws Exception {
        postgres = TestPostgres.start();
    }

    @AfterAll
    static void stopPostgres() {
        if (postgres != null) {
            postgres.close();
        }
    }

    @Override
    TestDatabase database() {
        return new TestDatabase() { // the tables are made anew by each test; the server stays for the class
            public String url() {
                return postgres.url();
            }

            public String user() {
                return postgres.user();
            }

            public String password() {
                return postgres.password();
            }
        };
    }

    /**
     * The first time, kills PostgreSQL (SIGKILL to every process of it, as a crash of its machine) and starts it again
     * on its data directory, between the invocation's insert and its commit.
     */
    public static final class KillTheDatabaseOnce extends JavaComputeNode {
        @Override
        public void evaluate(MessageAssembly assembly) throws Exception {
            if (KILLED.compareAndSet(false, true)) {
                postgres.kill();
                postgres.restart();
            }
            propagate("out", assembly);
        }
    }

    /**
     * A database that crashes in the middle of a transactional invocation (its row inserted, not committed) takes the
     * row with it; the invocation's commit fails, so its message is rolled back, not consumed, and comes again once the
     * database is back: stored once, sent on once. The flow goes on with the next message on new connections.
     */
    @Test
    void aDatabaseKilledInTheMiddleOfAnInvocationLosesItsRowAndTheMessageIsStoredOnceWhenItIsBack() throws Exception {
        KILLED.set(false);
        flowHost.deploy(() -> FlowDefinition.builder("crashing")
                .node("in", InputNode.queue("ORDERS").transactionMode(TransactionMode.YES).backoutThreshold(5)
                        .backoutQueue("ORDERS.BACKOUT"))
                .node("insert", new DatabaseNode("orders", "INSERT INTO orders (id, customer, note) VALUES (?, ?, ?)",
                        "UserProperties/id", "UserProperties/customer", "Body"))
                .node("crash", new KillTheDatabaseOnce())
                .node("done", OutputNode.queue("ORDERS.DONE"))
                .wire("in", "out", "insert").wire("insert", "out", "crash").wire("crash", "out", "done")
                .build(), 1);
        send(1, "alice", "through the crash", false);
        assertEquals(1, receive("ORDERS.DONE", 1).get(0).getIntProperty("id"));
        assertEquals(List.of("1 alice through the crash"), rows());
        // the row and the message once: the invocation the crash cut rolled back (a failure, or, coordinated, a
        // rollback at the commit, which the statistics do not count) and its message came again
        assertTrue(KILLED.get(), "the database was killed in the invocation");

        send(2, "bob", "after it", false);
        assertEquals(2, receive("ORDERS.DONE", 1).get(0).getIntProperty("id"));
        assertEquals(List.of("1 alice through the crash", "2 bob after it"), rows());
        assertEquals(0, testServer.server().queueManager().depth("ORDERS.DONE"), "a message sent on twice");
    }
}
