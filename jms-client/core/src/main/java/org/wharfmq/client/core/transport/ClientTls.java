package org.wharfmq.client.core.transport;

import org.wharfmq.protocol.tls.KeyStoreFiles;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.ReferenceCountedOpenSslEngine;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import org.wharfmq.client.core.ClientException;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.UnaryOperator;

/**
 * A client's TLS settings ({@code ssl://} URLs, their options, the connection factory's setters; a channel's
 * {@code tls:} block) and the {@link SSLContext} made from them, once per settings value: TLS over a blocking socket is
 * an {@link SSLSocket}, handshaken before the link starts; over a link on a {@link NetworkLoop}, an {@link SSLEngine}
 * in the channel's pipeline. Both check the same things: the same trust, protocols, cipher suites and host name.
 *
 * <p>Options: {@code trustStore}/{@code trustStorePassword}/{@code trustStoreType} (the CAs the server's certificate
 * must chain to; default the JDK's, which {@code javax.net.ssl.trustStore} changes), {@code keyStore}/
 * {@code keyStorePassword}/{@code keyStoreType} (this client's certificate, for servers that ask for one),
 * {@code verifyHost} (default true: the certificate must name the host connected to, as HTTPS checks it),
 * {@code protocols} (default {@code TLSv1.3,TLSv1.2}) and {@code cipherSuites} (default the JDK's), lists
 * separated by commas. Store types default to PKCS12. {@code engine} ({@code auto}, {@code jdk}, {@code openssl}; default
 * {@code auto}) chooses the TLS implementation of a link on a {@link NetworkLoop} (a sender channel's): OpenSSL
 * (BoringSSL from netty-tcnative-boringssl-static) where it loads, else the JDK's; {@code openssl} refuses to connect
 * where it does not load. A blocking socket's TLS is always the JDK's {@link SSLSocket}, which {@code openssl} refuses.
 */
public final class ClientTls {

    /** The URL options (and factory setters, and JNDI properties) that set TLS. */
    public static final Set<String> OPTIONS = Set.of("trustStore", "trustStorePassword", "trustStoreType", "keyStore",
            "keyStorePassword", "keyStoreType", "verifyHost", "protocols", "cipherSuites", "engine");
    /** Options whose values are never shown (a URL in a log line or an error has them as {@code ***}). */
    public static final Set<String> SECRET_OPTIONS = Set.of("trustStorePassword", "keyStorePassword");
    /** The protocol versions offered when {@code protocols} is not set. */
    public static final List<String> DEFAULT_PROTOCOLS = List.of("TLSv1.3", "TLSv1.2");
    /** The engine used when {@code engine} is not set. */
    public static final Engine DEFAULT_ENGINE = Engine.AUTO;

    /** Which TLS implementation a link on a {@link NetworkLoop} uses (option {@code engine}). */
    public enum Engine {
        /** OpenSSL where netty-tcnative loads on this machine, else the JDK's. */
        AUTO,
        /** The JDK's {@link SSLEngine}. */
        JDK,
        /** OpenSSL (BoringSSL) through netty-tcnative; connecting fails where it does not load. */
        OPENSSL
    }

    private final Map<String, String> options;
    /** How the user names an option in messages: {@code URL option trustStore}, {@code tls.trustStore of channel X}. */
    private final UnaryOperator<String> optionName;
    private final boolean verifyHost;
    private final String[] protocols;
    private final String[] cipherSuites;
    private final Engine engine;
    /** Made on first connect (the files may appear after the factory is configured), then reused. */
    private volatile SSLContext context;
    /** The OpenSSL context of links on a loop, made on their first connect when the engine is OpenSSL. */
    private volatile SslContext openSslContext;

    private ClientTls(Map<String, String> options, UnaryOperator<String> optionName, boolean verifyHost,
                      String[] protocols, String[] cipherSuites, Engine engine) {
        this.options = options;
        this.optionName = optionName;
        this.verifyHost = verifyHost;
        this.protocols = protocols;
        this.cipherSuites = cipherSuites;
        this.engine = engine;
    }

    /**
     * TLS settings from options (names from {@link #OPTIONS}; absent ones take their defaults).
     *
     * @throws IllegalArgumentException naming an unknown option or a value that is not valid
     */
    public static ClientTls of(Map<String, String> options) {
        return of(options, name -> "URL option " + name);
    }

