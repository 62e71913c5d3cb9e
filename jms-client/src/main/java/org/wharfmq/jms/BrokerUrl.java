package org.wharfmq.jms;

import org.wharfmq.jms.message.DeserializationLimit;
import org.wharfmq.jms.message.DeserializationPolicy;
import org.wharfmq.jms.transport.BrokerAddress;
import org.wharfmq.protocol.ProtocolVersion;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * A parsed broker URL: {@code tcp://host[:port][?options]} or {@code vm://NAME[?options]}. Options are
 * {@code name=value} pairs joined by {@code &}; an unknown option is an error, so a misspelt one is not silently
 * ignored.
 *
 * @param text                 the URL as given
 * @param address              where to connect
 * @param prefetch             consumer window: messages the server may send a consumer ahead of the application
 * @param heartbeatMillis      requested heartbeat interval, 0 = none from this side
 * @param connectTimeoutMillis bound on connecting and on the HELLO handshake
 * @param requestTimeoutMillis bound on waiting for the answer to any request
 * @param syncSends            every send waits for the server's answer
 * @param clientName           name the server shows for this connection
 * @param deserialization      classes ObjectMessage.getObject may deserialise and the limits of doing it (each from
 *                             its option, else its system property, else its default)
 */
record BrokerUrl(String text, BrokerAddress address, int prefetch, int heartbeatMillis, int connectTimeoutMillis,
                 int requestTimeoutMillis, boolean syncSends, String clientName, DeserializationPolicy deserialization) {

    private static final Set<String> OPTIONS = options();

    private static Set<String> options() {
        Set<String> options = new TreeSet<>(Set.of("prefetch", "heartbeat", "connectTimeout", "requestTimeout",
                "syncSends", "clientName", DeserializationPolicy.URL_OPTION));
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
        if (url == null || url.isBlank()) {
            throw new IllegalArgumentException("broker URL is empty; expected tcp://host:port or vm://NAME");
        }
        String trimmed = url.trim();
        int schemeEnd = trimmed.indexOf("://");
        if (schemeEnd < 0) {
            throw invalid(url, "expected tcp://host:port or vm://NAME");
        }
        String scheme = trimmed.substring(0, schemeEnd).toLowerCase(java.util.Locale.ROOT);
        String rest = trimmed.substring(schemeEnd + 3);
        int query = rest.indexOf('?');
        String authority = query < 0 ? rest : rest.substring(0, query);
        if (authority.endsWith("/")) {
            authority = authority.substring(0, authority.length() - 1);
        }
        BrokerAddress address = switch (scheme) {
            case BrokerAddress.TCP -> tcpAddress(url, authority);
            case BrokerAddress.VM -> {
                if (authority.isEmpty()) {
                    throw invalid(url, "vm:// needs the in-VM server name, e.g. vm://wharf");
                }
                yield BrokerAddress.vm(authority);
            }
            default -> throw invalid(url, "unknown scheme '" + scheme + "'; Wharf speaks tcp:// and vm://");
        };
        int prefetch = ClientConfiguration.DEFAULT_PREFETCH;
        int heartbeat = ClientConfiguration.DEFAULT_HEARTBEAT_MILLIS;
        int connectTimeout = ClientConfiguration.DEFAULT_CONNECT_TIMEOUT_MILLIS;
        int requestTimeout = ClientConfiguration.DEFAULT_REQUEST_TIMEOUT_MILLIS;
        boolean syncSends = false;
        String clientName = ClientConfiguration.DEFAULT_CLIENT_NAME;
        String allowList = null;
        Map<DeserializationLimit, Long> limits = new EnumMap<>(DeserializationLimit.class);
        if (query >= 0) {
            for (String pair : rest.substring(query + 1).split("&")) {
                if (pair.isEmpty()) {
                    continue;
                }
                int eq = pair.indexOf('=');
                String name = eq < 0 ? pair : pair.substring(0, eq);
                String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
                if (!OPTIONS.contains(name)) {
                    throw invalid(url, "unknown option '" + name + "'; options are " + String.join(", ", new TreeSet<>(OPTIONS)));
                }
                DeserializationLimit limit = DeserializationLimit.ofUrlOption(name);
                if (limit != null) {
                    limits.put(limit, limitOption(url, limit, value));
                    continue;
                }
                switch (name) {
                    case "prefetch" -> prefetch = intOption(url, name, value, 1);
                    case "heartbeat" -> heartbeat = intOption(url, name, value, 0);
                    case "connectTimeout" -> connectTimeout = intOption(url, name, value, 1);
                    case "requestTimeout" -> requestTimeout = intOption(url, name, value, 1);
                    case "syncSends" -> syncSends = booleanOption(url, name, value);
                    case "clientName" -> clientName = value;
                    case DeserializationPolicy.URL_OPTION -> allowList = value;
                    default -> throw new AssertionError(name);
                }
            }
        }
        return new BrokerUrl(url, address, prefetch, heartbeat, connectTimeout, requestTimeout, syncSends, clientName,
                deserialization(url, allowList, limits));
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

    private static BrokerAddress tcpAddress(String url, String authority) {
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
        int port = ProtocolVersion.DEFAULT_PORT;
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
        return BrokerAddress.tcp(host, port);
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
        return new IllegalArgumentException("Invalid Wharf broker URL '" + url + "': " + why);
    }
}
