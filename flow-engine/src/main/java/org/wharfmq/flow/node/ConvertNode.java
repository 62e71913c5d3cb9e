package org.wharfmq.flow.node;

import com.fasterxml.jackson.databind.node.ArrayNode;
import org.wharfmq.flow.Domain;
import org.wharfmq.flow.FlowContext;
import org.wharfmq.flow.FlowValidationException;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.Node;
import org.wharfmq.flow.RecordConversions;
import org.wharfmq.flow.records.RecordFormat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Converts the body between the records, XML and JSON domains (seed 000's format conversion): the message's
 * records, however its domain holds them ({@link RecordConversions}), become the body in the target domain; the
 * headers and properties pass unchanged. A body that cannot be read or converted goes to {@code failure} with the
 * reason (the record, line and field), or fails the path when {@code failure} is unwired.
 *
 * <pre>{@code
 * .node("in", InputNode.queue("ORDERS.CSV").records(CsvFormat.withHeader()))
 * .node("toXml", ConvertNode.toXml("Orders", "Order"))
 * }</pre>
 */
public final class ConvertNode extends Node {

    private final Domain target;
    private final RecordFormat format;
    private final String root;
    private final String record;

    private ConvertNode(Domain target, RecordFormat format, String root, String record) {
        super("Convert", List.of("in"), List.of("out", "failure"));
        this.target = target;
        this.format = format;
        this.root = root;
        this.record = record;
    }

    /** To XML: {@code <Records><Record><field>value</field>...</Record>...</Records>}. */
    public static ConvertNode toXml() {
        return toXml(RecordConversions.ROOT, RecordConversions.RECORD);
    }

    /** To XML with these element names for the root and for each record. */
    public static ConvertNode toXml(String root, String record) {
        return new ConvertNode(Domain.XML, null, root, record);
    }

    /** To JSON: an array of objects, one per record. */
    public static ConvertNode toJson() {
        return new ConvertNode(Domain.JSON, null, null, null);
    }

    /** To records written in {@code format} (CSV or fixed-length), from XML, JSON or records in another format. */
    public static ConvertNode toRecords(RecordFormat format) {
        return new ConvertNode(Domain.RECORDS, format, null, null);
    }

    @Override
    public Map<String, Object> properties() {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("to", target);
        if (format != null) {
            p.put("format", format);
        }
        if (root != null) {
            p.put("root", root);
            p.put("record", record);
        }
        return p;
    }

    @Override
    protected void validate() {
        if (target == Domain.RECORDS && format == null) {
            throw new FlowValidationException("a Convert node to records needs a record format.");
        }
        if (target == Domain.XML && (root == null || root.isBlank() || record == null || record.isBlank())) {
            throw new FlowValidationException("a Convert node to XML needs the root's and the records' element names.");
        }
    }

    @Override
    public void receive(String terminal, MessageAssembly assembly, FlowContext context) throws Exception {
        MessageAssembly out;
        try {
            out = convert(assembly);
        } catch (RuntimeException e) {
            propagateFailure(assembly, e, context);
            return;
        }
        context.propagate(this, "out", out);
    }

    private MessageAssembly convert(MessageAssembly assembly) {
        ArrayNode records = RecordConversions.records(assembly.message());
        MessageAssembly out = assembly.copy();
        switch (target) {
            case XML -> out.message().setXml(RecordConversions.toXml(records, root, record));
            case JSON -> out.message().setJson(records);
            case RECORDS -> {
                // written here, once, so that a value the format cannot hold fails this node, not the output
                byte[] written = format.write(records);
                out.message().setRecords(format, records);
                if (out.message().isTextBody()) {
                    out.message().setBody(new String(written, format.charset()));
                } else {
                    out.message().setBody(written);
                }
            }
            default -> throw new AssertionError(target);
        }
        return out;
    }
}
