package org.wharfmq.server.config;

import org.wharfmq.protocol.ProtocolVersion;

import java.nio.file.Path;
import java.util.List;

/**
 * The TLS listener's settings, the keys of the {@code tls:} block of config/wharf.yaml (docs/security.md, "TLS"): each
 * one {@link Setting}, named after its key, with its default and the values it accepts. {@link TlsConfig} reads,
 * sets, checks and shows every one declared here; the rules between them (a key store or PEM files, trusted CAs for
 * client certificates) are its {@link TlsConfig.Builder#build()}'s. A file's relative name is taken from the
 * configuration file's directory.
 */
public final class TlsConfiguration {

    /** Port of the TLS listener: default 7415; 0 picks a free one. */
    public static final Setting<Integer> PORT = Setting.integer("port", ProtocolVersion.DEFAULT_TLS_PORT)
            .between(0, 65535, "");

    /** Whether the plain TCP listener ({@code port}) stays on beside the TLS one: default true. */
    public static final Setting<Boolean> PLAIN = Setting.flag("plain", true);

    /** The PKCS#12 file of the server's key and certificate chain (or PEM files instead): none by default. */
    public static final Setting<Path> KEY_STORE = Setting.file("keyStore");

    /** The key store's password (also its key's, as PKCS#12 has it): none by default. */
    public static final Setting<String> KEY_STORE_PASSWORD = Setting.text("keyStorePassword", null).secret();

    /** The PEM file of the server's certificate chain, its own first (with {@link #PRIVATE_KEY}): none by default. */
    public static final Setting<Path> CERTIFICATE = Setting.file("certificate");

    /** The PEM file of the server's PKCS#8 private key: none by default. */
    public static final Setting<Path> PRIVATE_KEY = Setting.file("privateKey");

    /** The password of an encrypted PEM private key: none (not encrypted) by default. */
    public static final Setting<String> PRIVATE_KEY_PASSWORD = Setting.text("privateKeyPassword", null).secret();

    /** The protocol versions offered: default TLSv1.3 and TLSv1.2, nothing older ({@link TlsConfig#SUPPORTED_PROTOCOLS}). */
    public static final Setting<List<String>> PROTOCOLS = Setting.texts("protocols", List.of("TLSv1.3", "TLSv1.2"))
            .check(p -> p != null && !p.isEmpty(), p -> "is empty: give TLSv1.3, TLSv1.2 or both");

    /** The cipher suites offered, in the engine's names: by default none given, the engine's own. */
    public static final Setting<List<String>> CIPHER_SUITES = Setting.texts("cipherSuites", List.of());

    /** Whether client certificates are asked for: default none. */
    public static final Setting<TlsConfig.ClientAuth> CLIENT_AUTH = Setting.choice("clientAuth",
            TlsConfig.ClientAuth.NONE, TlsConfig::clientAuth);

    /** The PKCS#12 file of the CAs client certificates must chain to: none by default. */
    public static final Setting<Path> TRUST_STORE = Setting.file("trustStore");

    /** The trust store's password: none by default. */
    public static final Setting<String> TRUST_STORE_PASSWORD = Setting.text("trustStorePassword", null).secret();

    /** The PEM file of the CAs client certificates must chain to (instead of a trust store): none by default. */
    public static final Setting<Path> TRUST_CERTIFICATES = Setting.file("trustCertificates");

    /** The TLS implementation: default auto (OpenSSL when it loads here, else the JDK's). */
    public static final Setting<TlsConfig.Engine> ENGINE = Setting.choice("engine", TlsConfig.Engine.AUTO,
            TlsConfig::engine);

    private TlsConfiguration() {
    }
}
