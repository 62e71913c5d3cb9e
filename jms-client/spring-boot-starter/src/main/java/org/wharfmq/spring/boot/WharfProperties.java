package org.wharfmq.spring.boot;

import org.springframework.boot.context.properties.ConfigurationProperties;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code wharf.*} properties of a Spring Boot application: where the queue manager is and who the application
 * logs in as. Everything else of the connection factory (TLS, prefetch, ...) is a broker URL option, given in the URL
 * or under {@code wharf.options.*} (docs/jms-client.md).
 *
 * <pre>
 * wharf.url=ssl://mq1.example.com:7415
 * wharf.user=orders
 * wharf.password=${ORDERS_PASSWORD}
 * wharf.options.trustStore=/etc/orders/trust.p12
 * wharf.options.trustStorePassword=${TRUST_PASSWORD}
 * </pre>
 */
@ConfigurationProperties(prefix = "wharf")
public class WharfProperties {

    /** The broker URL: tcp://HOST:PORT, ssl://HOST:PORT or vm://NAME, with options after '?'. */
    private String url = "tcp://localhost:7414";

    /** The user the application's connections log in as; none: anonymous (accepted only from this machine by default). */
    private String user;

    /** The user's password (SCRAM-SHA-256: it never crosses the wire). */
    private String password;

    /**
     * Broker URL options, in place of the URL's own: any of them (prefetch, clientID, reconnectAttempts, ssl,
     * trustStore, ...; docs/jms-client.md, "Spring Boot", lists them all). An unknown one fails the start, naming it.
     */
    private Map<String, String> options = new LinkedHashMap<>();

    public String getUrl() {
        return url;
    }

    public void setUrl(String url) {
        this.url = url;
    }

    public String getUser() {
        return user;
    }

    public void setUser(String user) {
        this.user = user;
    }

    public String getPassword() {
        return password;
    }

    public void setPassword(String password) {
        this.password = password;
    }

    public Map<String, String> getOptions() {
        return options;
    }

    public void setOptions(Map<String, String> options) {
        this.options = options;
    }
}
