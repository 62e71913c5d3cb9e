package org.wharfmq.flow;

/**
 * The parser that owns a message body. The input node names it; the body stays as bytes until a node asks for
 * its tree, and is parsed at most once.
 */
public enum Domain {
    /** Bytes that are never parsed: the body passes through unaltered. */
    BLOB,
    /** JSON, parsed by Jackson into a {@code JsonNode} tree. */
    JSON;

    /**
     * The domain with this name, case-insensitive.
     *
     * @throws IllegalArgumentException for an unknown name; XML names the issue that brings it
     */
    public static Domain of(String name) {
        if ("XML".equalsIgnoreCase(name) || "XMLNSC".equalsIgnoreCase(name)) {
            throw new IllegalArgumentException("The XML domain is not supported yet (it comes with the next flow "
                    + "issue); use BLOB or JSON.");
        }
        for (Domain d : values()) {
            if (d.name().equalsIgnoreCase(name)) {
                return d;
            }
        }
        throw new IllegalArgumentException("Unknown message domain '" + name + "': use BLOB or JSON.");
    }
}
