package org.wharfmq.server.replication;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.Objects;

/**
 * One instance of a replicated queue manager: its id (unique in the group), the address its replication listener
 * binds and the others connect to, its own data directory (never shared with another member), and where its HTTP
 * listener is reached, when the configuration says ({@code httpUrl}, null otherwise): what a replica's HTTP listener
 * names when asked for the web console the active member serves.
 */
public record Member(String id, String host, int port, Path dataDirectory, String httpUrl) {

    public Member {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(dataDirectory, "dataDirectory");
        requireValid(id, host, port);
    }

    /** A member whose HTTP address the configuration does not give. */
    public Member(String id, String host, int port, Path dataDirectory) {
        this(id, host, port, dataDirectory, null);
    }

    /**
     * Checks a member's id and address as the group takes them (a member added at run time has no data directory
     * here: it is that member's own setting).
     *
     * @throws IllegalArgumentException naming what is wrong and the fix
     */
    static void requireValid(String id, String host, int port) {
        if (id == null || !id.matches("[A-Za-z0-9_.-]{1,64}")) {
            throw new IllegalArgumentException("Replication member id '" + id + "' is not valid: use 1 to 64 letters, "
                    + "digits, '.', '_' or '-'.");
        }
        if (host == null || host.isBlank()) {
            throw new IllegalArgumentException("Replication member '" + id + "' has no host: give its address as "
                    + "host:port.");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("Replication member '" + id + "' has port " + port
                    + ", outside 1 to 65535: give its address as host:port.");
        }
    }

    /**
     * The port of a {@code host:port} address, or -1 when it has none ({@code address} is not host:port).
     */
    static int port(String address) {
        int colon = address.lastIndexOf(':');
        if (colon <= 0) {
            return -1;
        }
        try {
            return Integer.parseInt(address.substring(colon + 1));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** Whether {@code url} is an HTTP listener's address: {@code http://} or {@code https://}, a host and a port. */
    static boolean isHttpUrl(String url) {
        try {
            URI uri = new URI(url);
            return ("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) && uri.getHost() != null
                    && uri.getPort() > 0 && (uri.getPath() == null || uri.getPath().isEmpty()) && uri.getQuery() == null
                    && uri.getUserInfo() == null;
        } catch (URISyntaxException e) {
            return false;
        }
    }

    /** The host of a {@code host:port} address ({@link #port} says whether it is one). */
    static String host(String address) {
        return address.substring(0, address.lastIndexOf(':'));
    }

    /** host:port, as the others reach it. */
    public String address() {
        return host + ":" + port;
    }

    /** Where this member keeps its Raft log and snapshots, inside its data directory. */
    public Path replicationDirectory() {
        return dataDirectory.resolve(ReplicationConfiguration.DIRECTORY);
    }
}
