package org.wharfmq.flow;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a deployment tells the flow it builds ({@link FlowFactory#create(FlowProperties)}): the properties of its entry
 * under {@code flows:} in the server's configuration (App Connect's user-defined properties, set where the flow is
 * deployed rather than in its code), and the address of the server's own HTTP listener, as configured. Immutable.
 */
public final class FlowProperties {

    /** No properties and no HTTP listener: a flow run outside a server ({@code wharf flow run}), or built in a test. */
    public static final FlowProperties NONE = new FlowProperties(Map.of(), null);

    private final Map<String, String> values;
    private final String serverHttpUrl;

    /**
     * @param values        the entry's {@code properties:}, by name
     * @param serverHttpUrl the server's HTTP listener as a client on this machine reaches it
     *                      ({@code http://127.0.0.1:7480}), or null when it has none (or its port is chosen at start)
     */
    public FlowProperties(Map<String, String> values, String serverHttpUrl) {
        this.values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
        this.serverHttpUrl = serverHttpUrl;
    }

    /** The property {@code name}, or null when the deployment does not set it. */
    public String get(String name) {
        return values.get(name);
    }

    /** The property {@code name}, or {@code absent} when the deployment does not set it. */
    public String get(String name, String absent) {
        String value = values.get(name);
        return value == null ? absent : value;
    }

    /** Every property, by name, in the configuration's order. */
    public Map<String, String> asMap() {
        return values;
    }

    /**
     * The server's own HTTP listener as its configuration gives it, the way a client on the server's machine reaches
     * it: {@code http://127.0.0.1:7480} for {@code http: {port: 7480}} (a listener on every interface is reached on
     * the loopback address), {@code https://...} with {@code tls: true}; null when the server has no HTTP listener,
     * when its port is chosen at start ({@code port: 0}), or outside a server.
     */
    public String serverHttpUrl() {
        return serverHttpUrl;
    }

    @Override
    public String toString() {
        return "FlowProperties" + values + (serverHttpUrl == null ? "" : " (server HTTP " + serverHttpUrl + ")");
    }
}
