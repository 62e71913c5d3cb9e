package org.wharfmq.server.config;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The TLS listener's settings (the {@code tls:} block of {@code config/wharf.yaml}, declared in
 * {@link TlsConfiguration}): an immutable value built with {@link Builder}, whose setters are named after the keys. {@link Builder#build()} checks that the settings fit
 * together; whether the files exist and open with their passwords is checked when the server starts
 * ({@code transport.ServerTls}), naming the setting and the file.
 *
 * <p>The server key and its certificate chain come from a PKCS#12 {@code keyStore} or from PEM files
 * ({@code certificate} and a PKCS#8 {@code privateKey}), one or the other. Client certificates are checked against
 * a PKCS#12 {@code trustStore} or PEM {@code trustCertificates}, needed when {@code clientAuth} is not {@code none}.
 */
public final class TlsConfig {

    /** Whether the server asks TLS clients for a certificate (setting tls.clientAuth). */
    public enum ClientAuth {
        /** Never asks. */
        NONE,
        /** Asks; a client without one still connects (it may then authenticate with a password). */
        OPTIONAL,
        /** Asks, and refuses the TLS handshake of a client that has no certificate it trusts. */
        REQUIRED
    }

    /** Which TLS implementation the listener uses (setting tls.engine). */
    public enum Engine {
        /** OpenSSL (BoringSSL, from netty-tcnative-boringssl-static) when it loads on this machine, else the JDK's. */
        AUTO,
        /** The JDK's own TLS engine (SSLEngine). */
        JDK,
        /** OpenSSL through netty-tcnative; the server refuses to start when it does not load. */
        OPENSSL
    }

    /** The protocol versions a listener may offer: nothing older than TLS 1.2. */
    public static final Set<String> SUPPORTED_PROTOCOLS = Set.of("TLSv1.3", "TLSv1.2");

    /** The section's path in the file. */
    static final String SECTION = "tls";

    private final SettingValues values;

    private TlsConfig(SettingValues values) {
        this.values = values;
    }

    /** A builder with every TLS setting at its default and no key: {@link Builder#build()} needs one. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Reads the {@code tls:} block, whose keys are {@link TlsConfiguration}'s settings, and checks it.
     *
     * @throws ConfigurationException naming the setting that is unknown, of the wrong type or wrong
     */
    static TlsConfig read(Settings block) {
        Builder b = builder();
        b.values = b.values.read(block);
        block.refuseUnknown();
        return b.build();
    }

    /** What {@link ServerConfig#byKey()} shows without a {@code tls:} block: {@code tls} none. */
    static java.util.Map<String, Object> none() {
        java.util.Map<String, Object> none = new java.util.LinkedHashMap<>();
        none.put(SECTION, null);
        return none;
    }

    /** The settings in force by path ({@code tls.port}), passwords as {@value Setting#REDACTED}. */
    public java.util.Map<String, Object> shown() {
        return values.shown();
    }

    /** The value of one of {@link TlsConfiguration}'s settings. */
    public <T> T get(Setting<T> setting) {
        return values.get(setting);
    }

    /** The TLS listener's port (0 = any free one; the server reports the one bound). */
    public int port() {
        return get(TlsConfiguration.PORT);
    }

    /** Whether the plain TCP listener ({@code port}) stays on beside the TLS one. */
    public boolean plain() {
        return get(TlsConfiguration.PLAIN);
    }

    /** The PKCS#12 file holding the server's key and certificate chain, or null when PEM files are used. */
    public Path keyStore() {
        return get(TlsConfiguration.KEY_STORE);
    }

    /** The key store's password (also the key's, as PKCS#12 has it); null = none. */
    public String keyStorePassword() {
        return get(TlsConfiguration.KEY_STORE_PASSWORD);
    }

    /** The PEM file of the server's certificate chain (its own first), or null when a key store is used. */
    public Path certificate() {
        return get(TlsConfiguration.CERTIFICATE);
    }

    /** The PEM file of the server's PKCS#8 private key, or null when a key store is used. */
    public Path privateKey() {
        return get(TlsConfiguration.PRIVATE_KEY);
    }

    /** The password of an encrypted PEM private key; null = not encrypted. */
    public String privateKeyPassword() {
        return get(TlsConfiguration.PRIVATE_KEY_PASSWORD);
    }

    /** The protocol versions offered, e.g. TLSv1.3 and TLSv1.2. */
    public List<String> protocols() {
        return get(TlsConfiguration.PROTOCOLS);
    }

    /** The cipher suites offered, in the engine's names; empty = the engine's defaults. */
    public List<String> cipherSuites() {
        return get(TlsConfiguration.CIPHER_SUITES);
    }

    /** Whether client certificates are asked for. */
    public ClientAuth clientAuth() {
        return get(TlsConfiguration.CLIENT_AUTH);
    }

    /** The PKCS#12 file of the certificates client certificates are checked against, or null. */
    public Path trustStore() {
        return get(TlsConfiguration.TRUST_STORE);
    }

    /** The trust store's password; null = none. */
    public String trustStorePassword() {
        return get(TlsConfiguration.TRUST_STORE_PASSWORD);
    }

    /** The PEM file of the CA certificates client certificates are checked against, or null. */
    public Path trustCertificates() {
        return get(TlsConfiguration.TRUST_CERTIFICATES);
    }

    /** The TLS implementation asked for. */
    public Engine engine() {
        return get(TlsConfiguration.ENGINE);
    }

    @Override
    public String toString() { // no passwords
        return "TlsConfig" + values;
    }

    /**
     * The TLS settings being chosen: {@link #set} for any of {@link TlsConfiguration}'s, and a setter named after
     * each key. Used by one thread.
     */
    public static final class Builder {

        private SettingValues values = SettingValues.defaults(SECTION, TlsConfiguration.class);

        private Builder() {
        }

        /** Sets one of {@link TlsConfiguration}'s settings; {@link #build()} checks it. */
        public <T> Builder set(Setting<T> setting, T value) {
            values = values.with(setting, value);
            return this;
        }

        private <T> T get(Setting<T> setting) {
            return values.get(setting);
        }

        /** Sets the TLS listener's port; 0 picks a free one. */
        public Builder port(int port) {
            return set(TlsConfiguration.PORT, port);
        }

        /** Sets whether the plain TCP listener stays on (false: clients can connect only with TLS, and in-VM). */
        public Builder plain(boolean plain) {
            return set(TlsConfiguration.PLAIN, plain);
        }

        /** Sets the PKCS#12 file of the server's key and certificate chain. */
        public Builder keyStore(Path keyStore) {
            return set(TlsConfiguration.KEY_STORE, keyStore);
        }

        /** Sets the key store's password. */
        public Builder keyStorePassword(String keyStorePassword) {
            return set(TlsConfiguration.KEY_STORE_PASSWORD, keyStorePassword);
        }

        /** Sets the PEM file of the server's certificate chain. */
        public Builder certificate(Path certificate) {
            return set(TlsConfiguration.CERTIFICATE, certificate);
        }

        /** Sets the PEM file of the server's PKCS#8 private key. */
        public Builder privateKey(Path privateKey) {
            return set(TlsConfiguration.PRIVATE_KEY, privateKey);
        }

        /** Sets the password of an encrypted PEM private key. */
        public Builder privateKeyPassword(String privateKeyPassword) {
            return set(TlsConfiguration.PRIVATE_KEY_PASSWORD, privateKeyPassword);
        }

        /** Sets the protocol versions offered: TLSv1.3, TLSv1.2 or both (null: the default). */
        public Builder protocols(List<String> protocols) {
            return set(TlsConfiguration.PROTOCOLS, protocols == null ? TlsConfiguration.PROTOCOLS.defaultValue()
                    : List.copyOf(protocols));
        }

        /** Sets the cipher suites offered; empty = the engine's defaults. */
        public Builder cipherSuites(List<String> cipherSuites) {
            return set(TlsConfiguration.CIPHER_SUITES, cipherSuites == null ? List.of() : List.copyOf(cipherSuites));
        }

        /** Sets whether client certificates are asked for. */
        public Builder clientAuth(ClientAuth clientAuth) {
            return set(TlsConfiguration.CLIENT_AUTH, clientAuth);
        }

        /** Sets the PKCS#12 file client certificates are checked against. */
        public Builder trustStore(Path trustStore) {
            return set(TlsConfiguration.TRUST_STORE, trustStore);
        }

        /** Sets the trust store's password. */
        public Builder trustStorePassword(String trustStorePassword) {
            return set(TlsConfiguration.TRUST_STORE_PASSWORD, trustStorePassword);
        }

        /** Sets the PEM file of CA certificates client certificates are checked against. */
        public Builder trustCertificates(Path trustCertificates) {
            return set(TlsConfiguration.TRUST_CERTIFICATES, trustCertificates);
        }

        /** Sets the TLS implementation. */
        public Builder engine(Engine engine) {
            return set(TlsConfiguration.ENGINE, engine);
        }

        /**
         * Checks each setting against its rules and that they fit together, and makes them.
         *
         * @throws ConfigurationException naming the first setting that is wrong and how to put it right
         */
        public TlsConfig build() {
            values.check();
            Path keyStore = get(TlsConfiguration.KEY_STORE);
            Path certificate = get(TlsConfiguration.CERTIFICATE);
            Path privateKey = get(TlsConfiguration.PRIVATE_KEY);
            boolean pem = certificate != null || privateKey != null;
            if (keyStore != null && pem) {
                throw new ConfigurationException("Settings tls.keyStore and tls.certificate/tls.privateKey are both set: "
                        + "give the server's key either as a PKCS#12 key store or as PEM files, not both.");
            }
            if (keyStore == null && (certificate == null || privateKey == null)) {
                throw new ConfigurationException("TLS needs the server's key and certificate: set tls.keyStore (a PKCS#12 "
                        + "file) or both tls.certificate and tls.privateKey (PEM files).");
            }
            for (String protocol : get(TlsConfiguration.PROTOCOLS)) {
                if (!SUPPORTED_PROTOCOLS.contains(protocol)) {
                    throw new ConfigurationException("Setting tls.protocols: '" + protocol + "' is not supported; "
                            + "Wharf speaks TLSv1.3 and TLSv1.2 (older versions are broken).");
                }
            }
            ClientAuth clientAuth = get(TlsConfiguration.CLIENT_AUTH);
            if (clientAuth == null) {
                throw new ConfigurationException("Setting tls.clientAuth must be none, optional or required.");
            }
            if (get(TlsConfiguration.ENGINE) == null) {
                throw new ConfigurationException("Setting tls.engine must be auto, jdk or openssl.");
            }
            Path trustStore = get(TlsConfiguration.TRUST_STORE);
            Path trustCertificates = get(TlsConfiguration.TRUST_CERTIFICATES);
            if (trustStore != null && trustCertificates != null) {
                throw new ConfigurationException("Settings tls.trustStore and tls.trustCertificates are both set: "
                        + "give the trusted client CAs as a PKCS#12 trust store or as a PEM file, not both.");
            }
            if (clientAuth != ClientAuth.NONE && trustStore == null && trustCertificates == null) {
                throw new ConfigurationException("Setting tls.clientAuth is " + clientAuth.name().toLowerCase(Locale.ROOT)
                        + ", so the server needs the CAs that issue client certificates: set tls.trustStore (PKCS#12) or "
                        + "tls.trustCertificates (PEM).");
            }
            return new TlsConfig(values);
        }
    }

    /** Parses a setting's text ({@code none}, {@code optional}, {@code required}), naming the setting when wrong. */
    public static ClientAuth clientAuth(String text) {
        return parse(ClientAuth.class, "tls.clientAuth", text);
    }

    /** Parses a setting's text ({@code auto}, {@code jdk}, {@code openssl}), naming the setting when wrong. */
    public static Engine engine(String text) {
        return parse(Engine.class, "tls.engine", text);
    }

    private static <E extends Enum<E>> E parse(Class<E> type, String setting, String text) {
        for (E value : type.getEnumConstants()) {
            if (value.name().equalsIgnoreCase(text == null ? "" : text.trim())) {
                return value;
            }
        }
        StringBuilder names = new StringBuilder();
        for (E value : type.getEnumConstants()) {
            names.append(names.length() == 0 ? "" : ", ").append(value.name().toLowerCase(Locale.ROOT));
        }
        throw new ConfigurationException("Setting " + setting + " must be one of " + names + ", was '" + text + "'.");
    }
}
