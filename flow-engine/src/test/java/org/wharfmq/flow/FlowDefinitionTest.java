package org.wharfmq.flow;

import org.junit.jupiter.api.Test;
import org.wharfmq.flow.node.FileInputNode;
import org.wharfmq.flow.node.FileOutputNode;
import org.wharfmq.flow.node.InputNode;
import org.wharfmq.flow.node.JmsInputNode;
import org.wharfmq.flow.node.JmsOutputNode;
import org.wharfmq.flow.node.LabelNode;
import org.wharfmq.flow.node.OutputNode;
import org.wharfmq.flow.node.PassthroughNode;
import org.wharfmq.flow.node.TraceNode;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Deploy-time validation of flow definitions, and the wiring a valid one resolves to. */
class FlowDefinitionTest {

    private static final class Copy extends JavaComputeNode {
        @Override
        public void evaluate(MessageAssembly assembly) throws Exception {
            propagate("out", assembly.copy());
        }
    }

    @Test
    void validFlowResolvesWiresInOrder() {
        OutputNode a = OutputNode.queue("A");
        OutputNode b = OutputNode.queue("B");
        FlowDefinition flow = FlowDefinition.builder("f")
                .node("in", InputNode.queue("IN"))
                .node("a", a).node("b", b)
                .wire("in", "out", "a").wire("in", "out", "b")
                .build();
        InputNode in = flow.inputNodes().get(0);
        assertEquals(List.of(new FlowDefinition.Target(a, "in"), new FlowDefinition.Target(b, "in")),
                flow.targets(in, "out"));
        assertEquals(List.of(), flow.targets(in, "failure"), "an unwired terminal has no targets");
        assertEquals("in", in.name());
    }

    @Test
    void missingInputNodeIsRejected() {
        FlowValidationException e = assertThrows(FlowValidationException.class, () -> FlowDefinition.builder("f")
                .node("out", OutputNode.queue("OUT")).build());
        assertTrue(e.getMessage().contains("Flow 'f' has no input node"), e.getMessage());
    }

    @Test
    void aJmsInputNodeIsAnInputAndItsSettingsAreChecked() {
        FlowDefinition flow = FlowDefinition.builder("f")
                .node("in", JmsInputNode.from("artemis", "jms/orders"))
                .node("out", JmsOutputNode.to("artemis", "jms/copies"))
                .wire("in", "out", "out").build();
        assertEquals(List.of("in", "out"), List.copyOf(flow.nodes().keySet()));
        FlowValidationException automatic = assertThrows(FlowValidationException.class, () -> FlowDefinition
                .builder("f").node("in", JmsInputNode.from("artemis", "jms/orders")
                        .transactionMode(TransactionMode.AUTOMATIC)).build());
        assertTrue(automatic.getMessage().contains("transactionMode is YES or NO, not AUTOMATIC"),
                automatic.getMessage());
        FlowValidationException noDestination = assertThrows(FlowValidationException.class, () -> FlowDefinition
                .builder("f").node("in", JmsInputNode.from("artemis", " ")).build());
        assertTrue(noDestination.getMessage().contains("needs the JNDI name of a destination"),
                noDestination.getMessage());
        assertEquals(Duration.ofSeconds(5), JmsInputNode.from("artemis", "jms/orders").receiveTimeout());
        for (Duration refused : new Duration[] {Duration.ofMillis(99), Duration.ofSeconds(31), Duration.ZERO}) {
            FlowValidationException timeout = assertThrows(FlowValidationException.class, () -> FlowDefinition
                    .builder("f").node("in", JmsInputNode.from("artemis", "jms/orders").receiveTimeout(refused))
                    .build());
            assertTrue(timeout.getMessage().contains("receiveTimeout is from 100 ms to 30 s")
                    && timeout.getMessage().contains("not " + refused.toMillis() + " ms."), timeout.getMessage());
        }
    }

    @Test
    void unknownOutputTerminalIsRejectedNamingTheTerminalsThereAre() {
        FlowValidationException e = assertThrows(FlowValidationException.class, () -> FlowDefinition.builder("f")
                .node("in", InputNode.queue("IN")).node("out", OutputNode.queue("OUT"))
                .wire("in", "outt", "out").build());
        assertTrue(e.getMessage().contains("has no output terminal 'outt'") && e.getMessage().contains("[out, failure]"),
                e.getMessage());
    }

