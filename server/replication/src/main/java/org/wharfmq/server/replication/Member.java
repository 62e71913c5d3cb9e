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
        if (!id.matches("[A-Za-z0-9_.-]{1,64}")) {
            throw new IllegalArgumentException("Replication member id '" + id + "' is not valid: use 1 to 64 letters, "
                    + "digits, '.', '_' or '-'.");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("Replication member '" + id + "' has port " + port
                    + ", outside 1 to 65535: give its address as host:port.");
        }
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
