package org.wharfmq.server.config;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A value of every key of a queue, for the tests that round-trip them (here and through wharf admin). */
public final class QueueKeys {

    private QueueKeys() {
    }

    /**
     * A value of every key of a queue but its name, as config/wharf.yaml writes it, in declaration order (valid
     * together: a paging transmission queue with its own backout queue and depth events).
     *
     * @throws AssertionError when {@link QueueConfiguration} declares a key with no value here: a new key is
     *                        round-tripped by these tests as soon as it is declared
     */
    public static Map<String, String> every() {
        Map<String, String> values = new LinkedHashMap<>();
        values.put("maxDepth", "40");
        values.put("maxBytes", "65536");
        values.put("policy", "page");
        values.put("maxPageBytes", "1000000");
        values.put("pageFullPolicy", "fail");
        values.put("backoutThreshold", "3");
        values.put("backoutQueue", "EVERY.BAD");
        values.put("depthHighEvent", "80");
        values.put("depthLowEvent", "20");
        values.put("fullEvent", "true");
        values.put("usage", "transmission");
        List<String> declared = Setting.declaredIn(QueueConfiguration.class).stream().map(Setting::key)
                .filter(k -> !k.equals(QueueConfiguration.NAME.key())).toList();
        assertEquals(declared, List.copyOf(values.keySet()), "a value for every key of a queue, in declaration order");
        return values;
    }
}