    /**
     * TLS settings from options, named in messages as {@code optionName} names them (a channel's:
     * {@code tls.trustStore of channel QM1.TO.QM2}).
     *
     * @throws IllegalArgumentException naming an unknown option or a value that is not valid
     */
    public static ClientTls of(Map<String, String> options, UnaryOperator<String> optionName) {
        Map<String, String> copy = new TreeMap<>(options);
        for (String name : copy.keySet()) {
            if (!OPTIONS.contains(name)) {
                throw new IllegalArgumentException("unknown TLS option '" + name + "'; TLS options are "
                        + String.join(", ", new java.util.TreeSet<>(OPTIONS)));
            }
        }
        String verify = copy.getOrDefault("verifyHost", "true").trim();
        if (!verify.equalsIgnoreCase("true") && !verify.equalsIgnoreCase("false")) {
            throw new IllegalArgumentException("option verifyHost=" + verify + " must be true or false");
        }
        String[] protocols = list(copy.get("protocols"), DEFAULT_PROTOCOLS);
        if (protocols.length == 0) {
            throw new IllegalArgumentException("option protocols is empty; give TLSv1.3, TLSv1.2 or both");
        }
        return new ClientTls(Map.copyOf(copy), optionName, Boolean.parseBoolean(verify), protocols,
                list(copy.get("cipherSuites"), List.of()), engine(copy.get("engine"), optionName));
    }

    private static Engine engine(String text, UnaryOperator<String> optionName) {
        if (text == null) {
            return DEFAULT_ENGINE;
        }
        for (Engine e : Engine.values()) {
            if (e.name().equalsIgnoreCase(text.trim())) {
                return e;
            }
        }
        throw new IllegalArgumentException(optionName.apply("engine") + " is '" + text
                + "', which is not a TLS engine: give auto, jdk or openssl");
    }

    private static String[] list(String value, List<String> otherwise) {
        if (value == null) {
            return otherwise.toArray(String[]::new);
        }
        return Arrays.stream(value.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toArray(String[]::new);
    }

    /**
     * An unconnected socket for TLS to be layered on. Its input is buffered: the JDK's SSLSocket reads each record's
     * 5-byte header and then its body with separate reads of the socket, two system calls per record where a plain
     * link makes one per burst; through the buffer, one read fetches as many records as have arrived.
     */
    static Socket newSocket() {
        return new BufferedInputSocket();
    }

    /** A socket whose input stream reads through a buffer of {@value #READ_BUFFER_BYTES} bytes. */
    private static final class BufferedInputSocket extends Socket {
        /** Two maximal TLS records (16 KiB of data plus header and tag each). */
        private static final int READ_BUFFER_BYTES = 2 * 16_709;
        private InputStream input;

        @Override
        public synchronized InputStream getInputStream() throws IOException {
            if (input == null) {
                input = new BufferedInputStream(super.getInputStream(), READ_BUFFER_BYTES);
            }
            return input;
        }
    }

    /** Whether the server's certificate must name the host connected to. */
    public boolean verifyHost() {
        return verifyHost;
    }

    /** The protocol versions offered. */
    public List<String> protocols() {
        return List.of(protocols);
    }

    /** The trust store file, or null for the JDK's default trust. */
    public String trustStore() {
        return options.get("trustStore");
    }

    /** The key store file, or null when this client has no certificate. */
    public String keyStore() {
        return options.get("keyStore");
    }

    /** Option {@code name} as messages name it: {@code URL option trustStore}, {@code tls.trustStore of channel X}. */
    String option(String name) {
        return optionName.apply(name);
    }

    /**
     * Wraps a connected socket in TLS and completes the handshake within {@code timeoutMillis}.
     *
     * @throws ClientException       when a key or trust store cannot be opened (naming the option and the file)
     * @throws javax.net.ssl.SSLException when the handshake fails ({@link TlsFailures} explains it)
     * @throws IOException           when the connection fails otherwise
     */
    SSLSocket handshake(Socket socket, String host, int port, int timeoutMillis) throws ClientException, IOException {
        if (engine == Engine.OPENSSL) {
            throw new ClientException("The " + option("engine") + " is openssl, but this connection's TLS is the JDK's "
                    + "(a client connection is a blocking socket; OpenSSL serves sender channels): set it to auto or jdk",
                    null);
        }
        SSLSocket ssl = (SSLSocket) context().getSocketFactory().createSocket(socket, host, port, true);
        ssl.setSSLParameters(parameters(ssl.getSSLParameters()));
        ssl.setSoTimeout(timeoutMillis);
        ssl.startHandshake();
        ssl.setSoTimeout(0);
        return ssl;
    }

    /** The engine a link on a {@link NetworkLoop} uses: {@code engine} resolved, {@code auto} to what loads here. */
    public SslProvider provider() throws ClientException {
        return switch (engine) {
            case JDK -> SslProvider.JDK;
            case AUTO -> OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK;
            case OPENSSL -> {
                if (!OpenSsl.isAvailable()) {
                    throw new ClientException("The " + option("engine") + " is openssl, but OpenSSL does not load on "
                            + "this machine (" + OpenSsl.unavailabilityCause() + "): put netty-tcnative-boringssl-static "
                            + "for this platform on the class path, or set it to auto or jdk", null);
                }
                yield SslProvider.OPENSSL;
            }
        };
    }

    /**
     * The TLS handler of a link on a {@link NetworkLoop} to {@code host:port}, whose pipeline runs the handshake: the
     * engine {@link #provider()} chooses, checking what {@link #handshake} checks (trust, protocols, cipher suites,
     * host name).
     *
     * @throws ClientException when a key or trust store cannot be opened (naming the option and the file), or the
     *                         engine asked for does not load
     */
    SslHandler handler(String host, int port) throws ClientException {
        SslHandler handler = provider() == SslProvider.OPENSSL
                ? openSslContext().newHandler(ByteBufAllocator.DEFAULT, host, port)
                : new SslHandler(context().createSSLEngine(host, port));
        SSLEngine made = handler.engine();
        made.setUseClientMode(true);
        made.setSSLParameters(parameters(made.getSSLParameters()));
        return handler;
    }

    /**
     * What {@code engine} negotiated, for log lines: its protocol, its cipher suite and which implementation runs it
     * ({@code TLSv1.3 TLS_AES_128_GCM_SHA256 on OpenSSL}).
     */
    static String negotiated(SSLEngine engine) {
        SSLSession session = engine.getSession();
        return session.getProtocol() + " " + session.getCipherSuite() + " on "
                + (engine instanceof ReferenceCountedOpenSslEngine ? "OpenSSL" : "the JDK");
    }

    /** {@code parameters} with this client's protocols, cipher suites and host check. */
    private SSLParameters parameters(SSLParameters parameters) {
        parameters.setProtocols(protocols);
        if (cipherSuites.length > 0) {
            parameters.setCipherSuites(cipherSuites);
        }
        if (verifyHost) {
            parameters.setEndpointIdentificationAlgorithm("HTTPS");
        }
        return parameters;
    }

    private SSLContext context() throws ClientException {
        SSLContext made = context;
        if (made == null) {
            made = newContext();
            context = made;
        }
        return made;
    }

    private SslContext openSslContext() throws ClientException {
        SslContext made = openSslContext;
        if (made == null) {
            made = newOpenSslContext();
            openSslContext = made;
        }
        return made;
    }

    private SSLContext newContext() throws ClientException {
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            KeyManagerFactory keys = keyManagers();
            TrustManagerFactory trust = trustManagers();
            context.init(keys == null ? null : keys.getKeyManagers(), trust == null ? null : trust.getTrustManagers(),
                    null);
            return context;
        } catch (GeneralSecurityException e) {
            throw storeFailure(e);
        }
    }

