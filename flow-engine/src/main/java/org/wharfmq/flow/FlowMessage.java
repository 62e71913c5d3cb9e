package org.wharfmq.flow;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import net.sf.saxon.s9api.XdmNode;
import org.w3c.dom.Document;
import org.wharfmq.flow.records.RecordFormat;

import java.nio.charset.StandardCharsets;

/**
 * The message in an assembly, as a tree of four parts: {@link #properties()} (what the flow knows about the
 * message: its domain, a topic to publish on), {@link #headers()} (the JMS header fields, named as in JMS:
 * {@code JMSCorrelationID}, {@code JMSPriority}...), {@link #userProperties()} (the JMS message properties) and the
 * body, owned by the domain's parser.
 *
 * <p>The body stays as the bytes (or text) that arrived until a node asks for its tree with {@link #json()} or
 * {@link #xml()} or {@link #records()}; it is parsed at most once however many copies of the message exist. A node
 * that changes the body calls {@link #jsonForUpdate()}, {@link #xmlForUpdate()}, {@link #recordsForUpdate()}, a
 * {@code setBody} method, or one of {@link #setJson}, {@link #setXml}, {@link #setRecords} (which move the body to
 * another domain) on a writable copy; an unchanged body is sent on as the very bytes that arrived.
 */
public final class FlowMessage {

    /** Header field: the provider's message id of the input message (an output gets a new one). */
    public static final String JMS_MESSAGE_ID = "JMSMessageID";
    /** Header field: correlation id. */
    public static final String JMS_CORRELATION_ID = "JMSCorrelationID";
    /** Header field: message type. */
    public static final String JMS_TYPE = "JMSType";
    /** Header field: priority 0-9 (Integer). */
    public static final String JMS_PRIORITY = "JMSPriority";
    /** Header field: delivery mode, {@code javax.jms.DeliveryMode} values (Integer). */
    public static final String JMS_DELIVERY_MODE = "JMSDeliveryMode";
    /** Header field: expiration time in epoch ms, 0 = never (Long). */
    public static final String JMS_EXPIRATION = "JMSExpiration";
    /** Header field: send time in epoch ms (Long). */
    public static final String JMS_TIMESTAMP = "JMSTimestamp";
    /** Header field: the reply-to destination ({@code javax.jms.Destination}). */
    public static final String JMS_REPLY_TO = "JMSReplyTo";
    /** Header field: how many times the input message has been delivered (Integer, 1 the first time). */
    public static final String JMSX_DELIVERY_COUNT = "JMSXDeliveryCount";
    /**
     * Properties field: the topic a publication arrived on (set by a topic input), and the topic a Publication node
     * publishes on when it names none.
     */
    public static final String TOPIC = "Topic";

    private static final int PERSISTENT = 2;

    private final Folder properties;
    private final Folder headers;
    private final Folder userProperties;
    private MessageBody body;
    /** The JSON tree a node changed, or null. */
    private JsonNode updatedJson;
    /** The XML document a node changed, or null. */
    private Document updatedXml;
    /** The records a node changed or set, or null; written with {@link #recordFormat()}. */
    private ArrayNode updatedRecords;
    /** The format a node set with its records, or null for the body's own. */
    private RecordFormat updatedFormat;
    /** Whether the changed tree is shared with a copy, so the next change must copy it first. */
    private boolean updatedShared;
    private boolean readOnly;

    private FlowMessage(Folder properties, Folder headers, Folder userProperties, MessageBody body) {
        this.properties = properties;
        this.headers = headers;
        this.userProperties = userProperties;
        this.body = body;
    }

    /** A new writable message with a body of bytes in {@code domain}; the array is taken, not copied. */
    public static FlowMessage ofBytes(Domain domain, byte[] body) {
        return new FlowMessage(Folder.empty("Properties"), Folder.empty("Headers"), Folder.empty("UserProperties"),
                MessageBody.ofBytes(domain, body));
    }

    /** A new writable message with a text body in {@code domain} (sent as a TextMessage). */
    public static FlowMessage ofText(Domain domain, String body) {
        return new FlowMessage(Folder.empty("Properties"), Folder.empty("Headers"), Folder.empty("UserProperties"),
                MessageBody.ofText(domain, body));
    }