    @Test
    void unknownInputTerminalAndUnknownNodeAreRejected() {
        FlowValidationException terminal = assertThrows(FlowValidationException.class, () -> FlowDefinition.builder("f")
                .node("in", InputNode.queue("IN")).node("out", OutputNode.queue("OUT"))
                .wire("in", "out", "out", "input").build());
        assertTrue(terminal.getMessage().contains("has no input terminal 'input'"), terminal.getMessage());
        FlowValidationException node = assertThrows(FlowValidationException.class, () -> FlowDefinition.builder("f")
                .node("in", InputNode.queue("IN")).wire("in", "out", "nowhere").build());
        assertTrue(node.getMessage().contains("no node named 'nowhere'"), node.getMessage());
    }

    @Test
    void cycleWithoutLoopGuardIsRejectedNamingTheCycle() {
        FlowValidationException e = assertThrows(FlowValidationException.class, () -> FlowDefinition.builder("f")
                .node("in", InputNode.queue("IN"))
                .node("p1", new PassthroughNode()).node("p2", TraceNode.toLog())
                .wire("in", "out", "p1").wire("p1", "out", "p2").wire("p2", "out", "p1").build());
        assertTrue(e.getMessage().contains("cycle without a loop guard: p1 -> p2 -> p1"), e.getMessage());
    }

    @Test
    void cycleThroughAComputeNodeIsAllowed() {
        FlowDefinition flow = FlowDefinition.builder("f")
                .node("in", InputNode.queue("IN"))
                .node("p1", new PassthroughNode()).node("c", new Copy())
                .wire("in", "out", "p1").wire("p1", "out", "c").wire("c", "out", "p1").build();
        assertEquals(3, flow.nodes().size());
    }

    @Test
    void nodeSettingsAndNamesAreChecked() {
        assertThrows(FlowValidationException.class, () -> FlowDefinition.builder("f")
                .node("in", InputNode.queue("IN").backoutThreshold(0)).build());
        assertThrows(FlowValidationException.class, () -> FlowDefinition.builder("f")
                .node("in", InputNode.queue("IN")).node("in", new PassthroughNode()));
        FlowValidationException labels = assertThrows(FlowValidationException.class, () -> FlowDefinition.builder("f")
                .node("in", InputNode.queue("IN")).node("l1", new LabelNode("x")).node("l2", new LabelNode("x"))
                .build());
        assertTrue(labels.getMessage().contains("label 'x' is used by two Label nodes"), labels.getMessage());
        PassthroughNode shared = new PassthroughNode();
        assertThrows(FlowValidationException.class, () -> FlowDefinition.builder("f").node("a", shared).node("b", shared));
    }

    @Test
    void aFileInputIsAnInputNodeAndFileNodeSettingsAreChecked() {
        FlowDefinition.builder("f").node("in", FileInputNode.directory("in")).build();
        assertRefused(FileInputNode.directory("in").transactionMode(TransactionMode.AUTOMATIC), "transactionMode is YES or NO");
        assertRefused(FileInputNode.directory("in").recordLength(0), "recordLength must be at least 1");
        assertRefused(FileInputNode.directory("in").archive(java.nio.file.Path.of("in")), "three different folders");
        assertRefused(FileOutputNode.directory("out").name("out.txt"), "a name pattern with {seq}");
        assertRefused(FileOutputNode.directory("out").name("../x-{seq}"), "no separator");
        assertRefused(FileOutputNode.directory("out").maxRecords(0), "maxRecords and maxBytes must be at least 1");
    }

    private static void assertRefused(Node node, String reason) {
        FlowDefinition.Builder flow = FlowDefinition.builder("f");
        if (node instanceof FileOutputNode) {
            flow.node("in", InputNode.queue("IN"));
        }
        FlowValidationException e = assertThrows(FlowValidationException.class, () -> flow.node("n", node).build());
        assertTrue(e.getMessage().contains("node 'n': ") && e.getMessage().contains(reason), e.getMessage());
    }
}
