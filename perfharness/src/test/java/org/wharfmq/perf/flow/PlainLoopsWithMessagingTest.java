package org.wharfmq.perf.flow;

import org.junit.jupiter.api.Test;
import org.wharfmq.flow.Domain;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The plain loops of the database and records workloads are JMS applications: each request crosses the loop's own
 * server to the work and the reply comes back, and the work is done once per request (docs/benchmarks.md, "Plain
 * loops").
 */
class PlainLoopsWithMessagingTest {

    private static final int MESSAGES = 25;

    @Test
    void theDatabaseLoopRunsItsStatementOncePerRequestAndRepliesWithTheBody() throws Exception {
        byte[] sale = SaleMessage.ofSize(4096);
        for (boolean persistent : new boolean[] {false, true}) {
            DatabaseFlows.PooledStatement update = new DatabaseFlows.PooledStatement(DatabaseFlows.UPDATE, persistent);
            try (JmsLoop loop = new JmsLoop("F.DB.UPDATE.IN", "F.DB.UPDATE.OUT", persistent, update)) {
                for (int i = 0; i < MESSAGES; i++) {
                    assertEquals(sale.length, loop.applyAsInt(sale), "the reply carries the request's body");
                }
                assertEquals(MESSAGES, update.count(), "one committed update per request, persistent=" + persistent);
            }
        }
    }

    @Test
    void theRetrieveLoopQueriesTheValueOfEachRequest() throws Exception {
        byte[] sale = SaleMessage.ofSize(4096);
        byte[] other = new String(sale, StandardCharsets.UTF_8).replace("<Last>Test</Last>", "<Last>Nobody</Last>")
                .getBytes(StandardCharsets.UTF_8);
        try (JmsLoop loop = new JmsLoop("F.DB.RETRIEVE.IN", "F.DB.RETRIEVE.OUT", false,
                new DatabaseFlows.PooledStatement(DatabaseFlows.RETRIEVE, false))) {
            assertEquals(sale.length, loop.applyAsInt(sale));
            IllegalStateException none = assertThrows(IllegalStateException.class, () -> loop.applyAsInt(other));
            assertTrue(none.getMessage().contains("found no row"), none.getMessage());
        }
    }

    @Test
    void theRecordsLoopRepliesWithTheNodesOutput() throws Exception {
        byte[] sale = SaleMessage.ofSize(4096);
        try (JmsLoop loop = new JmsLoop("F.CSV.WRITE.IN", "F.CSV.WRITE.OUT", false, JmsLoop.FlowWork.replying(
                BenchmarkFlow.nodeOutput(Domain.XML, SaleRecords.writeAs(SaleRecords.CSV))))) {
            assertEquals(SaleRecords.csvOfSize(4096).length, loop.applyAsInt(sale), "the records written are the reply");
        }
    }
}