    /** The flow's own fields about the message (e.g. {@link #TOPIC}). */
    public Folder properties() {
        return properties;
    }

    /** The JMS header fields (see the {@code JMS_*} names). */
    public Folder headers() {
        return headers;
    }

    /** The JMS message properties. */
    public Folder userProperties() {
        return userProperties;
    }

    /** The body's domain. */
    public Domain domain() {
        return body.domain();
    }

    /** Whether the body travels as text (a TextMessage) rather than bytes (a BytesMessage). */
    public boolean isTextBody() {
        return body.isText();
    }

    /**
     * The body as bytes: for an unchanged body, the bytes that arrived (shared, never copied: do not modify the
     * array); for a changed JSON or XML tree, its serialisation.
     */
    public byte[] bodyBytes() {
        if (updatedJson != null) {
            return serializeJson().getBytes(StandardCharsets.UTF_8);
        }
        if (updatedXml != null) {
            return Xml.serializeBytes(updatedXml, body.length());
        }
        if (updatedRecords != null) {
            return recordFormat().write(updatedRecords);
        }
        return body.bytes();
    }

    /** The body as text (UTF-8 for a bytes body); a changed tree is serialised. */
    public String bodyText() {
        if (updatedJson != null) {
            return serializeJson();
        }
        if (updatedXml != null) {
            return Xml.serializeText(updatedXml, body.length());
        }
        if (updatedRecords != null) {
            RecordFormat format = recordFormat();
            return new String(format.write(updatedRecords), format.charset());
        }
        return body.text();
    }

    /**
     * The body's JSON tree, parsed on first use and shared by every copy of the message: treat it as read-only
     * (use {@link #jsonForUpdate()} to change it).
     *
     * @throws IllegalStateException when the domain is not JSON
     * @throws java.io.UncheckedIOException when the body is not valid JSON
     */
    public JsonNode json() {
        return updatedJson != null ? updatedJson : body.json();
    }

    /**
     * A tree of the body this message owns and may change; the output serialises it. The first call deep-copies
     * the parsed tree (the input's tree stays as it was).
     *
     * @throws IllegalStateException when the message is read-only or the domain is not JSON
     */
    public JsonNode jsonForUpdate() {
        checkWritable();
        if (updatedJson == null || updatedShared) {
            updatedJson = json().deepCopy();
            updatedShared = false;
        }
        return updatedJson;
    }

    /**
     * The document node of the body's XML tree, for reading and for XPath and XSLT ({@link XPathQuery},
     * {@code Xml.processor()}): Saxon's tree, parsed on first use and shared by every copy of the message. After
     * {@link #xmlForUpdate()}, a view of the changed document.
     *
     * @throws IllegalStateException when the domain is not XML
     * @throws XmlParseException     when the body is not well-formed XML
     */
    public XdmNode xml() {
        return updatedXml != null ? Xml.wrap(updatedXml) : body.xml();
    }

    /**
     * A W3C DOM document of the body that this message owns and may change; the output serialises it (UTF-8, no
     * XML declaration). The first call parses the body afresh into the DOM (the input's tree stays as it was);
     * later calls return the same document.
     *
     * @throws IllegalStateException when the message is read-only or the domain is not XML
     * @throws XmlParseException     when the body is not well-formed XML
     */
    public Document xmlForUpdate() {
        checkWritable();
        if (updatedXml == null) {
            if (body.domain() != Domain.XML) {
                body.xml(); // fails with the message that names the domain
            }
            updatedXml = body.isText() ? Xml.parseDom(body.text()) : Xml.parseDom(body.bytes());
            updatedShared = false;
        } else if (updatedShared) {
            updatedXml = (Document) updatedXml.cloneNode(true);
            updatedShared = false;
        }
        return updatedXml;
    }

