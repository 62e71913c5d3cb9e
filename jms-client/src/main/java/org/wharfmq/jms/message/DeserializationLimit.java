package org.wharfmq.jms.message;

import java.io.ObjectInputFilter;

/**
 * A bound on what deserialising an ObjectMessage body may cost, checked by {@link DeserializationPolicy}'s
 * {@link ObjectInputFilter} as the stream is read. Allowed classes alone do not make a body harmless: 5.7 KB of
 * nested {@code java.util.HashSet}s (the "SerialDOS" hash-collision bomb) make {@code getObject()} compute hash codes
 * without end, and a handful of bytes that declare a huge array make it run out of memory. Each limit comes from the
 * broker URL option {@link #urlOption()}, else the system property {@link #systemProperty()}, else its default.
 *
 * <p>The defaults let ordinary objects through (a HashMap of a few thousand entries, a list of a few hundred thousand
 * values, a byte[] of several megabytes, exceptions with their causes) and keep a hostile body cheap:
 * <ul>
 *   <li>{@link #DEPTH} 20: the bomb's cost doubles with each level of nesting; at 20 levels it takes about 25 ms
 *       (measured warm on the 2-core test machine), at 26 seconds. Ordinary graphs measured 3 to 10 levels (an
 *       exception with three causes 7, maps nested eight deep 10). 20 is also the JDK's own RMI registry filter's.</li>
 *   <li>{@link #ARRAY_LENGTH} 1,000,000 elements of an array of objects or a collection's table (the RMI registry's
 *       value): a declared array is allocated before its elements are read, so this bounds what a few bytes can make
 *       the client allocate (8 MB a level). Arrays of primitives are bounded by the body itself instead: one that
 *       declares more elements than the rest of the body holds is refused as truncated or forged, whatever its
 *       length, so a byte[] of many megabytes still passes.</li>
 *   <li>{@link #REFERENCES} 1,000,000 objects (a list of 300,000 Integers is 300,000).</li>
 *   <li>{@link #BYTES} 64 MiB of stream.</li>
 * </ul>
 */
public enum DeserializationLimit {
    /** How deeply objects may nest (each object read inside another's fields or elements is one level deeper). */
    DEPTH("deserializationMaxDepth", 20) {
        @Override
        long measure(ObjectInputFilter.FilterInfo info) {
            return info.depth();
        }

        @Override
        String exceeded(long value, long limit) {
            return "its objects are nested deeper than " + limit + " levels (a deep graph of hash-based collections"
                    + " costs time exponential in its depth)";
        }
    },
    /** The most elements an array of objects, or the table of a collection being read, may declare. */
    ARRAY_LENGTH("deserializationMaxArrayLength", 1_000_000) {
        @Override
        long measure(ObjectInputFilter.FilterInfo info) {
            Class<?> c = info.serialClass();
            return c != null && c.isArray() && !c.getComponentType().isPrimitive() ? info.arrayLength() : -1;
        }

        @Override
        String exceeded(long value, long limit) {
            return "it declares an array or collection of " + value + " elements, more than " + limit;
        }
    },
    /** The most objects (and class descriptions) the stream may hold. */
    REFERENCES("deserializationMaxReferences", 1_000_000) {
        @Override
        long measure(ObjectInputFilter.FilterInfo info) {
            return info.references();
        }

        @Override
        String exceeded(long value, long limit) {
            return "it holds more than " + limit + " objects";
        }
    },
    /** The most bytes of serialisation stream read, counting an array of primitives' elements when it is declared. */
    BYTES("deserializationMaxBytes", 64L * 1024 * 1024) {
        @Override
        long measure(ObjectInputFilter.FilterInfo info) {
            return info.streamBytes() + primitiveArrayBytes(info);
        }

        @Override
        String exceeded(long value, long limit) {
            return "it is longer than " + limit + " bytes";
        }
    };

    private static final String SYSTEM_PROPERTY_PREFIX = "wharf.jms.";

    private final String urlOption;
    private final long defaultValue;

    DeserializationLimit(String urlOption, long defaultValue) {
        this.urlOption = urlOption;
        this.defaultValue = defaultValue;
    }

    /** The broker URL option that sets this limit, e.g. {@code deserializationMaxDepth}. */
    public String urlOption() {
        return urlOption;
    }

    /** The system property that sets this limit when the broker URL does not, e.g. {@code wharf.jms.deserializationMaxDepth}. */
    public String systemProperty() {
        return SYSTEM_PROPERTY_PREFIX + urlOption;
    }

    /** The limit when neither the URL nor the system property sets it. */
    public long defaultValue() {
        return defaultValue;
    }

    /** The limit with this name as a URL option, or null. */
    public static DeserializationLimit ofUrlOption(String option) {
        for (DeserializationLimit limit : values()) {
            if (limit.urlOption.equals(option)) {
                return limit;
            }
        }
        return null;
    }

    /**
     * Parses a value for this limit: a whole number of at least 1.
     *
     * @param source where the value came from, for the message (an option or a property)
     * @throws IllegalArgumentException naming the source and the rule
     */
    public long parse(String source, String value) {
        try {
            long v = Long.parseLong(value.trim());
            if (v >= 1) {
                return v;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(source + "=" + value + " must be a whole number >= 1");
    }

    /** The system property's value, else the default. */
    long fromSystemProperty() {
        String configured = System.getProperty(systemProperty());
        return configured == null || configured.isBlank() ? defaultValue : parse("system property " + systemProperty(), configured);
    }

    /** What the filter compares with the limit, or -1 when this limit does not concern {@code info}. */
    abstract long measure(ObjectInputFilter.FilterInfo info);

    /** Says what about the body went past the limit (the caller adds how to raise it). */
    abstract String exceeded(long value, long limit);

    /**
     * The bytes the elements of the array of primitives that {@code info} declares take in the stream (where they
     * follow), or 0 when it declares none.
     */
    static long primitiveArrayBytes(ObjectInputFilter.FilterInfo info) {
        Class<?> c = info.serialClass();
        if (c == null || !c.isArray() || !c.getComponentType().isPrimitive() || info.arrayLength() < 0) {
            return 0;
        }
        Class<?> element = c.getComponentType();
        int size;
        if (element == long.class || element == double.class) {
            size = 8;
        } else if (element == int.class || element == float.class) {
            size = 4;
        } else {
            size = element == short.class || element == char.class ? 2 : 1;
        }
        return info.arrayLength() * (long) size;
    }

    /** How to raise this limit, for error messages. */
    String howToRaise() {
        return "if the body is trusted, raise the limit with the broker URL option " + urlOption + " or the system property "
                + systemProperty();
    }
}
