package org.wharfmq.server.security.file;

import com.fasterxml.jackson.databind.JsonNode;
import org.wharfmq.server.config.ConfigurationException;
import org.wharfmq.server.security.DestinationPattern;
import org.wharfmq.server.security.Permission;
import org.wharfmq.server.security.PermissionRules;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The {@code permissions:} section of the security file: a list of rules, each about the queues one pattern matches
 * ({@code queue: "ORDERS.**"} with {@code send}, {@code receive}, {@code browse}, {@code create}), the topics one
 * pattern matches ({@code topic: "prices/#"} with {@code publish}, {@code subscribe}, {@code durable}), the HTTP paths
 * of message flows one pattern matches ({@code path: "/flows/**"} with {@code call}), or the queue
 * manager ({@code connect}, {@code admin}); each permission lists its grantees ({@code user:NAME},
 * {@code group:NAME}, {@code anyone}). See {@link PermissionRules} for how the rules decide.
 */
final class PermissionsSection {

    private PermissionsSection() {
    }

    /**
     * Reads the section.
     *
     * @throws ConfigurationException naming the rule (by its number) and what is wrong with it
     */
    static PermissionRules read(JsonNode section) {
        if (!section.isArray()) {
            throw new ConfigurationException("'permissions' must be a list of rules, each beginning with queue:, "
                    + "topic:, path:, connect: or admin:");
        }
        List<PermissionRules.Rule> rules = new ArrayList<>();
        int number = 0;
        for (JsonNode entry : section) {
            number++;
            String where = "permissions rule " + number;
            if (!entry.isObject()) {
                throw new ConfigurationException("'" + where + "' must be a map such as {queue: \"ORDERS.*\", send: "
                        + "[group:apps]}");
            }
            try {
                rules.add(rule(entry));
            } catch (ConfigurationException e) {
                throw new ConfigurationException(where + ": " + e.getMessage());
            }
        }
        return new PermissionRules(rules);
    }

    private static PermissionRules.Rule rule(JsonNode entry) {
        DestinationPattern pattern = null;
        if ((entry.has("queue") ? 1 : 0) + (entry.has("topic") ? 1 : 0) + (entry.has("path") ? 1 : 0) > 1) {
            throw new ConfigurationException("a rule is about queues, topics or HTTP paths, one of them: write a rule "
                    + "for each");
        }
        if (entry.has("queue")) {
            pattern = DestinationPattern.queue(text(entry.get("queue"), "queue"));
        } else if (entry.has("topic")) {
            pattern = DestinationPattern.topic(text(entry.get("topic"), "topic"));
        } else if (entry.has("path")) {
            pattern = DestinationPattern.path(text(entry.get("path"), "path"));
        }
        Permission.Scope scope = pattern == null ? Permission.Scope.SERVER : pattern.scope();
        Map<Permission, List<PermissionRules.Grantee>> grants = new EnumMap<>(Permission.class);
        for (Iterator<Map.Entry<String, JsonNode>> it = entry.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> field = it.next();
            String key = field.getKey();
            if (key.equals("queue") || key.equals("topic") || key.equals("path")) {
                continue;
            }
            Permission permission = permission(key, scope);
            JsonNode list = field.getValue();
            if (!list.isArray()) {
                throw new ConfigurationException("'" + key + "' must be a list of grantees, such as [user:alice, "
                        + "group:apps, anyone]");
            }
            List<PermissionRules.Grantee> grantees = new ArrayList<>();
            for (JsonNode g : list) {
                grantees.add(PermissionRules.Grantee.parse(g.isTextual() ? g.asText() : g.toString()));
            }
            grants.put(permission, List.copyOf(grantees));
        }
        if (grants.isEmpty()) {
            throw new ConfigurationException("the rule grants nothing: add a permission such as "
                    + switch (scope) {
                        case SERVER -> "connect: [...]";
                        case QUEUE -> "send: [...]";
                        case TOPIC -> "subscribe: [...]";
                        case PATH -> "call: [...]";
                    });
        }
        return new PermissionRules.Rule(pattern, grants);
    }

    private static Permission permission(String key, Permission.Scope scope) {
        for (Permission p : Permission.values()) {
            if (p.key().equals(key)) {
                return p;
            }
        }
        throw new ConfigurationException("unknown permission '" + key + "': a rule about "
                + scope.name().toLowerCase(Locale.ROOT) + (scope == Permission.Scope.SERVER ? "" : "s") + " may grant "
                + PermissionRules.permissionsOf(scope).stream().map(Permission::key).toList()
                + (scope == Permission.Scope.SERVER ? ", or begin with queue:, topic: or path:" : ""));
    }

    private static String text(JsonNode node, String key) {
        if (node == null || !node.isTextual() || node.asText().isEmpty()) {
            throw new ConfigurationException("'" + key + "' must be a pattern in quotes, such as \"ORDERS.*\"");
        }
        return node.asText();
    }
}
