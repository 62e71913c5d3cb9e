package org.wharfmq.perf.flow;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import net.sf.saxon.s9api.XdmNode;
import net.sf.saxon.s9api.XdmNodeKind;
import org.wharfmq.flow.Domain;
import org.wharfmq.flow.FlowMessage;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.records.CsvFormat;
import org.wharfmq.flow.records.FixedFormat;
import org.wharfmq.flow.records.RecordFormat;

import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * The records workloads' data (F-CSV-PARSE, F-CSV-WRITE, F-FIXED-PARSE, F-FIXED-WRITE): the sale message's items as
 * records, one per Item with its Invoice's customer and currency, as seed 002 represented its message in TDS and
 * CWF. A records message of a size holds the items of the sale message of that size, so it is smaller than the XML
 * (the seed's 4K XML was 3K of TDS and 1K of CWF), and the same records whatever the format.
 */
public final class SaleRecords {

    /** CSV with a header line: Surname, Initials, Codes, Description, Category, Price, Quantity, Currency. */
    public static final CsvFormat CSV = CsvFormat.withHeader();
    /** The items as 100-byte fixed-length records (Custom Wire Format). */
    public static final FixedFormat FIXED = FixedFormat.builder(100)
            .string("Surname", 0, 20)
            .string("Initials", 20, 4)
            .string("Codes", 24, 8)
            .string("Description", 32, 30)
            .string("Category", 62, 20)
            .decimal("Price", 82, 6, 2)
            .integer("Quantity", 88, 4)
            .string("Currency", 92, 8)
            .build();
    /** The last record's last field, which the parse workloads read: reading it needs every record parsed. */
    static final String LAST_FIELD = "Currency";
    private static final byte[] NO_PAYLOAD = new byte[0];

    private SaleRecords() {
    }

    /** The items of the sale message of about {@code size} bytes, as CSV. */
    public static byte[] csvOfSize(int size) {
        return CSV.write(ofSale(FlowMessage.ofBytes(Domain.XML, SaleMessage.ofSize(size)).xml()));
    }

    /** The items of the sale message of about {@code size} bytes, as fixed-length records. */
    public static byte[] fixedOfSize(int size) {
        return FIXED.write(ofSale(FlowMessage.ofBytes(Domain.XML, SaleMessage.ofSize(size)).xml()));
    }

    /**
     * F-CSV-PARSE and F-FIXED-PARSE (seed 002, "Parsing a Tagged Delimited String, Fixed Length Input Message" and
     * "Parsing a Custom Wire Format Input Message"): the headers copied, a variable set to the last record's last
     * field (a full parse), no payload out. The value goes out as property {@code Last}.
     */
    static MessageAssembly readLast(MessageAssembly input) {
        ArrayNode records = input.message().records();
        MessageAssembly out = input.copy();
        out.message().setUserProperty("Last", records.get(records.size() - 1).get(LAST_FIELD).asText());
        out.message().setBody(NO_PAYLOAD);
        return out;
    }

    /**
     * F-CSV-WRITE and F-FIXED-WRITE (seed 002, "Writing a Tagged Delimited String, Fixed Length Output Message" and
     * "Writing a Custom Wire Format Output Message"): the headers copied, the sale message (XML) turned into its
     * items' records, written out in {@code format}.
     */
    static UnaryOperator<MessageAssembly> writeAs(RecordFormat format) {
        return input -> {
            MessageAssembly out = input.copy();
            out.message().setRecords(format, ofSale(input.message().xml()));
            return out;
        };
    }

    /** One record per Item of the sale message's document node. */
    static ArrayNode ofSale(XdmNode document) {
        ArrayNode records = JsonNodeFactory.instance.arrayNode();
        for (XdmNode parent : children(document, "Parent")) {
            for (XdmNode saleList : children(parent, "SaleList")) {
                for (XdmNode invoice : children(saleList, "Invoice")) {
                    String surname = text(invoice, "Surname");
                    String initials = text(invoice, "Initial");
                    String currency = text(invoice, "Currency");
                    for (XdmNode item : children(invoice, "Item")) {
                        ObjectNode record = records.addObject();
                        record.put("Surname", surname);
                        record.put("Initials", initials);
                        record.put("Codes", text(item, "Code"));
                        record.put("Description", text(item, "Description"));
                        record.put("Category", text(item, "Category"));
                        record.put("Price", text(item, "Price"));
                        record.put("Quantity", text(item, "Quantity"));
                        record.put("Currency", currency);
                    }
                }
            }
        }
        return records;
    }

    private static List<XdmNode> children(XdmNode node, String name) {
        List<XdmNode> found = new ArrayList<>();
        for (XdmNode child : node.children()) {
            if (child.getNodeKind() == XdmNodeKind.ELEMENT && child.getNodeName().getLocalName().equals(name)) {
                found.add(child);
            }
        }
        return found;
    }

    /** The text of every child {@code name}, joined (an Invoice's Initials, an Item's Codes). */
    private static String text(XdmNode node, String name) {
        StringBuilder text = new StringBuilder();
        for (XdmNode child : children(node, name)) {
            text.append(child.getStringValue());
        }
        return text.toString();
    }
}
