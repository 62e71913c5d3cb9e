package org.wharfmq.jms;

import org.wharfmq.client.core.ClientConfiguration;
import org.wharfmq.client.core.transport.ClientTls;

import org.wharfmq.jms.jndi.WharfObjectFactory;

import javax.jms.Connection;
import javax.jms.ConnectionFactory;
import javax.jms.JMSContext;
import javax.jms.JMSException;
import javax.jms.QueueConnection;
import javax.jms.QueueConnectionFactory;
import javax.jms.TopicConnection;
import javax.jms.TopicConnectionFactory;
import javax.naming.Reference;
import javax.naming.Referenceable;
import javax.naming.StringRefAddr;
import java.io.Serializable;
import java.util.LinkedHashMap;

/**
 * Creates connections to a Wharf server. The broker URL is {@code tcp://host[:port][?options]} (port 7414 by
 * default), {@code ssl://host[:port][?options]} for TLS (port 7415 by default; or {@code tcp://host:port?ssl=true})
 * or {@code vm://NAME} for a server started in this JVM; or several {@code tcp://} and {@code ssl://} addresses
 * separated by commas, the options after the last ({@code tcp://mq1:7414,tcp://mq2:7414?reconnectAttempts=-1}): a
 * connection goes to the first that answers, and after a failure reconnects to the one it lost or the next.
 * Options:
 * <ul>
 *   <li>{@code prefetch} — messages the server may push to a consumer ahead of the application (default 1000)</li>
 *   <li>{@code consumerWindowBytes} — bytes of messages (their encoded lengths) the server may push to a consumer
 *       ahead of the application, besides the prefetch count: whichever is reached first bounds it (default 8388608,
 *       8 MiB: messages of up to about 8 KB keep the whole prefetch window, large ones are bounded by bytes); a
 *       consumer is always sent at least one message, whatever its size; 0 = the prefetch count alone. The server caps
 *       it at its maxConsumerWindowBytes; a server before protocol version 3 bounds by the count alone. A
 *       QueueBrowser's enumeration is bounded the same way (a version 3 server holds one of 0 to its
 *       maxConsumerWindowBytes). Also {@link #setConsumerWindowBytes}.</li>
 *   <li>{@code heartbeat} — heartbeat interval in ms, 0 = none from this side (default 10000)</li>
 *   <li>{@code connectTimeout} — ms for connecting and the handshake (default 10000)</li>
 *   <li>{@code requestTimeout} — ms to wait for any answer from the server (default 30000)</li>
 *   <li>{@code maxReceiveLength} — the longest message, in bytes, the connection receives from a server (default
 *       104857600, 100 MiB, a queue manager's default maxMessageLength): the client reads no frame longer than the
 *       lower of this and the server's maxMessageLength (and 64 KiB for a frame's fields), so a hostile server cannot
 *       make it take more memory per frame; a longer one ends the connection, naming this option</li>
 *   <li>{@code syncSends} — {@code true} makes every send wait for the server (default false)</li>
 *   <li>{@code clientName} — the name the server shows for the connection</li>
 *   <li>{@code clientID} — the client ID each connection (and JMSContext) of the factory has from its creation: an
 *       administratively configured client ID (JMS 2.0 section 6.1.2), which {@code setClientID} then refuses with
 *       IllegalStateException. The server keeps client IDs unique, so such a factory has one connection open at a
 *       time (a second is refused with InvalidClientIDException). Also {@link #setClientID}.</li>
 *   <li>{@code reconnectAttempts} — how many times a lost connection tries to connect again, each time once round the
 *       addresses, before its ExceptionListener is told (default 25, about five minutes with the intervals below;
 *       -1 = for ever; 0 = never: the ExceptionListener hears of the loss at once)</li>
 *   <li>{@code reconnectInterval} — ms before the second attempt (the first is at once), doubling after each failed
 *       one (default 1000)</li>
 *   <li>{@code reconnectMaxInterval} — the longest wait between two attempts, in ms (default 15000)</li>
 *   <li>{@code deserializationAllowList} — classes {@code ObjectMessage.getObject()} may deserialise, e.g.
 *       {@code com.acme.*,java.util.*} (default: the system property {@code wharf.jms.deserializationAllowList}, else
 *       the JDK's value types and collections; see {@link org.wharfmq.jms.message.DeserializationPolicy})</li>
 *   <li>{@code deserializationMaxDepth}, {@code deserializationMaxArrayLength}, {@code deserializationMaxReferences},
 *       {@code deserializationMaxBytes} — what deserialising an ObjectMessage body may cost (defaults 20 levels,
 *       1,000,000 elements of an array of objects, 1,000,000 objects, 64 MiB; else the system property
 *       {@code wharf.jms.} + the option's name; see {@link org.wharfmq.jms.message.DeserializationLimit})</li>
 *   <li>TLS ({@code ssl://} only): {@code trustStore}, {@code trustStorePassword}, {@code trustStoreType} (the CAs
 *       the server's certificate must chain to; default the JDK's), {@code keyStore}, {@code keyStorePassword},
 *       {@code keyStoreType} (this client's certificate, when the server asks for one), {@code verifyHost} (default
 *       true: the certificate must name the host), {@code protocols} (default {@code TLSv1.3,TLSv1.2}),
 *       {@code cipherSuites} (default the JDK's); store types default to PKCS12. The setters of the same names
 *       ({@link #setTrustStore} ...) override the URL's options; passwords never show in {@link #toString()}.</li>
 * </ul>
 *
 * <p>A connection authenticates with a user name and password ({@code createConnection(user, password)}, or
 * {@link #setUserName}/{@link #setPassword} for the methods without them) by SCRAM-SHA-256: the password never crosses
 * the wire. Without a user it connects anonymously, which a server allows only as its security settings say
 * (docs/security.md). Wrong credentials raise {@link javax.jms.JMSSecurityException}. Every message a connection sends
 * carries as JMSXUserID the user the server authenticated, and none for an anonymous connection.
 */
