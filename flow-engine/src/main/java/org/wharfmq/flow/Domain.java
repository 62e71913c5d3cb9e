package org.wharfmq.flow;

/**
 * The parser that owns a message body. The input node names it; the body stays as bytes until a node asks for
 * its tree, and is parsed at most once.
 */
public enum Domain {
    /** Bytes that are never parsed: the body passes through unaltered. */
    BLOB,
    /** JSON, parsed by Jackson into a {@code JsonNode} tree. */
    JSON,
    /**
     * XML, parsed by Saxon into an {@code XdmNode} tree for XPath and XSLT (a W3C DOM when a node changes it);
     * App Connect's XMLNSC.
     */
    XML,
    /**
     * Records: delimited (CSV) or fixed-length, laid out as a {@code RecordFormat} says, parsed into an array of
     * records (Jackson objects, field name to value); App Connect's DFDL and MRM TDS/CWF.
     */
    RECORDS;

    /**
     * The domain with this name, case-insensitive; {@code XMLNSC}, App Connect's name for its XML parser, is XML.
     *
     * @throws IllegalArgumentException for an unknown name
     */
    public static Domain of(String name) {
        if ("XMLNSC".equalsIgnoreCase(name)) {
            return XML;
        }
        for (Domain d : values()) {
            if (d.name().equalsIgnoreCase(name)) {
                return d;
            }
        }
        throw new IllegalArgumentException("Unknown message domain '" + name + "': use BLOB, JSON, XML or RECORDS.");
    }
}
