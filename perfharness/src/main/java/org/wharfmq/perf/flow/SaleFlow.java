package org.wharfmq.perf.flow;

import org.wharfmq.flow.Domain;
import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.FlowFactory;
import org.wharfmq.flow.ParseTiming;
import org.wharfmq.flow.Node;
import org.wharfmq.flow.TransactionMode;
import org.wharfmq.flow.XmlSchema;
import org.wharfmq.flow.node.InputNode;
import org.wharfmq.flow.node.OutputNode;
import org.wharfmq.flow.records.RecordFormat;

import java.net.URL;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * The flows of the XML and records broker workloads (F-PARSE, F-WRITE, F-VALID, F-FILTER-*, F-ROUTE, F-COMPUTE, F-XSLT,
 * F-CSV-*, F-FIXED-*), shaped as seed 002's test flows: an input node in the XML domain (XMLNSC; RECORDS for the
 * records parse workloads), at most one node doing the work, an output
 * node. Transaction mode AUTOMATIC, as F-PASS: a persistent input is got and its output put in one transaction.
 * The requesters' correlation ids and properties pass through every node, so each requester finds its output.
 */
public final class SaleFlow implements FlowFactory {

    /** The seed's schema for the sale message, a resource of the harness. */
    static final URL SCHEMA = resource("wmb-sale.xsd");
    /** The seed's stylesheet ("XML Transformation"), a resource of the harness. */
    static final URL STYLESHEET = resource("wmb-transform.xsl");

    private final String name;
    private final UnaryOperator<InputNode> inputSettings;
    private final Supplier<Node> work;
    private final String terminal;

    private SaleFlow(String name, UnaryOperator<InputNode> inputSettings, Supplier<Node> work, String terminal) {
        this.name = name;
        this.inputSettings = inputSettings;
        this.work = work;
        this.terminal = terminal;
    }

    /**
     * Input → the node {@code work} makes → output, wired from the node's {@code terminal}. A supplier, because a
     * node object belongs to one flow and {@link #create()} may be called for each deployment.
     */
    static SaleFlow through(String name, Supplier<Node> work, String terminal) {
        return new SaleFlow(name, UnaryOperator.identity(), work, terminal);
    }

    /**
     * As {@link #through}, the input parsing on demand ({@link ParseTiming#ON_DEMAND}, XMLNSC's default, which the
     * seed's filter and route flows ran with): a condition reads the body only as far as its answer.
     */
    static SaleFlow onDemandThrough(String name, Supplier<Node> work, String terminal) {
        return new SaleFlow(name, input -> input.parseTiming(ParseTiming.ON_DEMAND), work, terminal);
    }

    /**
     * As {@link #through}, the input parsing the element at {@code path} opaquely (seed 002, "Filtering on the last
     * element of an XML Message using Opaque Parsing": the repeating SaleLists).
     */
    static SaleFlow opaqueThrough(String name, String path, Supplier<Node> work, String terminal) {
        return new SaleFlow(name, input -> input.opaque(path), work, terminal);
    }

    /** As {@link #through}, the input in the RECORDS domain laid out in {@code format}. */
    static SaleFlow recordsThrough(String name, RecordFormat format, Supplier<Node> work, String terminal) {
        return new SaleFlow(name, input -> input.records(format), work, terminal);
    }

    /** Input validating against the sale schema → output (seed 002, "Validating an XML Message on Input"). */
    static SaleFlow validatingOnInput(String name) {
        return new SaleFlow(name, input -> input.validate(XmlSchema.compile(SCHEMA)), null, null);
    }

    /** The flow's name, the workload id. */
    public String name() {
        return name;
    }

    /** Where the clients put the input: {@code F-XSLT} reads {@code F.XSLT.IN}. */
    public String inputQueue() {
        return queuePrefix() + ".IN";
    }

    /** Where the clients take the output. */
    public String outputQueue() {
        return queuePrefix() + ".OUT";
    }

    private String queuePrefix() {
        return name.replace('-', '.');
    }

    @Override
    public FlowDefinition create() {
        InputNode input = inputSettings.apply(InputNode.queue(inputQueue()).domain(Domain.XML)
                .transactionMode(TransactionMode.AUTOMATIC));
        FlowDefinition.Builder flow = FlowDefinition.builder(name)
                .node("in", input)
                .node("out", OutputNode.queue(outputQueue()));
        if (work == null) {
            return flow.wire("in", "out", "out").build();
        }
        return flow.node("work", work.get())
                .wire("in", "out", "work")
                .wire("work", terminal, "out")
                .build();
    }

    private static URL resource(String name) {
        URL url = SaleFlow.class.getResource(name);
        if (url == null) {
            throw new IllegalStateException(name + " is missing from the perf harness jar");
        }
        return url;
    }
}
