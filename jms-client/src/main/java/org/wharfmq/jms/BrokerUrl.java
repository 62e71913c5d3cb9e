package org.wharfmq.jms;

import org.wharfmq.client.core.ClientConfiguration;
import org.wharfmq.client.core.ReconnectPolicy;
import org.wharfmq.client.core.transport.BrokerAddress;
import org.wharfmq.client.core.transport.ClientTls;

import org.wharfmq.jms.message.DeserializationLimit;
import org.wharfmq.jms.message.DeserializationPolicy;
import org.wharfmq.protocol.ProtocolVersion;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A parsed broker URL: {@code tcp://host[:port][?options]}, {@code ssl://host[:port][?options]} (TLS; also
 * {@code tcp://...?ssl=true}) or {@code vm://NAME[?options]}; or a list of such addresses separated by commas, the
 * options after the last ({@code tcp://mq1:7414,tcp://mq2:7414?reconnectAttempts=-1}), which apply to every address.
 * The client connects to the first address that answers, in list order, and after losing a connection tries the one
 * it lost first, then the others in order ({@link ReconnectPolicy}). Options are {@code name=value} pairs joined by
 * {@code &}; an unknown option is an error, so a misspelt one is not silently ignored. The TLS options
 * ({@link ClientTls#OPTIONS}) are allowed only with TLS.
 *
 * @param text                 the URL as given
 * @param addresses            where to connect, in the order tried (at least one)
 * @param prefetch             consumer window: messages the server may send a consumer ahead of the application
 * @param consumerWindowBytes  consumer window in bytes: bytes of messages the server may send a consumer (or show a
 *                             browse) ahead of the application, besides the prefetch count; 0 = the count alone
 * @param heartbeatMillis      requested heartbeat interval, 0 = none from this side
 * @param connectTimeoutMillis bound on connecting and on the HELLO handshake
 * @param requestTimeoutMillis bound on waiting for the answer to any request
 * @param maxReceiveLength     the longest message received from a server, whatever it declares
 * @param syncSends            every send waits for the server's answer
 * @param clientName           name the server shows for this connection
 * @param clientId             the client ID every connection of the factory is given as it is created (option
 *                             {@value #CLIENT_ID_OPTION}: administratively configured, JMS 2.0 section 6.1.2); null
 *                             when the application sets its own with {@code setClientID}
 * @param deserialization      classes ObjectMessage.getObject may deserialise and the limits of doing it (each from
 *                             its option, else its system property, else its default)
 * @param tls                  the TLS settings of the {@code ssl://} addresses; null when there is none
 * @param reconnect            whether and how a lost connection is made again
 */
record BrokerUrl(String text, List<BrokerAddress> addresses, int prefetch, int consumerWindowBytes, int heartbeatMillis,
                 int connectTimeoutMillis,
                 int requestTimeoutMillis, int maxReceiveLength, boolean syncSends, String clientName, String clientId,
                 DeserializationPolicy deserialization,
                 ClientTls tls, ReconnectPolicy reconnect) {

    /** The option that turns TLS on for a {@code tcp://} URL ({@code ssl://} needs none). */
    static final String SSL_OPTION = "ssl";

    /** The option that bounds a consumer's window in bytes (default DEFAULT_CONSUMER_WINDOW_BYTES). */
    static final String CONSUMER_WINDOW_BYTES_OPTION = "consumerWindowBytes";

    /** The option that bounds what a connection receives ({@link ClientConfiguration#DEFAULT_MAX_RECEIVE_LENGTH}). */
    static final String MAX_RECEIVE_LENGTH_OPTION = "maxReceiveLength";

    /** The option that gives every connection of a factory its client ID. */
    static final String CLIENT_ID_OPTION = "clientID";

    private static final Set<String> OPTIONS = options();

    /** Every option a broker URL takes, by its name (case as written: {@code clientID}). */
    static Set<String> optionNames() {
        return java.util.Collections.unmodifiableSet(OPTIONS);
    }

    private static Set<String> options() {
        Set<String> options = new TreeSet<>(Set.of("prefetch", CONSUMER_WINDOW_BYTES_OPTION, "heartbeat",
                "connectTimeout", "requestTimeout",
                MAX_RECEIVE_LENGTH_OPTION, "syncSends", "clientName", CLIENT_ID_OPTION, SSL_OPTION,
                DeserializationPolicy.URL_OPTION));
        options.addAll(ClientTls.OPTIONS);
        options.addAll(WharfConnectionFactory.RECONNECT_OPTIONS);
        for (DeserializationLimit limit : DeserializationLimit.values()) {
            options.add(limit.urlOption());
        }
        return Set.copyOf(options);
    }

    /**
     * Parses a broker URL.
     *
     * @throws IllegalArgumentException naming what is wrong with the URL
     */
    static BrokerUrl parse(String url) {
        return parse(url, Map.of());
    }

    /**
     * Parses a broker URL, with {@code settings} (option name to value: the connection factory's setters, JNDI
     * properties) taking the place of the URL's own options of the same names.
     *
     * @throws IllegalArgumentException naming what is wrong with the URL or a setting
     */
    static BrokerUrl parse(String url, Map<String, String> settings) {
        if (url == null || url.isBlank()) {
            throw new IllegalArgumentException("broker URL is empty; expected tcp://host:port or vm://NAME");
        }
        String trimmed = url.trim();
        if (trimmed.regionMatches(true, 0, "failover:", 0, "failover:".length())) {
            throw invalid(url, "list the addresses separated by commas, without failover:(...): "
                    + "tcp://host1:7414,tcp://host2:7414?options");
        }
        int query = trimmed.indexOf('?');
        String list = query < 0 ? trimmed : trimmed.substring(0, query);
        List<BrokerAddress> addresses = new ArrayList<>();
        for (String one : list.split(",", -1)) {
            addresses.add(address(url, one.trim()));
        }
        if (addresses.size() > 1 && addresses.stream().anyMatch(BrokerAddress::isInVm)) {
            throw invalid(url, "vm:// names the one server in this JVM; list only tcp:// and ssl:// addresses");
        }
        int prefetch = ClientConfiguration.DEFAULT_PREFETCH;
        int consumerWindowBytes = ClientConfiguration.DEFAULT_CONSUMER_WINDOW_BYTES;
        int heartbeat = ClientConfiguration.DEFAULT_HEARTBEAT_MILLIS;
        int connectTimeout = ClientConfiguration.DEFAULT_CONNECT_TIMEOUT_MILLIS;
        int requestTimeout = ClientConfiguration.DEFAULT_REQUEST_TIMEOUT_MILLIS;
        int maxReceiveLength = ClientConfiguration.DEFAULT_MAX_RECEIVE_LENGTH;
        boolean syncSends = false;
        String clientName = ClientConfiguration.DEFAULT_CLIENT_NAME;
        String clientId = null;
        String allowList = null;
        Map<DeserializationLimit, Long> limits = new EnumMap<>(DeserializationLimit.class);
        Boolean ssl = null;
        int reconnectAttempts = ClientConfiguration.DEFAULT_RECONNECT_ATTEMPTS;
        int reconnectInterval = ClientConfiguration.DEFAULT_RECONNECT_INTERVAL_MILLIS;
        int reconnectMaxInterval = ClientConfiguration.DEFAULT_RECONNECT_MAX_INTERVAL_MILLIS;
        Map<String, String> tlsOptions = new TreeMap<>();
        Map<String, String> options = new LinkedHashMap<>();
        if (query >= 0) {
            for (String pair : trimmed.substring(query + 1).split("&")) {
                if (!pair.isEmpty()) {
                    int eq = pair.indexOf('=');
                    options.put(eq < 0 ? pair : pair.substring(0, eq),
                            eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
                }
            }
        }
        options.putAll(settings);
        for (Map.Entry<String, String> option : options.entrySet()) {
            String name = option.getKey();
            String value = option.getValue();
            if (!OPTIONS.contains(name)) {
                throw invalid(url, "unknown option '" + name + "'; options are " + String.join(", ", new TreeSet<>(OPTIONS)));
            }
            if (ClientTls.OPTIONS.contains(name)) {
                tlsOptions.put(name, value);
                continue;
            }
            DeserializationLimit limit = DeserializationLimit.ofUrlOption(name);
            if (limit != null) {
                limits.put(limit, limitOption(url, limit, value));
                continue;
            }
            switch (name) {
                case "prefetch" -> prefetch = intOption(url, name, value, 1);
                case CONSUMER_WINDOW_BYTES_OPTION -> consumerWindowBytes = intOption(url, name, value, 0);
                case "heartbeat" -> heartbeat = intOption(url, name, value, 0);
                case "connectTimeout" -> connectTimeout = intOption(url, name, value, 1);
                case "requestTimeout" -> requestTimeout = intOption(url, name, value, 1);
                case MAX_RECEIVE_LENGTH_OPTION -> maxReceiveLength = intOption(url, name, value, 0);
                case "syncSends" -> syncSends = booleanOption(url, name, value);
                case "clientName" -> clientName = value;
                case CLIENT_ID_OPTION -> clientId = clientIdOption(url, value);
                case SSL_OPTION -> ssl = booleanOption(url, name, value);
                case "reconnectAttempts" -> reconnectAttempts = intOption(url, name, value, ReconnectPolicy.FOREVER);
                case "reconnectInterval" -> reconnectInterval = intOption(url, name, value, 1);
                case "reconnectMaxInterval" -> reconnectMaxInterval = intOption(url, name, value, 1);
                case DeserializationPolicy.URL_OPTION -> allowList = value;
                default -> throw new AssertionError(name);
            }
        }
        if (reconnectMaxInterval < reconnectInterval) {
            throw invalid(url, "reconnectMaxInterval=" + reconnectMaxInterval + " is shorter than reconnectInterval="
                    + reconnectInterval + "; the waits between attempts grow from the one to the other");
        }
        ClientTls tls = tls(url, addresses, ssl, tlsOptions);
        List<BrokerAddress> connected = new ArrayList<>();
        for (BrokerAddress address : addresses) {
            connected.add(withTls(address, ssl));
        }
        return new BrokerUrl(url, List.copyOf(connected), prefetch, consumerWindowBytes, heartbeat, connectTimeout,
                requestTimeout, maxReceiveLength, syncSends, clientName, clientId,
                deserialization(url, allowList, limits), tls,
                new ReconnectPolicy(reconnectAttempts, reconnectInterval, reconnectMaxInterval));
    }

    /** One address of the list: {@code scheme://host[:port]} or {@code vm://NAME}. */
    private static BrokerAddress address(String url, String text) {
        int schemeEnd = text.indexOf("://");
        if (schemeEnd < 0) {
            throw invalid(url, text.isEmpty() ? "an empty address in the list; separate addresses with one comma"
                    : "expected tcp://host:port or vm://NAME" + (text.equals(url.trim()) ? "" : ", not '" + text + "'"));
        }
        String scheme = text.substring(0, schemeEnd).toLowerCase(java.util.Locale.ROOT);
        String authority = text.substring(schemeEnd + 3);
        if (authority.endsWith("/")) {
            authority = authority.substring(0, authority.length() - 1);
        }
        return switch (scheme) {
            case BrokerAddress.TCP, BrokerAddress.SSL -> tcpAddress(url, scheme, authority);
            case BrokerAddress.VM -> {
                if (authority.isEmpty()) {
                    throw invalid(url, "vm:// needs the in-VM server name, e.g. vm://wharf");
                }
                yield BrokerAddress.vm(authority);
            }
            default -> throw invalid(url, "unknown scheme '" + scheme + "'; Wharf speaks tcp://, ssl:// and vm://");
        };
    }

    /** {@code tcp://...?ssl=true} is an {@code ssl://} address. */
    private static BrokerAddress withTls(BrokerAddress parsed, Boolean ssl) {
        if (Boolean.TRUE.equals(ssl) && parsed.scheme().equals(BrokerAddress.TCP)) {
            return BrokerAddress.ssl(parsed.host(), parsed.port());
        }
        return parsed;
    }

    private static ClientTls tls(String url, List<BrokerAddress> addresses, Boolean ssl, Map<String, String> tlsOptions) {
        boolean anyTls = addresses.stream().anyMatch(BrokerAddress::isTls);
        boolean on = anyTls || Boolean.TRUE.equals(ssl);
        if (on && addresses.get(0).isInVm()) {
            throw invalid(url, "vm:// connections stay inside this JVM and do not use TLS; remove ssl=true");
        }
        if (anyTls && Boolean.FALSE.equals(ssl)) {
            throw invalid(url, "ssl=false contradicts ssl://; use tcp:// for a plain connection");
        }
        if (!on) {
            if (!tlsOptions.isEmpty()) {
                throw invalid(url, "option " + tlsOptions.keySet().iterator().next() + " is a TLS option: connect with "
                        + "ssl://host:port (or add ssl=true) to use TLS");
            }
            return null;
        }
        try {
            return ClientTls.of(tlsOptions);
        } catch (IllegalArgumentException e) {
            throw invalid(url, e.getMessage());
        }
    }

    /** The URL with the values of its password options replaced by {@code ***}, for log lines and toString. */
    static String redacted(String url) {
        String shown = url;
        for (String secret : ClientTls.SECRET_OPTIONS) {
            shown = shown.replaceAll("([?&]" + secret + "=)[^&]*", "$1***");
        }
        return shown;
    }

    /** The system properties' deserialisation policy, with what the URL sets instead. */
    private static DeserializationPolicy deserialization(String url, String allowList,
                                                         Map<DeserializationLimit, Long> limits) {
        DeserializationPolicy policy = DeserializationPolicy.fromSystemProperties();
        if (allowList != null) {
            try {
                policy = policy.withAllowList(allowList);
            } catch (IllegalArgumentException e) {
                throw invalid(url, e.getMessage());
            }
        }
        for (Map.Entry<DeserializationLimit, Long> limit : limits.entrySet()) {
            policy = policy.withLimit(limit.getKey(), limit.getValue());
        }
        return policy;
    }

    private static long limitOption(String url, DeserializationLimit limit, String value) {
        try {
            return limit.parse("option " + limit.urlOption(), value);
        } catch (IllegalArgumentException e) {
            throw invalid(url, e.getMessage());
        }
    }

    private static BrokerAddress tcpAddress(String url, String scheme, String authority) {
        String host;
        String portText = null;
        if (authority.startsWith("[")) {
            int close = authority.indexOf(']');
            if (close < 0) {
                throw invalid(url, "unterminated IPv6 address");
            }
            host = authority.substring(1, close);
            if (close + 1 < authority.length()) {
                if (authority.charAt(close + 1) != ':') {
                    throw invalid(url, "expected ':' after the IPv6 address");
                }
                portText = authority.substring(close + 2);
            }
        } else {
            int colon = authority.lastIndexOf(':');
            host = colon < 0 ? authority : authority.substring(0, colon);
            portText = colon < 0 ? null : authority.substring(colon + 1);
        }
        if (host.isEmpty()) {
            throw invalid(url, "no host; expected tcp://host:port");
        }
        boolean tls = scheme.equals(BrokerAddress.SSL);
        int port = tls ? ProtocolVersion.DEFAULT_TLS_PORT : ProtocolVersion.DEFAULT_PORT;
        if (portText != null) {
            try {
                port = Integer.parseInt(portText);
            } catch (NumberFormatException e) {
                port = -1;
            }
            if (port < 1 || port > 65_535) {
                throw invalid(url, "port '" + portText + "' is not a number between 1 and 65535");
            }
        }
        return tls ? BrokerAddress.ssl(host, port) : BrokerAddress.tcp(host, port);
    }

    private static int intOption(String url, String name, String value, int min) {
        try {
            int v = Integer.parseInt(value.trim());
            if (v >= min) {
                return v;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw invalid(url, "option " + name + "=" + value + " must be a whole number >= " + min);
    }

    private static String clientIdOption(String url, String value) {
        if (value.isBlank()) {
            throw invalid(url, "option " + CLIENT_ID_OPTION + " is empty; give the client ID every connection of the"
                    + " factory is to have, or leave the option out and call Connection.setClientID");
        }
        return value.trim();
    }

    private static boolean booleanOption(String url, String name, String value) {
        if (value.equalsIgnoreCase("true")) {
            return true;
        }
        if (value.equalsIgnoreCase("false")) {
            return false;
        }
        throw invalid(url, "option " + name + "=" + value + " must be true or false");
    }

    private static IllegalArgumentException invalid(String url, String why) {
        return new IllegalArgumentException("Invalid Wharf broker URL '" + redacted(url) + "': " + why);
    }
}
