package org.wharfmq.protocol.selector;

import java.util.HashMap;
import java.util.Map;

/** A message whose headers and properties are a map; absent keys are NULL. */
final class MapContext implements SelectorContext {

    private final Map<String, Object> values;

    private MapContext(Map<String, Object> values) {
        this.values = values;
    }

    /** Builds a context from alternating names and values; a null value is stored as an absent entry. */
    static MapContext of(Object... namesAndValues) {
        if (namesAndValues.length % 2 != 0) {
            throw new IllegalArgumentException("names and values must come in pairs");
        }
        Map<String, Object> values = new HashMap<>();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            if (namesAndValues[i + 1] != null) {
                values.put((String) namesAndValues[i], namesAndValues[i + 1]);
            }
        }
        return new MapContext(values);
    }

    @Override
    public Object getValue(String identifier) {
        return values.get(identifier);
    }

    @Override
    public String toString() {
        return values.toString();
    }
}