    /** The OpenSSL engine's context: the same key, trust and protocols as {@link #newContext()}'s. */
    private SslContext newOpenSslContext() throws ClientException {
        try {
            SslContextBuilder builder = SslContextBuilder.forClient().sslProvider(SslProvider.OPENSSL)
                    .protocols(protocols).keyManager(keyManagers()).trustManager(trustManagers());
            if (cipherSuites.length > 0) {
                builder.ciphers(List.of(cipherSuites));
            }
            return builder.build();
        } catch (GeneralSecurityException e) {
            throw storeFailure(e);
        } catch (javax.net.ssl.SSLException | IllegalArgumentException e) {
            throw new ClientException("Cannot set up TLS with OpenSSL from the " + option("protocols") + " "
                    + protocols() + " and " + option("cipherSuites") + " " + List.of(cipherSuites) + ": "
                    + e.getMessage(), e);
        }
    }

    /** This client's certificate and key, or null when it has none. */
    private KeyManagerFactory keyManagers() throws ClientException, GeneralSecurityException {
        if (keyStore() == null) {
            return null;
        }
        KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        factory.init(load("keyStore", "keyStorePassword", "keyStoreType"),
                KeyStoreFiles.chars(options.get("keyStorePassword")));
        return factory;
    }

    /** The CAs the server's certificate must chain to, or null for the JDK's default trust. */
    private TrustManagerFactory trustManagers() throws ClientException, GeneralSecurityException {
        if (trustStore() == null) {
            return null; // the JDK's default trust (cacerts, or -Djavax.net.ssl.trustStore)
        }
        TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(load("trustStore", "trustStorePassword", "trustStoreType"));
        return factory;
    }

    private ClientException storeFailure(GeneralSecurityException e) {
        return new ClientException("Cannot set up TLS from the " + option("keyStore") + " and " + option("trustStore")
                + ": " + e.getMessage(), e);
    }

    private KeyStore load(String option, String passwordOption, String typeOption) throws ClientException {
        try {
            return KeyStoreFiles.load("the " + option(option), Path.of(options.get(option)), options.get(typeOption),
                    passwordOption, options.get(passwordOption));
        } catch (IllegalArgumentException e) {
            throw new ClientException(e.getMessage(), null);
        }
    }

    /** The settings as URL options would give them, passwords as {@code ***}. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("ClientTls[");
        options.forEach((name, value) -> sb.append(sb.length() > 10 ? ", " : "").append(name).append('=')
                .append(SECRET_OPTIONS.contains(name) ? "***" : value));
        return sb.append(']').toString();
    }
}
