package org.wharfmq.sample.flow;

import org.wharfmq.flow.Domain;
import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.FlowFactory;
import org.wharfmq.flow.XmlSchema;
import org.wharfmq.flow.node.FilterNode;
import org.wharfmq.flow.node.InputNode;
import org.wharfmq.flow.node.OutputNode;
import org.wharfmq.flow.node.XsltNode;

/**
 * The XML sample: the broker reports' sale message, validated, filtered and turned into customer statements.
 *
 * <ul>
 *   <li>{@code SALES}: sale messages in the XML domain, each validated against {@code sale.xsd} (the reports'
 *       schema); one that is not well-formed or not valid goes to {@code SALES.BAD} at once, with the parser's
 *       reason in its {@code WharfExceptionList} property.</li>
 *   <li>A filter keeps the reports' test messages ({@code /Parent/Last = 'Test'}) apart: they go to
 *       {@code SALES.TEST} unchanged.</li>
 *   <li>Every other sale goes through {@code statement.xsl} (the reports' XSLT sample: a statement per invoice,
 *       with its total) to {@code SALES.STATEMENTS}.</li>
 * </ul>
 *
 * The schema and stylesheet are resources of this jar, compiled when the flow is deployed: a broken one stops the
 * deployment with Xerces' or Saxon's reason rather than failing every message.
 */
public final class SaleStatementFlow implements FlowFactory {

    /** Where the sales arrive. */
    public static final String INPUT_QUEUE = "SALES";
    /** Where malformed and invalid sales go. */
    public static final String BAD_QUEUE = "SALES.BAD";
    /** Where the test messages go. */
    public static final String TEST_QUEUE = "SALES.TEST";
    /** Where the statements go. */
    public static final String STATEMENT_QUEUE = "SALES.STATEMENTS";

    @Override
    public FlowDefinition create() {
        XmlSchema sales = XmlSchema.compile(getClass().getResource("sale.xsd"));
        return FlowDefinition.builder("sale-statements")
                .node("in", InputNode.queue(INPUT_QUEUE).domain(Domain.XML).validate(sales)
                        .backoutQueue(BAD_QUEUE))
                .node("isTest", new FilterNode("/Parent/Last = 'Test'"))
                .node("statement", XsltNode.of(getClass().getResource("statement.xsl")))
                .node("tests", OutputNode.queue(TEST_QUEUE))
                .node("statements", OutputNode.queue(STATEMENT_QUEUE))
                .wire("in", "out", "isTest")
                .wire("isTest", "true", "tests")
                .wire("isTest", "false", "statement")
                .wire("statement", "out", "statements")
                .build();
    }
}