    /**
     * The body's records (RECORDS domain): an array with one object per record, field name to value, parsed with the
     * body's {@link RecordFormat} on first use and shared by every copy: treat it as read-only (use
     * {@link #recordsForUpdate()} to change it).
     *
     * @throws IllegalStateException when the domain is not RECORDS or the body has no record format
     * @throws org.wharfmq.flow.records.RecordFormatException when the body does not fit its format (the message
     *         names the record, line, field and offset)
     */
    public ArrayNode records() {
        return updatedRecords != null ? updatedRecords : body.records();
    }

    /**
     * Records this message owns and may change; the output writes them with the record format. The first call
     * deep-copies the parsed records (the input's stay as they were).
     *
     * @throws IllegalStateException when the message is read-only or the domain is not RECORDS
     */
    public ArrayNode recordsForUpdate() {
        checkWritable();
        if (updatedRecords == null || updatedShared) {
            updatedRecords = records().deepCopy();
            updatedShared = false;
        }
        return updatedRecords;
    }

    /** The format the records are written with: the one set with them, else the body's own (null if none). */
    public RecordFormat recordFormat() {
        return updatedFormat != null ? updatedFormat : body.format();
    }

    /**
     * Lays the body out in {@code format}: the body moves to the RECORDS domain and is parsed with the format on
     * first use. The input nodes do this for their {@code records(format)} setting. Call before anything reads it.
     */
    public FlowMessage parseAs(RecordFormat format) {
        checkWritable();
        body = body.parsedAs(format);
        return this;
    }

    /**
     * Makes {@code records} the body, in the RECORDS domain, written with {@code format} (a format conversion: the
     * tree is taken, not copied).
     */
    public FlowMessage setRecords(RecordFormat format, ArrayNode records) {
        replaceBody(Domain.RECORDS);
        updatedRecords = records;
        updatedFormat = format;
        updatedShared = true; // the caller may keep it: a later ...ForUpdate() copies it first
        return this;
    }

    /** Makes {@code tree} the body, in the JSON domain (a format conversion: the tree is taken, not copied). */
    public FlowMessage setJson(JsonNode tree) {
        replaceBody(Domain.JSON);
        updatedJson = tree;
        updatedShared = true; // the caller may keep it: a later ...ForUpdate() copies it first
        return this;
    }

    /** Makes {@code document} the body, in the XML domain (a format conversion: the document is taken, not copied). */
    public FlowMessage setXml(Document document) {
        replaceBody(Domain.XML);
        updatedXml = document;
        updatedShared = true; // the caller may keep it: a later ...ForUpdate() copies it first
        return this;
    }

    /** An empty body in {@code domain}, travelling as text or bytes as the old one did, for a tree set next. */
    private void replaceBody(Domain domain) {
        checkWritable();
        body = body.isText() ? MessageBody.ofText(domain, "") : MessageBody.ofBytes(domain, new byte[0]);
        updatedJson = null;
        updatedXml = null;
        updatedRecords = null;
        updatedFormat = null;
        updatedShared = false;
    }

    /** Whether {@link #xml()} is free: the body's tree was already built (or a node holds a changed DOM). */
    public boolean isXmlParsed() {
        return updatedXml != null || body.isXmlParsed();
    }

    /**
     * Makes the XML tree leave the content of {@code elements} unparsed (opaque parsing); the input node does this
     * for its {@code opaque(...)} setting. Call before anything reads the tree.
     *
     * @throws IllegalStateException when the domain is not XML or the tree was built already
     */
    public FlowMessage parseOpaquely(OpaqueElements elements) {
        checkWritable();
        body = body.parsedOpaquely(elements);
        return this;
    }

    /**
     * Lets simple XPath conditions ({@link XPathQuery#test}) read the XML body only as far as they need while no
     * tree has been built ({@link ParseTiming#ON_DEMAND}); the input node does this for its
     * {@code parseTiming(ON_DEMAND)} setting.
     *
     * @throws IllegalStateException when the domain is not XML
     */
    public FlowMessage parseOnDemand() {
        checkWritable();
        body = body.parsedOnDemand();
        return this;
    }

    /** {@link MessageBody#scan}, or null when a node holds a changed document. */
    Boolean scan(PathScan condition) {
        return updatedXml != null ? null : body.scan(condition);
    }

