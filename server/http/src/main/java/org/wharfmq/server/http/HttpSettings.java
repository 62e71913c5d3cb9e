package org.wharfmq.server.http;

import org.wharfmq.server.config.ConfigurationException;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.config.Settings;
import org.wharfmq.server.config.SettingsSection;

/**
 * The HTTP listener's settings, the {@code http:} block of config/wharf.yaml: where the queue manager serves its
 * metrics ({@code /metrics}), its web console and whatever else speaks HTTP (docs/operations.md, "HTTP listener").
 * Defaults: {@link HttpConfiguration}. The listener is off unless a configuration has this block.
 *
 * @param host the interface it binds; null for the server's {@code host}
 * @param port its port; 0 picks a free one
 * @param tls  whether it speaks HTTPS with the key, certificate and client authentication of the server's
 *             {@code tls:} block (which must then be there)
 */
public record HttpSettings(String host, int port, boolean tls) {

    /**
     * Reads the {@code http:} block: null when the file has none (no HTTP listener).
     *
     * @see SettingsSection
     */
    public static final SettingsSection<HttpSettings> SECTION = file -> {
        Settings block = file.section("http");
        if (block == null) {
            return null;
        }
        String host = block.text("host", null);
        int port = block.intValue("port", HttpConfiguration.DEFAULT_PORT);
        boolean tls = block.flag("tls", HttpConfiguration.DEFAULT_TLS);
        block.refuseUnknown();
        return new HttpSettings(host, port, tls);
    };

    /** Checks the port's range and the host. */
    public HttpSettings {
        if (port < 0 || port > 65535) {
            throw new ConfigurationException("Setting http.port must be between 0 and 65535, was " + port + ".");
        }
        if (host != null && host.isBlank()) {
            throw new ConfigurationException("Setting http.host must not be empty: leave it out to bind the server's "
                    + "host.");
        }
    }

    /** The listener on {@code host}, {@code port} 0 (any free one), plain HTTP: for tests and tools. */
    public static HttpSettings on(String host) {
        return new HttpSettings(host, 0, false);
    }

    /**
     * Checks these settings fit the queue manager's: HTTPS needs its {@code tls:} block's key; the port is not one
     * of its listeners'.
     *
     * @throws ConfigurationException naming the settings that clash and the fix
     */
    public void check(ServerConfig server) {
        if (tls && server.tls().isEmpty()) {
            throw new ConfigurationException("Setting http.tls is true, but there is no tls: block: HTTPS uses the "
                    + "TLS listener's key and certificate. Add a tls: block, or set http.tls: false.");
        }
        if (port != 0 && ((server.plainListener() && port == server.port())
                || (server.tls().isPresent() && port == server.tls().get().port()))) {
            throw new ConfigurationException("Setting http.port is " + port + ", the port of another "
                    + "listener (port or tls.port): give the HTTP listener a port of its own.");
        }
    }
}
