package org.wharfmq.server.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.wharfmq.server.WharfVersion;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.management.ReplicationState;
import org.wharfmq.server.replication.Membership;
import org.wharfmq.server.transport.ReplicaStatus;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * A replica's answer to {@code display-server}, the same over its HTTP listener ({@link ReplicaListener}) and in a
 * status session on its client port ({@link org.wharfmq.server.transport.StatusListener}): what the active instance
 * answers, less what only a running queue manager has (its listeners are none, and queues, subscriptions,
 * connections and journal are left out rather than shown as 0), with {@code replication}: this member's role, term,
 * the active member it follows, its applied and committed indexes, the members and its last contact with the active
 * one. Also where the active member is, for the refusals that send the user there.
 */
final class ReplicaStatusReport implements ReplicaStatus {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final ServerConfig config;
    /** The members as this member's configuration lists them: their HTTP addresses, where it gives them. */
    private final Membership configured;
    private final long startedAt;
    private final Supplier<ReplicationState> state;

    ReplicaStatusReport(ServerConfig config, Membership configured, Supplier<ReplicationState> state) {
        this.config = config;
        this.configured = configured;
        this.startedAt = System.currentTimeMillis();
        this.state = state;
    }

    /** The answer, as a map for the HTTP route's JSON. */
    Map<String, Object> status() {
        Runtime runtime = Runtime.getRuntime();
        long now = System.currentTimeMillis();
        Map<String, Object> status = new LinkedHashMap<>();
        status.put("name", config.name());
        status.put("version", WharfVersion.current());
        status.put("startedAt", startedAt);
        status.put("uptimeMillis", now - startedAt);
        status.put("listeners", List.of());
        status.put("dataDirectory", config.dataDirectory().toAbsolutePath().toString());
        status.put("heapUsedBytes", runtime.totalMemory() - runtime.freeMemory());
        status.put("heapMaxBytes", runtime.maxMemory());
        status.put("replication", state.get());
        return status;
    }

    @Override
    public String displayServer() {
        try {
            return JSON.writeValueAsString(status());
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("display-server's answer cannot be written as JSON: " + e, e);
        }
    }

    @Override
    public String activeMember() {
        ReplicationState replication = state.get();
        if (replication.active() == null) {
            return electing(replication);
        }
        return self(replication) + " follows the active member " + replication.active() + " (replication address "
                + replication.members().getOrDefault(replication.active(), "?") + ").";
    }

    /**
     * Where the active member's web console is, for the 503 this replica's HTTP listener answers at the console's
     * address: the active member's HTTP listener, as this member's configuration gives it ({@code httpUrl} in
     * {@code replication.members}); when it does not, that it is not known here and where it is said.
     */
    String activeConsole() {
        ReplicationState replication = state.get();
        String active = replication.active();
        if (active == null) {
            return electing(replication);
        }
        String url = configured.httpUrl(active);
        if (url != null) {
            return self(replication) + " follows the active member " + active + ": open the console at its HTTP "
                    + "listener, " + url + "/.";
        }
        return self(replication) + " follows the active member " + active + ", whose HTTP address this member's "
                + "configuration does not give (httpUrl of member " + active + " in replication.members; its "
                + "replication address, " + replication.members().getOrDefault(active, "?") + ", is not it): 'wharf "
                + "admin --url CLIENT_ADDRESSES display server' with every member's client address names the active "
                + "member's HTTP listener.";
    }

    private static String self(ReplicationState replication) {
        return "Member " + replication.member() + " (" + replication.role() + ")";
    }

    private static String electing(ReplicationState replication) {
        return self(replication) + " knows of no active member now (an election is under way): ask again in a few "
                + "seconds.";
    }
}
