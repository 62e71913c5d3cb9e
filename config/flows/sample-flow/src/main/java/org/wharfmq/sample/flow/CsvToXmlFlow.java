package org.wharfmq.sample.flow;

import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.FlowFactory;
import org.wharfmq.flow.node.ConvertNode;
import org.wharfmq.flow.node.InputNode;
import org.wharfmq.flow.node.OutputNode;
import org.wharfmq.flow.records.CsvFormat;

/**
 * The records sample: CSV orders turned into XML (seed 000's format conversion).
 *
 * <ul>
 *   <li>{@code ORDERS.CSV}: CSV bodies whose first line names the columns, e.g. {@code id,name,qty}, one record or
 *       many per message.</li>
 *   <li>Each becomes {@code <Orders><Order><id>1</id><name>Ann</name><qty>3</qty></Order>...</Orders>} on
 *       {@code ORDERS.XML}, with the input's properties.</li>
 *   <li>A body that is not such CSV (a quote never closed, a record with too few or too many values) goes to
 *       {@code ORDERS.CSV.BAD} as it came, with the record and line at fault in its {@code WharfExceptionList}
 *       property.</li>
 * </ul>
 */
public final class CsvToXmlFlow implements FlowFactory {

    /** Where the CSV orders arrive. */
    public static final String INPUT_QUEUE = "ORDERS.CSV";
    /** Where the XML orders go. */
    public static final String OUTPUT_QUEUE = "ORDERS.XML";
    /** Where bodies that are not CSV go. */
    public static final String BAD_QUEUE = "ORDERS.CSV.BAD";

    @Override
    public FlowDefinition create() {
        return FlowDefinition.builder("csv-to-xml")
                .node("in", InputNode.queue(INPUT_QUEUE).records(CsvFormat.withHeader()).backoutQueue(BAD_QUEUE)
                        .backoutThreshold(1)) // parsing again cannot help
                .node("toXml", ConvertNode.toXml("Orders", "Order"))
                .node("out", OutputNode.queue(OUTPUT_QUEUE))
                .wire("in", "out", "toXml")
                .wire("toXml", "out", "out")
                .build();
    }
}
