package org.wharfmq.server.flow;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.TransactionMode;
import org.wharfmq.flow.node.InputNode;
import org.wharfmq.flow.node.OutputNode;
import org.wharfmq.flow.runtime.RunningFlow;

import javax.jms.Message;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Transaction modes yes/no/automatic with persistent and non-persistent input. The compute node sends its output
 * and then fails on the first delivery. Transactional: the output is rolled back with the get and the retry's
 * output is the only one (attempt 2). Not transactional: the first output is visible at once, the message is not
 * retried but backed out (here to the dead-letter queue).
 */
class FlowTransactionModeTest {

    private FlowFixture fixture;

    @BeforeEach
    void start() throws Exception {
        fixture = new FlowFixture();
    }

    @AfterEach
    void stop() throws Exception {
        fixture.close();
    }

    @ParameterizedTest(name = "mode {0}, persistent {1} -> transactional {2}")
    @CsvSource({
            "YES, true, true",
            "YES, false, true",
            "NO, true, false",
            "NO, false, false",
            "AUTOMATIC, true, true",
            "AUTOMATIC, false, false"})
    void transactionModeDecidesWhetherAFailureRollsBackTheOutputs(TransactionMode mode, boolean persistent,
                                                                  boolean transactional) throws Exception {
        RunningFlow flow = fixture.run(FlowDefinition.builder("tx")
                .node("in", InputNode.queue("IN").transactionMode(mode).backoutThreshold(3))
                .node("compute", new FailOnMessage(-1, true))
                .node("out", OutputNode.queue("OUT"))
                .wire("in", "out", "compute")
                .wire("compute", "out", "out")
                .build(), 1);
        fixture.send("IN", "payload", persistent, "seq", 1);

        Message output = fixture.receiveOne("OUT");
        if (transactional) {
            assertEquals(2, output.getIntProperty("attempt"), "the first attempt's output was rolled back");
        } else {
            assertEquals(1, output.getIntProperty("attempt"), "a non-transactional output is visible at once");
            Message backedOut = fixture.receiveOne(RunningFlow.DEAD_LETTER_QUEUE);
            assertEquals(1, backedOut.getIntProperty("seq"));
        }
        assertEquals(persistent ? javax.jms.DeliveryMode.PERSISTENT : javax.jms.DeliveryMode.NON_PERSISTENT,
                output.getJMSDeliveryMode(), "the output keeps the input's persistence");
        flow.close();
        assertEquals(0, fixture.depth("OUT"), "exactly one output");
        assertEquals(0, fixture.depth("IN"));
        assertEquals(0, fixture.depth(RunningFlow.DEAD_LETTER_QUEUE), "nothing (else) was dead-lettered");
        assertEquals(1, flow.statistics().failures());
        assertEquals(transactional ? 0 : 1, flow.statistics().backouts());
    }
}
