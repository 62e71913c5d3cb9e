package org.wharfmq.server.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.wharfmq.server.management.ReplicationState;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code display server}'s lines, from the JSON the admin plugin answers with: for a replicated queue manager (the
 * {@link ReplicationState} record as Jackson writes it), a member the active member has no answer from is shown
 * unreachable with its last answer's age, never "catching up" like one that is; the HTTP listener with its address
 * and whether it speaks HTTPS, or as off.
 */
class AdminOutputTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void aMemberThatIsDownIsShownUnreachableWithItsLastAnswerAndOneBehindAsCatchingUp() {
        // b answers and is 412 entries behind; c is down: no answer for 9 s, 57 entries behind when the active member
        // last compared
        ReplicationState state = new ReplicationState("WHARF", "a", "LEADER", "a", 3, 9120, 9120, 1, 0,
                Map.of("a", 0L, "b", 412L, "c", 57L), Map.of("a", "mq1:7420", "b", "mq2:7420", "c", "mq3:7420"),
                Map.of("b", 41L, "c", 9_300L), Map.of("b", 1_258_291L, "c", 4096L), -1, -1, 8190, 8193, 0,
                Set.of("c"));

        String out = displayServer(state);

        assertTrue(out.contains("c unreachable (down or cut off): last answer 9s ago, 57 behind"), out);
        assertTrue(out.contains("b catching up: 412 behind, 1.2 MiB"), out);
        assertFalse(out.contains("c catching up"), out);
        assertTrue(out.contains(" 1/3 (") && out.contains("a in sync"), out);
    }

    @Test
    void aMemberDownInSyncWithNothingCommittedSinceIsUnreachableNotInSync() {
        ReplicationState state = new ReplicationState("WHARF", "a", "LEADER", "a", 3, 9120, 9120, 2, 0,
                Map.of("a", 0L, "b", 0L, "c", 0L), Map.of("a", "mq1:7420", "b", "mq2:7420", "c", "mq3:7420"),
                Map.of("b", 41L), Map.of("b", 0L, "c", 0L), -1, -1, 8190, 8193, 0, Set.of("c"));

        String out = displayServer(state);

        assertTrue(out.contains("c unreachable (down or cut off): no answer since this member became active"), out);
        assertFalse(out.contains("c in sync"), out);
    }

    /**
     * A replica's own status (its client port's status session, or its HTTP listener) has no listeners: the line
     * said nothing at all ("listeners" and blanks), and its journal "in 1 files".
     */
    @Test
    void aReplicasOwnStatusSaysWhyItHasNoListeners() {
        ReplicationState state = new ReplicationState("WHARF", "b", "FOLLOWER", "c", 13, 4728, 4728, 3, 0,
                Map.of("a", 0L, "b", 0L, "c", 0L), Map.of("a", "mq1:7420", "b", "mq2:7420", "c", "mq3:7420"),
                Map.of("c", 54L), Map.of(), 455_324L, 1, -1, 0, 0, Set.of());

        String out = displayServer(state, false);

        assertTrue(out.contains("listeners       none: a replica, which serves no applications until it is elected"
                + " active"), out);
        assertTrue(out.contains("in 1 file (this replica's)"), out);
    }

    /** The queue manager's HTTP listener: its address and whether it speaks HTTPS, or that there is none. */
    @Test
    void theHttpListenerIsShownWithItsAddressAndWhetherItSpeaksHttpsOrAsOff() {
        String https = displayServer(null, true, JSON.createObjectNode().put("url", "https://0.0.0.0:7480")
                .put("tls", true));
        assertTrue(https.contains("\n  http listener   https://0.0.0.0:7480 (HTTPS, with the tls: block's key): web "
                + "console, admin API (/api/COMMAND), metrics\n"), https);
        String off = displayServer(null, true, NullNode.getInstance());
        assertTrue(off.contains("\n  http listener   off (no http: block in the configuration: no web console, admin "
                + "API or metrics over HTTP)\n"), off);
        assertFalse(displayServer(null, true, null).contains("http listener"), "not said when not known (a replica)");
    }

    private static String displayServer(ReplicationState state) {
        return displayServer(state, true);
    }

    private static String displayServer(ReplicationState state, boolean listening) {
        return displayServer(state, listening, null);
    }

    /** @param http the HTTP listener's status; Java's null: none given (a replica's own status) */
    private static String displayServer(ReplicationState state, boolean listening, JsonNode http) {
        ObjectNode status = JSON.createObjectNode()
                .put("name", "WHARF").put("version", "0.1.0-SNAPSHOT").put("startedAt", 0L).put("uptimeMillis", 58_000L)
                .put("dataDirectory", "/var/wharf/data").put("heapUsedBytes", 1L << 20).put("heapMaxBytes", 1L << 30);
        if (listening) {
            status.putArray("listeners").add("tcp://0.0.0.0:7414");
        } else {
            status.putArray("listeners");
        }
        if (http != null) {
            status.set("http", http);
        }
        status.set("replication", JSON.valueToTree(state));
        StringWriter text = new StringWriter();
        try (PrintWriter out = new PrintWriter(text)) {
            AdminOutput.server(status, out);
        }
        return text.toString();
    }
}