public class WharfConnectionFactory implements ConnectionFactory, QueueConnectionFactory, TopicConnectionFactory,
        Serializable, Referenceable {
    private static final long serialVersionUID = 1L;
    /** The {@link Reference} address type holding the broker URL. */
    public static final String BROKER_URL_ADDRESS = "brokerURL";
    /** The reconnection options of the broker URL, which the setters of the same names and JNDI properties also set. */
    public static final java.util.Set<String> RECONNECT_OPTIONS =
            java.util.Set.of("reconnectAttempts", "reconnectInterval", "reconnectMaxInterval");

    private volatile String brokerUrl;
    /** Options set through the setters (or JNDI), overriding the URL's own: name to value, in the order set. */
    private volatile LinkedHashMap<String, String> settings = new LinkedHashMap<>();
    private transient volatile BrokerUrl parsed;
    /** The user of the connections created without one; null: anonymous. */
    private volatile String userName;
    /** Its password; transient, so a serialised (or JNDI-bound) factory never carries it. */
    private transient volatile String password;

    /** A factory for {@code tcp://localhost:7414}; set another URL with {@link #setBrokerURL}. */
    public WharfConnectionFactory() {
        this(ClientConfiguration.DEFAULT_URL);
    }

    /**
     * A factory for the given broker URL.
     *
     * @throws IllegalArgumentException when the URL is malformed or names an unknown option
     */
    public WharfConnectionFactory(String brokerURL) {
        setBrokerURL(brokerURL);
    }

    /** The broker URL as set. */
    public String getBrokerURL() {
        return brokerUrl;
    }

    /**
     * Sets the broker URL, checking it at once.
     *
     * @throws IllegalArgumentException when the URL is malformed or names an unknown option
     */
    public synchronized void setBrokerURL(String brokerURL) {
        BrokerUrl url = BrokerUrl.parse(brokerURL, settings);
        this.brokerUrl = brokerURL;
        this.parsed = url;
    }

    /** Sets the user that {@link #createConnection()} and the other methods without a user name log in as (null: anonymous). */
    public void setUserName(String userName) {
        this.userName = userName;
    }

    /** The user of connections created without one, or null. */
    public String getUserName() {
        return userName;
    }

    /** The password of the factory's user, or null. */
    String password() {
        return password;
    }

    /** Sets the password of {@link #setUserName the factory's user}; it is not serialised with the factory. */
    public void setPassword(String password) {
        this.password = password;
    }

    /** The names of the options {@link #setOption} and a broker URL take, case as written ({@code clientID}). */
    public static java.util.Set<String> optionNames() {
        return BrokerUrl.optionNames();
    }

    /**
     * Sets a URL option by name (a TLS or reconnection option, or {@code ssl}), in place of the URL's own: what the
     * TLS and reconnection setters do, and what JNDI properties and references use. A null value removes the setting.
     *
     * @throws IllegalArgumentException when the option is unknown or the value invalid for the URL
     */
    public synchronized void setOption(String name, String value) {
        LinkedHashMap<String, String> changed = new LinkedHashMap<>(settings);
        if (value == null) {
            changed.remove(name);
        } else {
            changed.put(name, value);
        }
        BrokerUrl url = BrokerUrl.parse(brokerUrl, changed);
        this.settings = changed;
        this.parsed = url;
    }

    /**
     * Gives every connection this factory creates the client ID {@code clientID} (option {@code clientID}; null: none,
     * the application may call {@code Connection.setClientID}).
     *
     * @throws IllegalArgumentException when the client ID is empty
     */
    public void setClientID(String clientID) {
        setOption(BrokerUrl.CLIENT_ID_OPTION, clientID);
    }

    /** The client ID every connection of this factory is given, or null. */
    public String getClientID() {
        return url().clientId();
    }

    /** Turns TLS on or off for a {@code tcp://} URL (as {@code ?ssl=true}). */
    public void setSsl(boolean ssl) {
        setOption(BrokerUrl.SSL_OPTION, String.valueOf(ssl));
    }

    /**
     * Sets how many times a lost connection tries to connect again before its ExceptionListener is told (option
     * {@code reconnectAttempts}; default {@value ClientConfiguration#DEFAULT_RECONNECT_ATTEMPTS}; -1 = for ever, 0 = never).
     */
    public void setReconnectAttempts(int attempts) {
        setOption("reconnectAttempts", String.valueOf(attempts));
    }

    /**
     * Sets the bytes of messages the server may push to each consumer, and show each browse, ahead of the
     * application, besides the prefetch count (option {@code consumerWindowBytes}; default
     * {@value ClientConfiguration#DEFAULT_CONSUMER_WINDOW_BYTES};
     * 0 = the prefetch count alone), for the connections it creates from then on.
     *
     * @throws IllegalArgumentException when {@code bytes} is negative
     */
    public void setConsumerWindowBytes(int bytes) {
        setOption(BrokerUrl.CONSUMER_WINDOW_BYTES_OPTION, String.valueOf(bytes));
    }

    /** Sets whether every send waits for the server's answer, a non-persistent one too (option {@code syncSends}). */
    public void setSyncSends(boolean syncSends) {
        setOption("syncSends", String.valueOf(syncSends));
    }

    /** Sets the wait before the second reconnection attempt, in ms (option {@code reconnectInterval}; default 1000). */
    public void setReconnectInterval(int millis) {
        setOption("reconnectInterval", String.valueOf(millis));
    }

    /** Sets the longest wait between two reconnection attempts, in ms (option {@code reconnectMaxInterval}; default 15000). */
    public void setReconnectMaxInterval(int millis) {
        setOption("reconnectMaxInterval", String.valueOf(millis));
    }

    /** Sets the trust store: the CAs the server's certificate must chain to (default: the JDK's). */
    public void setTrustStore(String file) {
        setOption("trustStore", file);
    }

    /** Sets the trust store's password. */
    public void setTrustStorePassword(String password) {
        setOption("trustStorePassword", password);
    }

    /** Sets the trust store's type (default PKCS12). */
    public void setTrustStoreType(String type) {
        setOption("trustStoreType", type);
    }

    /** Sets the key store holding this client's certificate and key, for servers that ask for one. */
    public void setKeyStore(String file) {
        setOption("keyStore", file);
    }

    /** Sets the key store's password (also its key's). */
    public void setKeyStorePassword(String password) {
        setOption("keyStorePassword", password);
    }

    /** Sets the key store's type (default PKCS12). */
    public void setKeyStoreType(String type) {
        setOption("keyStoreType", type);
    }

    /** Sets whether the server's certificate must name the host connected to (default true). */
    public void setVerifyHost(boolean verifyHost) {
        setOption("verifyHost", String.valueOf(verifyHost));
    }

    /** Sets the TLS protocol versions offered, separated by commas (default {@code TLSv1.3,TLSv1.2}). */
    public void setProtocols(String protocols) {
        setOption("protocols", protocols);
    }

    /** Sets the TLS cipher suites offered, separated by commas (default: the JDK's). */
    public void setCipherSuites(String cipherSuites) {
        setOption("cipherSuites", cipherSuites);
    }

    BrokerUrl url() {
        BrokerUrl url = parsed;
        if (url == null) { // after deserialisation
            url = BrokerUrl.parse(brokerUrl, settings);
            parsed = url;
        }
        return url;
    }

    /**
     * Not JMS: opens a status session with a replica of a replicated queue manager, as this factory's user, for an
     * administrator's tool ({@link WharfStatusSession}; {@code wharf admin} uses it when the members refuse its
     * connection as replicas).
     */
    public WharfStatusSession createStatusSession() throws JMSException {
        return WharfStatusSession.open(url(), userName, password);
    }

    @Override
    public Connection createConnection() throws JMSException {
        return new WharfConnection(url(), userName, password, MessagingDomain.BOTH);
    }

    @Override
    public Connection createConnection(String userName, String password) throws JMSException {
        return new WharfConnection(url(), userName, password, MessagingDomain.BOTH);
    }

    @Override
    public QueueConnection createQueueConnection() throws JMSException {
        return new WharfConnection(url(), userName, password, MessagingDomain.QUEUE);
    }

    @Override
    public QueueConnection createQueueConnection(String userName, String password) throws JMSException {
        return new WharfConnection(url(), userName, password, MessagingDomain.QUEUE);
    }

    @Override
    public TopicConnection createTopicConnection() throws JMSException {
        return new WharfConnection(url(), userName, password, MessagingDomain.TOPIC);
    }

    @Override
    public TopicConnection createTopicConnection(String userName, String password) throws JMSException {
        return new WharfConnection(url(), userName, password, MessagingDomain.TOPIC);
    }

    /** A JMSContext in AUTO_ACKNOWLEDGE mode on a new connection. */
    @Override
    public JMSContext createContext() {
        return createContext(userName, password, JMSContext.AUTO_ACKNOWLEDGE);
    }

    @Override
    public JMSContext createContext(String userName, String password) {
        return createContext(userName, password, JMSContext.AUTO_ACKNOWLEDGE);
    }

    @Override
    public JMSContext createContext(int sessionMode) {
        return createContext(userName, password, sessionMode);
    }

    /**
     * A JMSContext on a new connection; its session is created on first use, so {@code setClientID} may follow.
     *
     * @throws javax.jms.JMSRuntimeException for an invalid session mode or when the connection fails
     *                                       (JMSSecurityRuntimeException when the server refuses the user)
     */
    @Override
    public JMSContext createContext(String userName, String password, int sessionMode) {
        WharfJMSContext.checkSessionMode(sessionMode);
        try {
            return new WharfJMSContext(new WharfConnection(url(), userName, password, MessagingDomain.BOTH), sessionMode);
        } catch (JMSException e) {
            throw JmsErrors.toRuntime(e);
        }
    }

    /**
     * A JNDI reference that {@link WharfObjectFactory} turns back into a factory with the same URL and settings (one
     * address per setting, typed with the option's name).
     */
    @Override
    public Reference getReference() {
        Reference reference = new Reference(getClass().getName(), WharfObjectFactory.class.getName(), null);
        reference.add(new StringRefAddr(BROKER_URL_ADDRESS, brokerUrl));
        settings.forEach((name, value) -> reference.add(new StringRefAddr(name, value)));
        return reference;
    }

    /** The URL and settings, passwords shown as {@code ***}. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(getClass().getSimpleName()).append('[').append(BrokerUrl.redacted(brokerUrl));
        settings.forEach((name, value) -> sb.append(", ").append(name).append('=')
                .append(ClientTls.SECRET_OPTIONS.contains(name) ? "***" : value));
        return sb.append(']').toString();
    }
}
