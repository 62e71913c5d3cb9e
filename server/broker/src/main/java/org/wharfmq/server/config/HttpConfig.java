package org.wharfmq.server.config;

/**
 * The HTTP listener's settings ({@code http:} in config/wharf.yaml): where the queue manager serves its metrics
 * ({@code /metrics}), its web console and whatever else speaks HTTP (docs/operations.md, "HTTP listener"). The
 * listener is off unless a configuration has this block.
 *
 * @param host the interface it binds; null for the server's {@code host}
 * @param port its port; 0 picks a free one
 * @param tls  whether it speaks HTTPS with the key, certificate and client authentication of the server's
 *             {@code tls:} block (which must then be there)
 */
public record HttpConfig(String host, int port, boolean tls) {

    /** Checks the port's range. */
    public HttpConfig {
        if (port < 0 || port > 65535) {
            throw new ConfigurationException("Setting http.port must be between 0 and 65535, was " + port + ".");
        }
        if (host != null && host.isBlank()) {
            throw new ConfigurationException("Setting http.host must not be empty: leave it out to bind the server's "
                    + "host.");
        }
    }
}
