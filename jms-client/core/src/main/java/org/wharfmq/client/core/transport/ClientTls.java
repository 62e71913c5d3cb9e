package org.wharfmq.client.core.transport;

import org.wharfmq.protocol.tls.KeyStoreFiles;

import org.wharfmq.client.core.ClientException;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
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
 * separated by commas. Store types default to PKCS12.
 */
public final class ClientTls {

    /** The URL options (and factory setters, and JNDI properties) that set TLS. */
    public static final Set<String> OPTIONS = Set.of("trustStore", "trustStorePassword", "trustStoreType", "keyStore",
            "keyStorePassword", "keyStoreType", "verifyHost", "protocols", "cipherSuites");
    /** Options whose values are never shown (a URL in a log line or an error has them as {@code ***}). */
    public static final Set<String> SECRET_OPTIONS = Set.of("trustStorePassword", "keyStorePassword");
    /** The protocol versions offered when {@code protocols} is not set. */
    public static final List<String> DEFAULT_PROTOCOLS = List.of("TLSv1.3", "TLSv1.2");

    private final Map<String, String> options;
    /** How the user names an option in messages: {@code URL option trustStore}, {@code tls.trustStore of channel X}. */
    private final UnaryOperator<String> optionName;
    private final boolean verifyHost;
    private final String[] protocols;
    private final String[] cipherSuites;
    /** Made on first connect (the files may appear after the factory is configured), then reused. */
    private volatile SSLContext context;

    private ClientTls(Map<String, String> options, UnaryOperator<String> optionName, boolean verifyHost,
                      String[] protocols, String[] cipherSuites) {
        this.options = options;
        this.optionName = optionName;
        this.verifyHost = verifyHost;
        this.protocols = protocols;
        this.cipherSuites = cipherSuites;
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
                list(copy.get("cipherSuites"), List.of()));
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
        SSLSocket ssl = (SSLSocket) context().getSocketFactory().createSocket(socket, host, port, true);
        ssl.setSSLParameters(parameters(ssl.getSSLParameters()));
        ssl.setSoTimeout(timeoutMillis);
        ssl.startHandshake();
        ssl.setSoTimeout(0);
        return ssl;
    }

    /**
     * A client engine for a connection to {@code host:port}, checking what {@link #handshake} checks: for a link on a
     * {@link NetworkLoop}, whose pipeline runs the handshake.
     *
     * @throws ClientException when a key or trust store cannot be opened (naming the option and the file)
     */
    SSLEngine engine(String host, int port) throws ClientException {
        SSLEngine engine = context().createSSLEngine(host, port);
        engine.setUseClientMode(true);
        engine.setSSLParameters(parameters(engine.getSSLParameters()));
        return engine;
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

    private SSLContext newContext() throws ClientException {
        try {
            KeyManager[] keys = null;
            if (keyStore() != null) {
                KeyStore store = load("keyStore", "keyStorePassword", "keyStoreType");
                KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                factory.init(store, KeyStoreFiles.chars(options.get("keyStorePassword")));
                keys = factory.getKeyManagers();
            }
            TrustManager[] trust = null; // the JDK's default trust (cacerts, or -Djavax.net.ssl.trustStore)
            if (trustStore() != null) {
                TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
                factory.init(load("trustStore", "trustStorePassword", "trustStoreType"));
                trust = factory.getTrustManagers();
            }
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keys, trust, null);
            return context;
        } catch (IllegalArgumentException e) {
            throw new ClientException(e.getMessage(), null);
        } catch (GeneralSecurityException e) {
            throw new ClientException("Cannot set up TLS from the " + option("keyStore") + " and " + option("trustStore")
                    + ": " + e.getMessage(), e);
        }
    }

    private KeyStore load(String option, String passwordOption, String typeOption) {
        return KeyStoreFiles.load("the " + option(option), Path.of(options.get(option)), options.get(typeOption),
                passwordOption, options.get(passwordOption));
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
