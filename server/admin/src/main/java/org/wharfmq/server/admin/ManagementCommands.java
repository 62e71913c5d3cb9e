package org.wharfmq.server.admin;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.wharfmq.server.config.ConfigurationException;
import org.wharfmq.server.config.QueueDefinition;
import org.wharfmq.server.config.QueueReference;
import org.wharfmq.server.management.Management;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

import static org.wharfmq.server.admin.AdminProtocol.CLIENT_ID;
import static org.wharfmq.server.admin.AdminProtocol.CONNECTION;
import static org.wharfmq.server.admin.AdminProtocol.FORCE;
import static org.wharfmq.server.admin.AdminProtocol.FROM;
import static org.wharfmq.server.admin.AdminProtocol.HEX;
import static org.wharfmq.server.admin.AdminProtocol.LIMIT;
import static org.wharfmq.server.admin.AdminProtocol.PATTERN;
import static org.wharfmq.server.admin.AdminProtocol.QUEUE;
import static org.wharfmq.server.admin.AdminProtocol.SELECTOR;
import static org.wharfmq.server.admin.AdminProtocol.SUBSCRIPTION;
import static org.wharfmq.server.admin.AdminProtocol.TO;
import static org.wharfmq.server.admin.AdminProtocol.REMOTE_QUEUE;
import static org.wharfmq.server.admin.AdminProtocol.REMOTE_QUEUE_MANAGER;
import static org.wharfmq.server.admin.AdminProtocol.TARGET;
import static org.wharfmq.server.admin.AdminProtocol.TRANSMISSION_QUEUE;

/**
 * The admin commands over the broker's management view: queues, connections, subscriptions, prepared XA branches, the
 * server
 * (docs/operations.md lists each with its arguments and answer). Each is one call of {@link Management}; this class
 * only reads the arguments and shapes the answer.
 */
final class ManagementCommands implements AdminCommands {

    /** Messages {@code browse-queue} shows when the request sets no limit. */
    static final long DEFAULT_BROWSE_LIMIT = 10;
    /** Bytes of each body {@code browse-queue} shows at most: {@value} (the rest is counted, not sent). */
    static final int BROWSE_BODY_BYTES = 64 * 1024;

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Management management;
    /** What the components beside the queue manager add to {@code display-server}'s answer (the HTTP listener). */
    private final Supplier<Map<String, Object>> componentStatus;

    ManagementCommands(Management management, Supplier<Map<String, Object>> componentStatus) {
        this.management = management;
        this.componentStatus = componentStatus;
    }

    @Override
    public Map<String, AdminCommand> commands() {
        Map<String, AdminCommand> commands = new LinkedHashMap<>();
        commands.put("display-server", r -> server());
        commands.put("display-queues", r -> management.queues(r.string(PATTERN)));
        commands.put("display-queue", r -> management.queue(queue(r)));
        commands.put("define-queue", r -> management.defineQueue(definition(r)));
        commands.put("alter-queue", r -> management.alterQueue(queue(r), settings(r)));
        commands.put("delete-queue", r -> {
            String queue = queue(r);
            return Map.of("queue", queue, "discarded", management.deleteQueue(queue, r.flag(FORCE)));
        });
        commands.put("display-names", r -> management.names());
        commands.put("define-alias", r -> management.defineName(QueueReference.alias(queue(r),
                r.required(TARGET, "the queue it stands for"))));
        commands.put("define-remote", r -> management.defineName(QueueReference.remote(queue(r),
                r.string(REMOTE_QUEUE), r.string(REMOTE_QUEUE_MANAGER), r.string(TRANSMISSION_QUEUE))));
        commands.put("delete-alias", r -> management.deleteName(queue(r), QueueReference.ALIAS));
        commands.put("delete-remote", r -> management.deleteName(queue(r), QueueReference.REMOTE));
        commands.put("clear-queue", r -> management.clearQueue(queue(r)));
        commands.put("browse-queue", r -> {
            boolean hex = r.flag(HEX);
            long limit = limit(r, DEFAULT_BROWSE_LIMIT);
            return management.browse(queue(r), r.string(SELECTOR), (int) Math.min(limit, Integer.MAX_VALUE),
                    BROWSE_BODY_BYTES).stream().map(m -> ShownMessage.of(m, hex)).toList();
        });
        commands.put("move", r -> management.move(r.required(FROM, "the source queue"),
                r.required(TO, "the target queue"), r.string(SELECTOR), limit(r, Long.MAX_VALUE)));
        commands.put("copy", r -> management.copy(r.required(FROM, "the source queue"),
                r.required(TO, "the target queue"), r.string(SELECTOR), limit(r, Long.MAX_VALUE)));
        commands.put("display-connections", r -> management.connections());
        commands.put("end-connection", r -> {
            Long id = r.number(CONNECTION);
            if (id == null) {
                throw new IllegalArgumentException("The command needs a connection number ('display connections' "
                        + "lists them).");
            }
            return management.endConnection(id, "Connection " + id + " was ended by an administrator ("
                    + (r.user() == null ? "an anonymous client" : "user '" + r.user() + "'") + ").");
        });
        commands.put("display-subscriptions", r -> management.subscriptions());
        commands.put("display-prepared", r -> management.preparedBranches());
        commands.put("delete-subscription", r -> {
            String name = r.required(SUBSCRIPTION, "the durable subscription's name");
            String clientId = r.string(CLIENT_ID);
            management.deleteSubscription(clientId, name);
            Map<String, Object> deleted = new LinkedHashMap<>();
            deleted.put("subscription", name);
            deleted.put("clientId", clientId);
            return deleted;
        });
        return commands;
    }

    /** The server's status, then what the other components add to it ({@code http}: the HTTP listener). */
    private ObjectNode server() {
        ObjectNode answer = JSON.valueToTree(management.server());
        componentStatus.get().forEach((key, value) -> answer.set(key, JSON.valueToTree(value)));
        return answer;
    }

    private static String queue(AdminRequest r) {
        return r.required(QUEUE, "a queue name");
    }

    /** The queue the request defines: its name, and the settings it gives, checked as config/wharf.yaml's are. */
    private static QueueDefinition definition(AdminRequest r) {
        String name = queue(r);
        try {
            return QueueDefinition.named(name).alteredBy(settings(r), "the command 'define queue " + name + "'");
        } catch (ConfigurationException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    /**
     * The settings the request gives: each argument but the queue's name, by the key config/wharf.yaml gives it
     * ({@code WharfMaxDepth} is {@code maxDepth}), its value as text; one without a value is left out.
     */
    private static Map<String, String> settings(AdminRequest r) {
        Map<String, String> settings = new LinkedHashMap<>();
        r.arguments().forEach((property, value) -> {
            if (!property.equals(QUEUE) && value != null) {
                settings.put(AdminRequest.nameOf(property), value.toString());
            }
        });
        return settings;
    }

    private static long limit(AdminRequest r, long otherwise) {
        Long limit = r.number(LIMIT);
        if (limit != null && limit < 1) {
            throw new IllegalArgumentException("The limit must be at least 1, not " + limit + ".");
        }
        return limit == null ? otherwise : limit;
    }
}
