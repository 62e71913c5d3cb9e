package org.wharfmq.server.http;

import org.wharfmq.server.config.ComponentSettings;
import org.wharfmq.server.config.ConfigurationException;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.config.SettingValues;
import org.wharfmq.server.config.Settings;
import org.wharfmq.server.config.SettingsSection;

/**
 * The HTTP listener's settings, the {@code http:} block of config/wharf.yaml: where the queue manager serves its
 * metrics ({@code /metrics}), its web console and whatever else speaks HTTP (docs/operations.md, "HTTP listener").
 * Its settings are those {@link HttpConfiguration} declares, read, checked and shown ({@link ComponentSettings})
 * without a line of their own. The listener is off unless a configuration has this block. Immutable.
 */
public final class HttpSettings extends ComponentSettings {

    /** The block's key in the file. */
    public static final String KEY = "http";

    /**
     * Reads the {@code http:} block: null when the file has none (no HTTP listener).
     *
     * @see SettingsSection
     */
    public static final SettingsSection<HttpSettings> SECTION = file -> {
        Settings block = file.section(KEY);
        if (block == null) {
            return null;
        }
        SettingValues values = defaults().read(block);
        block.refuseUnknown();
        return new HttpSettings(values);
    };

    private HttpSettings(SettingValues values) {
        super(values);
    }

    /**
     * The listener on {@code host} and {@code port}, speaking HTTPS when {@code tls}.
     *
     * @param host the interface it binds; null for the server's {@code host}
     * @param port its port; 0 picks a free one
     * @param tls  whether it speaks HTTPS with the key, certificate and client authentication of the server's
     *             {@code tls:} block (which must then be there)
     * @throws ConfigurationException naming the setting that is wrong
     */
    public HttpSettings(String host, int port, boolean tls) {
        this(defaults().with(HttpConfiguration.HOST, host).with(HttpConfiguration.PORT, port)
                .with(HttpConfiguration.TLS, tls));
    }

    private static SettingValues defaults() {
        return SettingValues.defaults(KEY, HttpConfiguration.class);
    }

    /** The listener on {@code host}, {@code port} 0 (any free one), plain HTTP: for tests and tools. */
    public static HttpSettings on(String host) {
        return new HttpSettings(host, 0, false);
    }

    /** The interface it binds; null for the server's {@code host}. */
    public String host() {
        return get(HttpConfiguration.HOST);
    }

    /** Its port; 0 picks a free one. */
    public int port() {
        return get(HttpConfiguration.PORT);
    }

    /**
     * These settings with {@link HttpConfiguration#MAX_INBOUND_BODY_BYTES} at {@code bytes}.
     *
     * @throws ConfigurationException when it is below 1
     */
    public HttpSettings maxInboundBodyBytes(long bytes) {
        return new HttpSettings(values().with(HttpConfiguration.MAX_INBOUND_BODY_BYTES, bytes));
    }

    /** The request bodies the listener reads at once, in bytes ({@link HttpConfiguration#MAX_INBOUND_BODY_BYTES}). */
    public long maxInboundBodyBytes() {
        return get(HttpConfiguration.MAX_INBOUND_BODY_BYTES);
    }

    /** Whether it speaks HTTPS with the key of the server's {@code tls:} block. */
    public boolean tls() {
        return get(HttpConfiguration.TLS);
    }

    /**
     * Checks these settings fit the queue manager's: HTTPS needs its {@code tls:} block's key; the port is not one
     * of its listeners'.
     *
     * @throws ConfigurationException naming the settings that clash and the fix
     */
    public void check(ServerConfig server) {
        int port = port();
        if (tls() && server.tls().isEmpty()) {
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
