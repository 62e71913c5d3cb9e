package org.wharfmq.server.flow;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.flow.Domain;
import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.FlowMessage;
import org.wharfmq.flow.JavaComputeNode;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.node.InputNode;
import org.wharfmq.flow.node.LabelNode;
import org.wharfmq.flow.node.OutputNode;
import org.wharfmq.flow.node.PassthroughNode;
import org.wharfmq.flow.node.PublicationNode;
import org.wharfmq.flow.node.RouteToLabelNode;
import org.wharfmq.flow.node.ThrowNode;
import org.wharfmq.flow.node.TraceNode;
import org.wharfmq.flow.node.TryCatchNode;
import org.wharfmq.flow.runtime.RunningFlow;
import org.wharfmq.server.it.Receive;

import javax.jms.BytesMessage;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Topic;
import javax.jms.TextMessage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Each node's terminal behaviour, in flows over a real server. */
class FlowNodesTest {

    private FlowFixture fixture;

    @BeforeEach
    void start() throws Exception {
        fixture = new FlowFixture();
    }

    @AfterEach
    void stop() throws Exception {
        fixture.close();
    }

    /** A compute node made of a lambda, for short tests. */
    private static JavaComputeNode compute(ThrowingConsumer body) {
        return new JavaComputeNode() {
            @Override
            public void evaluate(MessageAssembly assembly) throws Exception {
                body.accept(this, assembly);
            }
        };
    }

    @FunctionalInterface
    private interface ThrowingConsumer {
        void accept(JavaComputeNode node, MessageAssembly assembly) throws Exception;
    }

    @Test
    void passthroughAndBlobKeepTheBodyBytesExactly() throws Exception {
        fixture.run(FlowDefinition.builder("pass")
                .node("in", InputNode.queue("IN"))
                .node("pass", new PassthroughNode())
                .node("out", OutputNode.queue("OUT"))
                .wire("in", "out", "pass").wire("pass", "out", "out").build(), 1);
        byte[] body = {0, 1, 2, (byte) 0xff, 42};
        fixture.sendBytes("IN", body);
        BytesMessage out = (BytesMessage) fixture.receiveOne("OUT");
        byte[] read = new byte[(int) out.getBodyLength()];
        out.readBytes(read);
        assertArrayEquals(body, read);
    }

    @Test
    void routeToLabelGoesToTheLabelOfTheValueElseToDefault() throws Exception {
        fixture.run(FlowDefinition.builder("route")
                .node("in", InputNode.queue("IN"))
                .node("route", RouteToLabelNode.byUserProperty("kind"))
                .node("gold", new LabelNode("gold"))
                .node("silver", new LabelNode("silver"))
                .node("outGold", OutputNode.queue("OUT.GOLD"))
                .node("outSilver", OutputNode.queue("OUT.SILVER"))
                .node("outDefault", OutputNode.queue("OUT.DEFAULT"))
                .wire("in", "out", "route")
                .wire("route", "default", "outDefault")
                .wire("gold", "out", "outGold")
                .wire("silver", "out", "outSilver").build(), 1);
        fixture.send("IN", "a", false, "kind", "gold");
        fixture.send("IN", "b", false, "kind", "silver");
        fixture.send("IN", "c", false, "kind", "bronze");
        assertEquals("a", ((TextMessage) fixture.receiveOne("OUT.GOLD")).getText());
        assertEquals("b", ((TextMessage) fixture.receiveOne("OUT.SILVER")).getText());
        assertEquals("c", ((TextMessage) fixture.receiveOne("OUT.DEFAULT")).getText());
    }

    @Test
    void tryCatchSendsTheThrowNodesFailureToCatchWithTheExceptionList() throws Exception {
        fixture.run(FlowDefinition.builder("trycatch")
                .node("in", InputNode.queue("IN"))
                .node("try", new TryCatchNode())
                .node("throw", new ThrowNode("order rejected"))
                .node("handler", compute((node, a) -> {
                    MessageAssembly out = a.copy();
                    out.message().setUserProperty("error", a.exceptionList().render());
                    node.propagate("out", out);
                }))
                .node("out", OutputNode.queue("CAUGHT"))
                .wire("in", "out", "try")
                .wire("try", "try", "throw")
                .wire("try", "catch", "handler")
                .wire("handler", "out", "out").build(), 1);
        fixture.send("IN", "x", false, null, null);
        String error = fixture.receiveOne("CAUGHT").getStringProperty("error");
        assertTrue(error.contains("throw (Throw)") && error.contains("order rejected"), error);
    }