    /** Replaces the body with bytes (sent as a BytesMessage); the array is taken, not copied. */
    public FlowMessage setBody(byte[] bytes) {
        checkWritable();
        RecordFormat format = body.domain() == Domain.RECORDS ? recordFormat() : null;
        body = MessageBody.ofBytes(body.domain(), bytes);
        if (format != null) {
            body = body.parsedAs(format); // a body replaced in the RECORDS domain keeps its layout
        }
        updatedJson = null;
        updatedXml = null;
        updatedRecords = null;
        updatedFormat = null;
        return this;
    }

    /** Replaces the body with text (sent as a TextMessage). */
    public FlowMessage setBody(String text) {
        checkWritable();
        RecordFormat format = body.domain() == Domain.RECORDS ? recordFormat() : null;
        body = MessageBody.ofText(body.domain(), text);
        if (format != null) {
            body = body.parsedAs(format); // a body replaced in the RECORDS domain keeps its layout
        }
        updatedJson = null;
        updatedXml = null;
        updatedRecords = null;
        updatedFormat = null;
        return this;
    }

    /** Shorthand for {@code userProperties().get(name)}. */
    public Object userProperty(String name) {
        return userProperties.get(name);
    }

    /** Shorthand for {@code userProperties().set(name, value)}. */
    public FlowMessage setUserProperty(String name, Object value) {
        userProperties.set(name, value);
        return this;
    }

    /** The JMSCorrelationID header, or null. */
    public String correlationId() {
        return headers.getString(JMS_CORRELATION_ID);
    }

    /** Sets the JMSCorrelationID header. */
    public FlowMessage setCorrelationId(String correlationId) {
        headers.set(JMS_CORRELATION_ID, correlationId);
        return this;
    }

    /** The input message's JMSMessageID, or null for a message a node created. */
    public String messageId() {
        return headers.getString(JMS_MESSAGE_ID);
    }

    /** Whether the message is persistent (header JMSDeliveryMode); a new message is persistent, as in JMS. */
    public boolean isPersistent() {
        Object mode = headers.get(JMS_DELIVERY_MODE);
        return mode == null || ((Number) mode).intValue() == PERSISTENT;
    }

    /** Whether changes are refused (a node's input). */
    public boolean isReadOnly() {
        return readOnly;
    }

    /** Whether a node asked for a changeable tree (the output then serialises it). */
    public boolean isBodyChanged() {
        return updatedJson != null || updatedXml != null || updatedRecords != null;
    }

    /** How many times this message's body was parsed (0 or 1): lets tests check nothing parses twice. */
    public int parseCount() {
        return body.parseCount();
    }

    /** A writable copy: every part is shared until the copy or the original changes it. */
    FlowMessage copy() {
        FlowMessage copy = new FlowMessage(properties.copy(), headers.copy(), userProperties.copy(), body);
        if (isBodyChanged()) {
            copy.updatedJson = updatedJson;
            copy.updatedXml = updatedXml;
            copy.updatedRecords = updatedRecords;
            copy.updatedFormat = updatedFormat;
            copy.updatedShared = true;
            updatedShared = true;
        }
        return copy;
    }

    /** Whether this message and {@code other} still share the body and all folders: nothing was copied. */
    boolean sharesEverythingWith(FlowMessage other) {
        return body == other.body && properties.sharesValuesWith(other.properties)
                && headers.sharesValuesWith(other.headers) && userProperties.sharesValuesWith(other.userProperties);
    }

    void freeze() {
        readOnly = true;
        properties.freeze();
        headers.freeze();
        userProperties.freeze();
    }

    private String serializeJson() {
        try {
            return MessageBody.JSON.writeValueAsString(updatedJson);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("Cannot serialise the JSON body: " + e.getOriginalMessage(), e);
        }
    }

    private void checkWritable() {
        if (readOnly) {
            throw new IllegalStateException("The message is read-only: a node's input assembly (and an assembly "
                    + "already propagated) cannot change. Work on assembly.copy().");
        }
    }

    @Override
    public String toString() {
        return "FlowMessage[" + properties + ", " + headers + ", " + userProperties + ", body " + body.domain()
                + (body.isText() ? " text" : " bytes") + "]";
    }
}
