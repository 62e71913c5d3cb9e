package org.wharfmq.server.config;

import org.wharfmq.server.Configuration;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The TLS listener's settings (the {@code tls:} block of {@code config/wharf.yaml}): an immutable value built with
 * {@link Builder}, whose setters are named after the YAML keys. {@link Builder#build()} checks that the settings fit
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

    private final int port;
    private final boolean plain;
    private final String keyStore;
    private final String keyStorePassword;
    private final String certificate;
    private final String privateKey;
    private final String privateKeyPassword;
    private final List<String> protocols;
    private final List<String> cipherSuites;
    private final ClientAuth clientAuth;
    private final String trustStore;
    private final String trustStorePassword;
    private final String trustCertificates;
    private final Engine engine;

    private TlsConfig(Builder b) {
        port = b.port;
        plain = b.plain;
        keyStore = b.keyStore;
        keyStorePassword = b.keyStorePassword;
        certificate = b.certificate;
        privateKey = b.privateKey;
        privateKeyPassword = b.privateKeyPassword;
        protocols = List.copyOf(b.protocols);
        cipherSuites = List.copyOf(b.cipherSuites);
        clientAuth = b.clientAuth;
        trustStore = b.trustStore;
        trustStorePassword = b.trustStorePassword;
        trustCertificates = b.trustCertificates;
        engine = b.engine;
    }

    /** A builder with every TLS setting at its default and no key: {@link Builder#build()} needs one. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Reads the {@code tls:} block, whose keys are the {@link Builder}'s setters, and checks it.
     *
     * @throws ConfigurationException naming the setting that is unknown, of the wrong type or wrong
     */
    static TlsConfig read(Settings block) {
        Builder b = builder();
        b.port = block.intValue("port", b.port);
        b.plain = block.flag("plain", b.plain);
        b.keyStore(block.file("keyStore"));
        b.keyStorePassword = block.text("keyStorePassword", null);
        b.certificate(block.file("certificate"));
        b.privateKey(block.file("privateKey"));
        b.privateKeyPassword = block.text("privateKeyPassword", null);
        b.protocols(block.texts("protocols", null));
        b.cipherSuites(block.texts("cipherSuites", null));
        String clientAuth = block.text("clientAuth", null);
        String engine = block.text("engine", null);
        b.trustStore(block.file("trustStore"));
        b.trustStorePassword = block.text("trustStorePassword", null);
        b.trustCertificates(block.file("trustCertificates"));
        block.refuseUnknown();
        if (block.has("clientAuth")) {
            b.clientAuth(clientAuth(clientAuth));
        }
        if (block.has("engine")) {
            b.engine(engine(engine));
        }
        return b.build();
    }

    /** The TLS listener's port (0 = any free one; the server reports the one bound). */
    public int port() {
        return port;
    }

    /** Whether the plain TCP listener ({@code port}) stays on beside the TLS one. */
    public boolean plain() {
        return plain;
    }

    /** The PKCS#12 file holding the server's key and certificate chain, or null when PEM files are used. */
    public Path keyStore() {
        return path(keyStore);
    }

    /** The key store's password (also the key's, as PKCS#12 has it); null = none. */
    public String keyStorePassword() {
        return keyStorePassword;
    }

    /** The PEM file of the server's certificate chain (its own first), or null when a key store is used. */
    public Path certificate() {
        return path(certificate);
    }

    /** The PEM file of the server's PKCS#8 private key, or null when a key store is used. */
    public Path privateKey() {
        return path(privateKey);
    }

    /** The password of an encrypted PEM private key; null = not encrypted. */
    public String privateKeyPassword() {
        return privateKeyPassword;
    }

    /** The protocol versions offered, e.g. TLSv1.3 and TLSv1.2. */
    public List<String> protocols() {
        return protocols;
    }

    /** The cipher suites offered, in the engine's names; empty = the engine's defaults. */
    public List<String> cipherSuites() {
        return cipherSuites;
    }

    /** Whether client certificates are asked for. */
    public ClientAuth clientAuth() {
        return clientAuth;
    }

    /** The PKCS#12 file of the certificates client certificates are checked against, or null. */
    public Path trustStore() {
        return path(trustStore);
    }

    /** The trust store's password; null = none. */
    public String trustStorePassword() {
        return trustStorePassword;
    }

    /** The PEM file of the CA certificates client certificates are checked against, or null. */
    public Path trustCertificates() {
        return path(trustCertificates);
    }

    /** The TLS implementation asked for. */
    public Engine engine() {
        return engine;
    }

    private static Path path(String file) {
        return file == null ? null : Path.of(file);
    }

    @Override
    public String toString() { // no passwords
        return "TlsConfig[port=" + port + ", plain=" + plain + ", keyStore=" + keyStore + ", certificate=" + certificate
                + ", privateKey=" + privateKey + ", protocols=" + protocols + ", cipherSuites=" + cipherSuites
                + ", clientAuth=" + clientAuth + ", trustStore=" + trustStore + ", trustCertificates=" + trustCertificates
                + ", engine=" + engine + "]";
    }

    /** The TLS settings being chosen: one setter per key of the {@code tls:} block. */
    public static final class Builder {

        private int port = Configuration.DEFAULT_TLS_PORT;
        private boolean plain = Configuration.DEFAULT_TLS_PLAIN;
        private String keyStore;
        private String keyStorePassword;
        private String certificate;
        private String privateKey;
        private String privateKeyPassword;
        private List<String> protocols = Configuration.DEFAULT_TLS_PROTOCOLS;
        private List<String> cipherSuites = List.of();
        private ClientAuth clientAuth = ClientAuth.NONE;
        private String trustStore;
        private String trustStorePassword;
        private String trustCertificates;
        private Engine engine = Engine.AUTO;

        private Builder() {
        }

        /** Sets the TLS listener's port; 0 picks a free one. */
        public Builder port(int port) {
            this.port = port;
            return this;
        }

        /** Sets whether the plain TCP listener stays on (false: clients can connect only with TLS, and in-VM). */
        public Builder plain(boolean plain) {
            this.plain = plain;
            return this;
        }

        /** Sets the PKCS#12 file of the server's key and certificate chain. */
        public Builder keyStore(Path keyStore) {
            this.keyStore = keyStore == null ? null : keyStore.toString();
            return this;
        }

        /** Sets the key store's password. */
        public Builder keyStorePassword(String keyStorePassword) {
            this.keyStorePassword = keyStorePassword;
            return this;
        }

        /** Sets the PEM file of the server's certificate chain. */
        public Builder certificate(Path certificate) {
            this.certificate = certificate == null ? null : certificate.toString();
            return this;
        }

        /** Sets the PEM file of the server's PKCS#8 private key. */
        public Builder privateKey(Path privateKey) {
            this.privateKey = privateKey == null ? null : privateKey.toString();
            return this;
        }

        /** Sets the password of an encrypted PEM private key. */
        public Builder privateKeyPassword(String privateKeyPassword) {
            this.privateKeyPassword = privateKeyPassword;
            return this;
        }

        /** Sets the protocol versions offered: TLSv1.3, TLSv1.2 or both. */
        public Builder protocols(List<String> protocols) {
            this.protocols = protocols == null ? Configuration.DEFAULT_TLS_PROTOCOLS : List.copyOf(protocols);
            return this;
        }

        /** Sets the cipher suites offered; empty = the engine's defaults. */
        public Builder cipherSuites(List<String> cipherSuites) {
            this.cipherSuites = cipherSuites == null ? List.of() : List.copyOf(cipherSuites);
            return this;
        }

        /** Sets whether client certificates are asked for. */
        public Builder clientAuth(ClientAuth clientAuth) {
            this.clientAuth = clientAuth;
            return this;
        }

        /** Sets the PKCS#12 file client certificates are checked against. */
        public Builder trustStore(Path trustStore) {
            this.trustStore = trustStore == null ? null : trustStore.toString();
            return this;
        }

        /** Sets the trust store's password. */
        public Builder trustStorePassword(String trustStorePassword) {
            this.trustStorePassword = trustStorePassword;
            return this;
        }

        /** Sets the PEM file of CA certificates client certificates are checked against. */
        public Builder trustCertificates(Path trustCertificates) {
            this.trustCertificates = trustCertificates == null ? null : trustCertificates.toString();
            return this;
        }

        /** Sets the TLS implementation. */
        public Builder engine(Engine engine) {
            this.engine = engine;
            return this;
        }

        /**
         * Checks the settings fit together and makes them.
         *
         * @throws ConfigurationException naming the first setting that is wrong and how to put it right
         */
        public TlsConfig build() {
            if (port < 0 || port > 65535) {
                throw new ConfigurationException("Setting tls.port must be between 0 and 65535, was " + port + ".");
            }
            boolean pem = certificate != null || privateKey != null;
            if (keyStore != null && pem) {
                throw new ConfigurationException("Settings tls.keyStore and tls.certificate/tls.privateKey are both set: "
                        + "give the server's key either as a PKCS#12 key store or as PEM files, not both.");
            }
            if (keyStore == null && (certificate == null || privateKey == null)) {
                throw new ConfigurationException("TLS needs the server's key and certificate: set tls.keyStore (a PKCS#12 "
                        + "file) or both tls.certificate and tls.privateKey (PEM files).");
            }
            if (protocols.isEmpty()) {
                throw new ConfigurationException("Setting tls.protocols is empty: give TLSv1.3, TLSv1.2 or both.");
            }
            for (String protocol : protocols) {
                if (!SUPPORTED_PROTOCOLS.contains(protocol)) {
                    throw new ConfigurationException("Setting tls.protocols: '" + protocol + "' is not supported; "
                            + "Wharf speaks TLSv1.3 and TLSv1.2 (older versions are broken).");
                }
            }
            if (clientAuth == null) {
                throw new ConfigurationException("Setting tls.clientAuth must be none, optional or required.");
            }
            if (engine == null) {
                throw new ConfigurationException("Setting tls.engine must be auto, jdk or openssl.");
            }
            if (trustStore != null && trustCertificates != null) {
                throw new ConfigurationException("Settings tls.trustStore and tls.trustCertificates are both set: "
                        + "give the trusted client CAs as a PKCS#12 trust store or as a PEM file, not both.");
            }
            if (clientAuth != ClientAuth.NONE && trustStore == null && trustCertificates == null) {
                throw new ConfigurationException("Setting tls.clientAuth is " + clientAuth.name().toLowerCase(Locale.ROOT)
                        + ", so the server needs the CAs that issue client certificates: set tls.trustStore (PKCS#12) or "
                        + "tls.trustCertificates (PEM).");
            }
            return new TlsConfig(this);
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
