package org.wharfmq.server.flow;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.wharfmq.flow.ExceptionList;
import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.TransactionMode;
import org.wharfmq.flow.node.InputNode;
import org.wharfmq.flow.node.OutputNode;
import org.wharfmq.flow.runtime.RunningFlow;
import org.wharfmq.server.queue.DeadLetters;

import javax.jms.Message;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A node throws on the 5th of 10 messages: that message ends on the failure terminal, the backout queue or the
 * dead-letter queue, after being tried backoutThreshold times; the other nine pass; no output of a failed
 * invocation is ever visible.
 */
class FlowBackoutTest {

    private static final int MESSAGES = 10;
    private static final int FAILING = 5;
    private static final int THRESHOLD = 2;

    private FlowFixture fixture;

    @BeforeEach
    void start() throws Exception {
        fixture = new FlowFixture();
    }

    @AfterEach
    void stop() throws Exception {
        fixture.close();
    }

    @Test
    void flowsDeadLetterToTheQueueManagersDeadLetterQueue() {
        // the flow engine runs against any JMS provider, so it cannot use the server's constant: it repeats the name
        assertEquals(DeadLetters.QUEUE, RunningFlow.DEAD_LETTER_QUEUE);
    }

    @Test
    void failingMessageGoesToTheFailureTerminal() throws Exception {
        FlowDefinition flow = flow(InputNode.queue("IN").backoutQueue("IN.BACKOUT"), true);
        Message failed = runAndCollect(flow, "FAILED");
        assertEquals(FAILING, failed.getIntProperty("seq"));
        assertEquals(0, fixture.depth("IN.BACKOUT"));
        assertEquals(0, fixture.depth(RunningFlow.DEAD_LETTER_QUEUE));
    }

    @Test
    void failingMessageGoesToTheBackoutQueueWhenNoFailureTerminal() throws Exception {
        FlowDefinition flow = flow(InputNode.queue("IN").backoutQueue("IN.BACKOUT"), false);
        Message failed = runAndCollect(flow, "IN.BACKOUT");
        assertEquals(FAILING, failed.getIntProperty("seq"));
        assertTrue(failed.getStringProperty(ExceptionList.PROPERTY).contains("boom on seq 5"),
                failed.getStringProperty(ExceptionList.PROPERTY));
        assertEquals(0, fixture.depth(RunningFlow.DEAD_LETTER_QUEUE));
    }

    @Test
    void failingMessageGoesToTheDeadLetterQueueWhenNothingElse() throws Exception {
        FlowDefinition flow = flow(InputNode.queue("IN"), false);
        Message failed = runAndCollect(flow, RunningFlow.DEAD_LETTER_QUEUE);
        assertEquals(FAILING, failed.getIntProperty("seq"));
        assertTrue(failed.getStringProperty(ExceptionList.PROPERTY).contains("JavaCompute"),
                failed.getStringProperty(ExceptionList.PROPERTY));
    }

    private FlowDefinition flow(InputNode input, boolean failureTerminal) {
        FlowDefinition.Builder builder = FlowDefinition.builder("backout")
                .node("in", input.transactionMode(TransactionMode.YES).backoutThreshold(THRESHOLD))
                .node("compute", new FailOnMessage(FAILING, false))
                .node("out", OutputNode.queue("OUT"))
                .wire("in", "out", "compute")
                .wire("compute", "out", "out");
        if (failureTerminal) {
            builder.node("failed", OutputNode.queue("FAILED")).wire("in", "failure", "failed");
        }
        return builder.build();
    }

    /** Runs the flow over 10 messages; returns the one backed out to {@code backoutDestination}. */
    private Message runAndCollect(FlowDefinition definition, String backoutDestination) throws Exception {
        RunningFlow flow = fixture.run(definition, 1);
        for (int seq = 1; seq <= MESSAGES; seq++) {
            fixture.send("IN", "message " + seq, true, "seq", seq);
        }
        Set<Integer> passed = new TreeSet<>();
        for (Message m : fixture.receive("OUT", MESSAGES - 1)) {
            passed.add(m.getIntProperty("seq"));
            assertEquals(1, m.getIntProperty("attempt"), "a message that passed was tried once");
        }
        Message failed = fixture.receiveOne(backoutDestination);
        flow.close();
        assertEquals(Set.of(1, 2, 3, 4, 6, 7, 8, 9, 10), passed);
        assertEquals(0, fixture.depth("OUT"), "an output of a failed invocation became visible");
        assertEquals(0, fixture.depth("IN"));
        assertEquals(THRESHOLD, flow.statistics().failures(), "the failing message is tried backoutThreshold times");
        assertEquals(1, flow.statistics().backouts());
        return failed;
    }
}
