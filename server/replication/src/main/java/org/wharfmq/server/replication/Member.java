package org.wharfmq.server.replication;

import java.nio.file.Path;
import java.util.Objects;

/**
 * One instance of a replicated queue manager: its id (unique in the group), the address its replication listener
 * binds and the others connect to, and its own data directory (never shared with another member).
 */
public record Member(String id, String host, int port, Path dataDirectory) {

    public Member {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(dataDirectory, "dataDirectory");
        requireValid(id, host, port);
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
