package org.wharfmq.server.transport;

import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.SupportedCipherSuiteFilter;
import org.wharfmq.server.config.ConfigurationException;
import org.wharfmq.server.config.TlsConfig;

import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManagerFactory;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.Date;

/**
 * Makes the one {@link SslContext} of a TLS listener from its {@link TlsConfig}, at the server's start: the key and
 * its certificate chain (PKCS#12 or PEM), the trusted client CAs, the protocols, the cipher suites, the client
 * authentication and the engine. Every problem is a {@link ConfigurationException} naming the setting and the file
 * (missing file, wrong password, a key that does not belong to its certificate, an engine that does not load), so
 * the server never starts half-configured. A certificate that has expired only draws a warning: clients will refuse
 * it and say why, and an operator renewing certificates should not be locked out of starting the server.
 */
public final class ServerTls {

    private static final System.Logger LOG = System.getLogger(ServerTls.class.getName());

    private ServerTls() {
    }

    /** The engine {@code auto} chooses: OpenSSL when netty-tcnative loads here, else the JDK's. */
    public static SslProvider provider(TlsConfig.Engine engine) {
        return switch (engine) {
            case JDK -> SslProvider.JDK;
            case AUTO -> OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK;
            case OPENSSL -> {
                if (!OpenSsl.isAvailable()) {
                    throw new ConfigurationException("Setting tls.engine is openssl, but OpenSSL does not load on this "
                            + "machine (" + OpenSsl.unavailabilityCause() + "). Put netty-tcnative-boringssl-static for this "
                            + "platform on the class path, or set tls.engine: auto or jdk.");
                }
                yield SslProvider.OPENSSL;
            }
        };
    }

    /**
     * The listener's TLS context.
     *
     * @throws ConfigurationException naming the setting and the file when a key, certificate or trust file cannot be used
     */
    public static SslContext serverContext(TlsConfig tls) {
        SslProvider provider = provider(tls.engine());
        ServerKey key = tls.keyStore() != null
                ? fromKeyStore(tls.keyStore(), tls.keyStorePassword())
                : new ServerKey(TlsFiles.privateKey("tls.privateKey", tls.privateKey(), tls.privateKeyPassword()),
                TlsFiles.certificates("tls.certificate", tls.certificate()));
        String keySetting = tls.keyStore() != null ? "tls.keyStore (" + tls.keyStore() + ")"
                : "tls.privateKey (" + tls.privateKey() + ") and tls.certificate (" + tls.certificate() + ")";
        TlsFiles.requireMatch(key.key(), key.chain()[0], keySetting);
        warnIfExpired(key.chain()[0], keySetting);

        SslContextBuilder builder = SslContextBuilder.forServer(key.key(), key.chain())
                .sslProvider(provider)
                .protocols(tls.protocols())
                .clientAuth(switch (tls.clientAuth()) {
                    case NONE -> ClientAuth.NONE;
                    case OPTIONAL -> ClientAuth.OPTIONAL;
                    case REQUIRED -> ClientAuth.REQUIRE;
                });
        if (!tls.cipherSuites().isEmpty()) {
            builder.ciphers(tls.cipherSuites(), SupportedCipherSuiteFilter.INSTANCE);
        }
        if (tls.trustStore() != null) {
            builder.trustManager(trustManagers(tls.trustStore(), tls.trustStorePassword()));
        } else if (tls.trustCertificates() != null) {
            builder.trustManager(TlsFiles.certificates("tls.trustCertificates", tls.trustCertificates()));
        }
        try {
            SslContext context = builder.build();
            if (!tls.cipherSuites().isEmpty() && context.cipherSuites().isEmpty()) {
                throw new ConfigurationException("Setting tls.cipherSuites: none of " + tls.cipherSuites() + " is supported "
                        + "by the " + provider + " engine with protocols " + tls.protocols() + ".");
            }
            return context;
        } catch (SSLException | IllegalArgumentException e) {
            throw new ConfigurationException("Cannot set up TLS with " + keySetting + ", protocols " + tls.protocols()
                    + (tls.cipherSuites().isEmpty() ? "" : " and cipher suites " + tls.cipherSuites()) + ": " + e.getMessage(), e);
        }
    }

    /** The server's key and its certificate chain, the server's own certificate first. */
    private record ServerKey(PrivateKey key, X509Certificate[] chain) {
    }

    private static ServerKey fromKeyStore(Path file, String password) {
        KeyStore store = TlsFiles.pkcs12("tls.keyStore", file, "tls.keyStorePassword", password);
        try {
            for (String alias : java.util.Collections.list(store.aliases())) {
                if (store.isKeyEntry(alias)) {
                    PrivateKey key = (PrivateKey) store.getKey(alias, TlsFiles.chars(password));
                    java.security.cert.Certificate[] chain = store.getCertificateChain(alias);
                    X509Certificate[] x509 = new X509Certificate[chain.length];
                    for (int i = 0; i < chain.length; i++) {
                        x509[i] = (X509Certificate) chain[i];
                    }
                    return new ServerKey(key, x509);
                }
            }
        } catch (java.security.GeneralSecurityException e) {
            throw new ConfigurationException("Cannot read the key in tls.keyStore " + file + ": " + e.getMessage()
                    + " (is tls.keyStorePassword also the key's password?)", e);
        }
        throw new ConfigurationException("Setting tls.keyStore: " + file + " holds no private key, only certificates. "
                + "It needs the server's key with its certificate chain (openssl pkcs12 -export -inkey key.pem -in cert.pem).");
    }

    private static TrustManagerFactory trustManagers(Path file, String password) {
        KeyStore store = TlsFiles.pkcs12("tls.trustStore", file, "tls.trustStorePassword", password);
        try {
            TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            factory.init(store);
            return factory;
        } catch (java.security.GeneralSecurityException e) {
            throw new ConfigurationException("Cannot use tls.trustStore " + file + ": " + e.getMessage(), e);
        }
    }

    private static void warnIfExpired(X509Certificate certificate, String setting) {
        Date notAfter = certificate.getNotAfter();
        if (notAfter.toInstant().isBefore(Instant.now())) {
            LOG.log(System.Logger.Level.WARNING, "The server certificate in " + setting + " ("
                    + certificate.getSubjectX500Principal().getName() + ") expired on " + notAfter.toInstant()
                    + ": clients will refuse it. Renew it.");
        }
    }
}
