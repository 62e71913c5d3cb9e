package org.wharfmq.flow;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import net.sf.saxon.s9api.XdmNode;
import net.sf.saxon.s9api.XdmNodeKind;
import org.w3c.dom.DOMException;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

import java.util.Iterator;
import java.util.Map;

/**
 * Records to and from the XML and JSON domains (seed 000's format conversion), as the Convert node uses them.
 *
 * <p>XML: a root element holding one element per record, each holding one element per field whose text is the
 * value: {@code <Records><Record><id>1</id><name>Ann</name></Record>...</Records>} (a null value is an empty
 * element). Read back, the root's child elements are the records whatever their names, and each one's child elements
 * its fields, as text. JSON: an array of objects, one per record, field name to value (one object is one record).
 */
public final class RecordConversions {

    /** The XML root element's name by default. */
    public static final String ROOT = "Records";
    /** The name of each record's element by default. */
    public static final String RECORD = "Record";

    private RecordConversions() {
    }

    /** The records of {@code message}, whatever its domain: RECORDS as parsed, JSON and XML as described above. */
    public static ArrayNode records(FlowMessage message) {
        return switch (message.domain()) {
            case RECORDS -> message.records();
            case JSON -> fromJson(message.json());
            case XML -> fromXml(message.xml());
            case BLOB -> throw new IllegalStateException("A BLOB body has no records: set the input node's domain "
                    + "(RECORDS with a record format, JSON or XML) to convert it.");
        };
    }

    /** Records as an XML document: {@code <root><record><field>value</field>...</record>...</root>}. */
    public static Document toXml(ArrayNode records, String root, String record) {
        Document document = Xml.newDocument();
        Element top = element(document, root, "root");
        document.appendChild(top);
        int number = 0;
        for (JsonNode value : records) {
            number++;
            if (!value.isObject()) {
                throw new IllegalArgumentException("Record " + number + " is " + value.getNodeType()
                        + ", not an object of fields: it has no XML form.");
            }
            Element element = element(document, record, "record");
            for (Iterator<Map.Entry<String, JsonNode>> fields = value.fields(); fields.hasNext(); ) {
                Map.Entry<String, JsonNode> field = fields.next();
                JsonNode v = field.getValue();
                if (v.isContainerNode()) {
                    throw new IllegalArgumentException("Record " + number + ", field '" + field.getKey() + "' is "
                            + v.getNodeType() + ": records hold one value per field.");
                }
                Element child = element(document, field.getKey(), "field of record " + number);
                if (!v.isNull()) {
                    child.setTextContent(v.asText());
                }
                element.appendChild(child);
            }
            top.appendChild(element);
        }
        return document;
    }

    private static Element element(Document document, String name, String what) {
        try {
            return document.createElement(name);
        } catch (DOMException e) {
            throw new IllegalArgumentException("'" + name + "' (" + what + ") is not an XML element name: rename it "
                    + "(a CSV header, a model's field name) to convert the records to XML.", e);
        }
    }

    /** The records of an XML document: the root's child elements, each one's child elements as text fields. */
    public static ArrayNode fromXml(XdmNode document) {
        JsonNodeFactory nodes = JsonNodeFactory.instance;
        ArrayNode records = nodes.arrayNode();
        XdmNode root = null;
        for (XdmNode child : document.children()) {
            if (child.getNodeKind() == XdmNodeKind.ELEMENT) {
                root = child;
                break;
            }
        }
        if (root == null) {
            return records;
        }
        for (XdmNode record : root.children()) {
            if (record.getNodeKind() != XdmNodeKind.ELEMENT) {
                continue;
            }
            ObjectNode fields = records.addObject();
            for (XdmNode field : record.children()) {
                if (field.getNodeKind() == XdmNodeKind.ELEMENT) {
                    fields.put(field.getNodeName().getLocalName(), field.getStringValue());
                }
            }
        }
        return records;
    }

    /** The records of a JSON tree: an array of objects, or one object as one record. */
    public static ArrayNode fromJson(JsonNode tree) {
        if (tree instanceof ArrayNode array) {
            int number = 0;
            for (JsonNode record : array) {
                number++;
                if (!record.isObject()) {
                    throw new IllegalArgumentException("JSON record " + number + " is " + record.getNodeType()
                            + ": records are objects, field name to value.");
                }
            }
            return array;
        }
        if (tree instanceof ObjectNode one) {
            return JsonNodeFactory.instance.arrayNode().add(one);
        }
        throw new IllegalArgumentException("A JSON body of records is an array of objects (or one object), not "
                + tree.getNodeType() + ".");
    }
}