    @Test
    void computeFailureGoesToItsFailureTerminalButDownstreamFailuresDoNot() throws Exception {
        RunningFlow flow = fixture.run(FlowDefinition.builder("failure")
                .node("in", InputNode.queue("IN").backoutThreshold(1))
                .node("compute", compute((node, a) -> {
                    if ("fail-here".equals(a.message().bodyText())) {
                        throw new IllegalArgumentException("bad input");
                    }
                    node.propagate("out", a);
                }))
                .node("throw", new ThrowNode("downstream"))
                .node("failed", OutputNode.queue("COMPUTE.FAILED"))
                .wire("in", "out", "compute")
                .wire("compute", "out", "throw")
                .wire("compute", "failure", "failed").build(), 1);
        fixture.send("IN", "fail-here", true, null, null);
        assertEquals("fail-here", ((TextMessage) fixture.receiveOne("COMPUTE.FAILED")).getText());
        fixture.send("IN", "fail-below", true, null, null);
        assertEquals("fail-below", ((TextMessage) fixture.receiveOne(RunningFlow.DEAD_LETTER_QUEUE)).getText());
        flow.close();
        assertEquals(0, fixture.depth("COMPUTE.FAILED"), "the Throw node's failure bypassed the failure terminal");
    }

    @Test
    void topicInputAndPublicationNodeProcessEachPublicationOnceAcrossInstances() throws Exception {
        RunningFlow flow = fixture.run(FlowDefinition.builder("republish")
                .node("in", InputNode.topic("orders/+"))
                .node("stamp", compute((node, assembly) -> {
                    MessageAssembly copy = assembly.copy();
                    copy.message().properties().set(FlowMessage.TOPIC, "audit/"
                            + assembly.message().properties().getString(FlowMessage.TOPIC));
                    node.propagate("out", copy);
                }))
                .node("publish", new PublicationNode(null))
                .wire("in", "out", "stamp").wire("stamp", "out", "publish").build(), 4);
        MessageConsumer audit = fixture.session.createConsumer(fixture.session.createTopic("audit/#"));
        MessageProducer publisher = fixture.session.createProducer(null);
        int messages = 40;
        for (int i = 0; i < messages; i++) {
            publisher.send(fixture.session.createTopic("orders/" + (i % 2 == 0 ? "GBP" : "EUR")),
                    fixture.session.createTextMessage("order " + i));
        }
        publisher.send(fixture.session.createTopic("orders/GBP/late"), fixture.session.createTextMessage("no match"));
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < messages; i++) {
            TextMessage out = (TextMessage) audit.receive(10_000);
            assertTrue(out != null, "only " + i + " of " + messages + " publications came out of the flow");
            assertTrue(seen.add(out.getText()), "processed twice: " + out.getText());
            String currency = Integer.parseInt(out.getText().substring(6)) % 2 == 0 ? "GBP" : "EUR";
            assertEquals("audit/orders/" + currency, ((Topic) out.getJMSDestination()).getTopicName());
        }
        // 4 instances share one subscription: nothing is processed twice. A second processing could come at any
        // time; stopped (close lets the invocations in progress finish), the flow has published all it ever will,
        // so asking the server now is final
        flow.close();
        Receive.nothingMore(audit);
    }

    @Test
    void unwiredTerminalDiscardsTheMessage() throws Exception {
        RunningFlow flow = fixture.run(FlowDefinition.builder("discard")
                .node("in", InputNode.queue("IN"))
                .node("compute", compute((node, a) -> node.propagate(a.message().bodyText(), a)))
                .node("out", OutputNode.queue("OUT"))
                .wire("in", "out", "compute")
                .wire("compute", "out", "out").build(), 1);
        fixture.send("IN", "alternate", false, null, null); // unwired: discarded
        fixture.send("IN", "out", false, null, null);
        assertEquals("out", ((TextMessage) fixture.receiveOne("OUT")).getText(), "messages are processed in order");
        flow.close();
        assertEquals(0, fixture.depth("OUT"));
        assertEquals(0, fixture.depth("IN"));
        assertEquals(0, flow.statistics().failures());
        assertEquals(0, fixture.depth(RunningFlow.DEAD_LETTER_QUEUE));
    }

    @Test
    void outputRepliesToReplyToWithTheRequestIdAsCorrelationIdThenGoesOnToOut() throws Exception {
        fixture.run(FlowDefinition.builder("reply")
                .node("in", InputNode.queue("IN"))
                .node("reply", OutputNode.replyTo())
                .node("audit", OutputNode.queue("AUDIT"))
                .wire("in", "out", "reply")
                .wire("reply", "out", "audit").build(), 1);
        TextMessage request = fixture.session.createTextMessage("ping");
        request.setJMSReplyTo(fixture.session.createQueue("REPLY"));
        fixture.session.createProducer(fixture.session.createQueue("IN")).send(request);
        String selector = "JMSCorrelationID = '" + request.getJMSMessageID() + "'";
        try (MessageConsumer replies = fixture.session.createConsumer(fixture.session.createQueue("REPLY"), selector)) {
            Message reply = replies.receive(FlowFixture.RECEIVE_MILLIS);
            assertEquals("ping", ((TextMessage) reply).getText());
        }
        assertEquals("ping", ((TextMessage) fixture.receiveOne("AUDIT")).getText());
    }

    @Test
    void outputThatCannotSendGoesToItsFailureTerminal() throws Exception {
        fixture.run(FlowDefinition.builder("noReplyTo")
                .node("in", InputNode.queue("IN"))
                .node("reply", OutputNode.replyTo())
                .node("report", compute((node, a) -> {
                    MessageAssembly out = a.copy();
                    out.message().setUserProperty("error", a.exceptionList().render());
                    node.propagate("out", out);
                }))
                .node("failed", OutputNode.queue("NOT.SENT"))
                .wire("in", "out", "reply")
                .wire("reply", "failure", "report")
                .wire("report", "out", "failed").build(), 1);
        fixture.send("IN", "no reply-to", false, null, null);
        Message failed = fixture.receiveOne("NOT.SENT");
        assertEquals("no reply-to", ((TextMessage) failed).getText());
        assertTrue(failed.getStringProperty("error").contains("reply (Output)")
                && failed.getStringProperty("error").contains("no JMSReplyTo"), failed.getStringProperty("error"));
    }

    @Test
    void outputSendsToEveryQueueOfTheDestinationList() throws Exception {
        fixture.run(FlowDefinition.builder("list")
                .node("in", InputNode.queue("IN"))
                .node("compute", compute((node, a) -> {
                    MessageAssembly out = a.copy();
                    out.addDestination("D1").addDestination("D2");
                    node.propagate("out", out);
                }))
                .node("out", OutputNode.destinationList())
                .wire("in", "out", "compute")
                .wire("compute", "out", "out").build(), 1);
        fixture.send("IN", "fan", false, null, null);
        assertEquals("fan", ((TextMessage) fixture.receiveOne("D1")).getText());
        assertEquals("fan", ((TextMessage) fixture.receiveOne("D2")).getText());
    }

    @Test
    void jsonComputeChangesACopyOfTheTreeAndTheOutputSerialisesIt() throws Exception {
        fixture.run(FlowDefinition.builder("json")
                .node("in", InputNode.queue("IN").domain(Domain.JSON))
                .node("compute", compute((node, a) -> {
                    MessageAssembly out = a.copy();
                    ((ObjectNode) out.message().jsonForUpdate()).put("total", a.message().json().get("a").asInt() * 2);
                    node.propagate("out", out);
                    out.message().userProperties(); // reading after propagate is allowed
                }))
                .node("out", OutputNode.queue("OUT"))
                .wire("in", "out", "compute")
                .wire("compute", "out", "out").build(), 1);
        fixture.send("IN", "{\"a\":21}", false, null, null);
        assertEquals("{\"a\":21,\"total\":42}", ((TextMessage) fixture.receiveOne("OUT")).getText());
    }

    @Test
    void traceWritesToItsFileAndIsSwitchedOffWhileRunning(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("trace.txt");
        RunningFlow flow = fixture.run(FlowDefinition.builder("trace")
                .node("in", InputNode.queue("IN"))
                .node("trace", TraceNode.toFile(file))
                .node("out", OutputNode.queue("OUT"))
                .wire("in", "out", "trace")
                .wire("trace", "out", "out").build(), 1);
        fixture.send("IN", "first", false, "colour", "blue");
        fixture.receiveOne("OUT");
        String traced = Files.readString(file);
        assertTrue(traced.contains("Trace trace.trace:") && traced.contains("colour=blue") && traced.contains("first"),
                traced);
        flow.trace(false);
        fixture.send("IN", "second", false, null, null);
        fixture.receiveOne("OUT");
        assertEquals(traced, Files.readString(file), "nothing is traced while trace is off");
    }

    @Test
    void statisticsCountEveryNodeAndTimeEachNodeOnItsOwnWhenTimingIsOn() throws Exception {
        long spinNanos = TimeUnit.MILLISECONDS.toNanos(20);
        RunningFlow flow = fixture.run(FlowDefinition.builder("stats")
                .node("in", InputNode.queue("IN"))
                .node("compute", compute((node, a) -> {
                    long end = System.nanoTime() + spinNanos; // CPU work, so both clocks see it
                    while (System.nanoTime() < end) {
                        Thread.onSpinWait();
                    }
                    node.propagate("out", a);
                }))
                .node("out", OutputNode.queue("OUT"))
                .wire("in", "out", "compute")
                .wire("compute", "out", "out").build(), 1);
        fixture.send("IN", "untimed", false, null, null);
        fixture.receiveOne("OUT");
        assertEquals(0, flow.statistics().node("compute").elapsedNanos(), "timing is off by default");
        flow.statistics().timing(true);
        fixture.send("IN", "timed", false, null, null);
        fixture.receiveOne("OUT");
        flow.close();

        var stats = flow.statistics();
        assertEquals(2, stats.invocations());
        assertEquals(2, stats.node("in").invocations());
        assertEquals(2, stats.node("compute").invocations());
        assertEquals(2, stats.node("out").invocations());
        assertTrue(stats.node("compute").elapsedNanos() >= spinNanos, "compute elapsed " + stats.node("compute").elapsedNanos());
        // CPU time is only checked to be measured: on a busy machine the spinning thread is descheduled at times
        assertTrue(stats.node("compute").cpuNanos() > 0, "compute cpu " + stats.node("compute").cpuNanos());
        // each node's own time excludes the nodes it propagates to: the three nodes' own times add up to the input
        // node's whole time, within the invocation's (a node counting its successors' time too counts the compute
        // node's spin twice, past the invocation's); a comparison of clock readings, true however slow the machine
        long nodes = stats.node("in").elapsedNanos() + stats.node("compute").elapsedNanos()
                + stats.node("out").elapsedNanos();
        assertTrue(nodes <= stats.elapsedNanos(), "the nodes' own times add up to " + nodes + " ns, more than the"
                + " invocation's " + stats.elapsedNanos() + " ns: a node counted the time of the nodes after it");
        assertTrue(stats.elapsedNanos() >= spinNanos);
        assertTrue(stats.render("stats").contains("compute"), stats.render("stats"));
    }

    @Test
    void fourInstancesProcessConcurrently() throws Exception {
        CyclicBarrier allFour = new CyclicBarrier(4);
        fixture.run(FlowDefinition.builder("parallel")
                .node("in", InputNode.queue("IN"))
                .node("compute", compute((node, a) -> {
                    try {
                        allFour.await(10, TimeUnit.SECONDS); // only passes when 4 invocations run at once
                    } catch (BrokenBarrierException | TimeoutException e) {
                        throw new IllegalStateException("the 4 instances did not run concurrently", e);
                    }
                    MessageAssembly out = a.copy();
                    out.message().setUserProperty("thread", Thread.currentThread().getName());
                    node.propagate("out", out);
                }))
                .node("out", OutputNode.queue("OUT"))
                .wire("in", "out", "compute")
                .wire("compute", "out", "out").build(), 4);
        for (int i = 0; i < 4; i++) {
            fixture.send("IN", "m" + i, false, null, null);
        }
        java.util.Set<String> threads = new java.util.HashSet<>();
        for (Message m : fixture.receive("OUT", 4)) {
            threads.add(m.getStringProperty("thread"));
        }
        assertEquals(4, threads.size(), "four instance threads: " + threads);
    }
}
