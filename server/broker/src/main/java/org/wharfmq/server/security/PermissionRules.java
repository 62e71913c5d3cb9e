package org.wharfmq.server.security;

import org.wharfmq.server.config.ConfigurationException;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The permission rules of a security file, in order: for a permission on a destination, the first rule that grants
 * that permission on a pattern matching the destination decides, and the user has it only if that rule names the
 * user, one of the user's groups, or {@code anyone}. No such rule: no permission. So a narrow rule written before a
 * broad one takes precedence: {@code PAYROLL} receivable by {@code user:hr}, then {@code **} by {@code group:apps},
 * keeps the apps out of PAYROLL. Immutable.
 */
public final class PermissionRules implements AccessPolicy {

    /** Who a rule grants a permission to: {@code user:NAME}, {@code group:NAME} or {@code anyone}. */
    public record Grantee(Kind kind, String name) {

        /** What a grantee names. */
        public enum Kind { USER, GROUP, ANYONE }

        /** Anyone, anonymous clients included. */
        public static final Grantee ANYONE = new Grantee(Kind.ANYONE, "");

        /**
         * A grantee as the security file writes it.
         *
         * @throws ConfigurationException naming the three forms
         */
        public static Grantee parse(String text) {
            if (text != null && text.equals("anyone")) {
                return ANYONE;
            }
            if (text != null && text.startsWith("user:") && text.length() > 5) {
                return new Grantee(Kind.USER, text.substring(5));
            }
            if (text != null && text.startsWith("group:") && text.length() > 6) {
                return new Grantee(Kind.GROUP, text.substring(6));
            }
            throw new ConfigurationException("'" + text + "' is not a grantee: write user:NAME, group:NAME or anyone.");
        }

        /** Whether {@code who} is this grantee. */
        public boolean includes(Identity who) {
            return switch (kind) {
                case ANYONE -> true;
                case USER -> !who.anonymous() && who.user().equals(name);
                case GROUP -> who.groups().contains(name);
            };
        }

        @Override
        public String toString() {
            return kind == Kind.ANYONE ? "anyone" : kind.name().toLowerCase(java.util.Locale.ROOT) + ":" + name;
        }
    }

    /**
     * One rule: permissions granted on the destinations a pattern matches, or queue-manager permissions
     * ({@link Permission#ADMIN}) when {@code pattern} is null.
     *
     * @param pattern the queues or topics, or null for the queue manager
     * @param grants  who gets each permission the rule is about
     */
    public record Rule(DestinationPattern pattern, Map<Permission, List<Grantee>> grants) {

        public Rule {
            grants = Map.copyOf(grants);
            for (Permission p : grants.keySet()) {
                Permission.Scope wanted = pattern == null ? Permission.Scope.SERVER : pattern.scope();
                if (p.scope() != wanted) {
                    throw new ConfigurationException("Permission '" + p.key() + "' is about "
                            + (p.scope() == Permission.Scope.SERVER ? "the queue manager (write it in a rule of its "
                            + "own: - " + p.key() + ": [...])" : p.scope().name().toLowerCase(java.util.Locale.ROOT)
                            + "s") + ", not "
                            + (pattern == null ? "the queue manager" : wanted.name().toLowerCase(java.util.Locale.ROOT)
                            + "s (rule for '" + pattern + "')") + ".");
                }
            }
        }

        boolean decides(Permission what, String destination) {
            return grants.containsKey(what) && (pattern == null || pattern.grantsOn(destination));
        }

        /** As the security file says it: {@code queue 'APP1.**' send: [user:app1]}, permissions in their order. */
        @Override
        public String toString() {
            StringBuilder s = new StringBuilder(pattern == null ? "queue manager"
                    : pattern.scope().name().toLowerCase(java.util.Locale.ROOT) + " '" + pattern + "'");
            for (Permission p : Permission.values()) {
                List<Grantee> grantees = grants.get(p);
                if (grantees != null) {
                    s.append(' ').append(p.key()).append(": ").append(grantees);
                }
            }
            return s.toString();
        }
    }

    private final List<Rule> rules;

    /** @param rules in the order the security file lists them */
    public PermissionRules(List<Rule> rules) {
        this.rules = List.copyOf(rules);
    }

    /** A builder of rules in code, for tests and embedding applications. */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public boolean allows(Identity who, Permission what, String destination) {
        Rule rule = decidingRule(what, destination);
        if (rule == null) {
            return false;
        }
        for (Grantee g : rule.grants().get(what)) {
            if (g.includes(who)) {
                return true;
            }
        }
        return false;
    }

    /** The rule that decides {@code what} on {@code destination}, or null when none does (so it is denied). */
    public Rule decidingRule(Permission what, String destination) {
        for (Rule rule : rules) {
            if (rule.decides(what, destination)) {
                return rule;
            }
        }
        return null;
    }

    @Override
    public String decidedBy(Permission what, String destination) {
        Rule rule = decidingRule(what, destination);
        return rule == null ? "no rule grants '" + what.key() + "'" + (destination == null ? "" : " on it")
                : "permissions rule " + (rules.indexOf(rule) + 1) + " decides it (" + rule + ") and does not name the "
                + "client";
    }

    /** The rules, in order. */
    public List<Rule> rules() {
        return rules;
    }

    @Override
    public String toString() {
        return rules.size() + " permission rules";
    }

    /** Rules in order: {@code queue("ORDERS.**", Permission.SEND, "group:apps")} and so on. */
    public static final class Builder {

        private final List<Rule> rules = new ArrayList<>();

        private Builder() {
        }

        /** Grants {@code permission} on the queues {@code pattern} matches to {@code grantees}. */
        public Builder queue(String pattern, Permission permission, String... grantees) {
            return add(DestinationPattern.queue(pattern), permission, grantees);
        }

        /** Grants {@code permission} on the topics {@code pattern} matches to {@code grantees}. */
        public Builder topic(String pattern, Permission permission, String... grantees) {
            return add(DestinationPattern.topic(pattern), permission, grantees);
        }

        /** Grants {@code call} on the HTTP paths {@code pattern} matches to {@code grantees}. */
        public Builder path(String pattern, String... grantees) {
            return add(DestinationPattern.path(pattern), Permission.CALL, grantees);
        }

        /** Grants the admin permission to {@code grantees}. */
        public Builder admin(String... grantees) {
            return add(null, Permission.ADMIN, grantees);
        }

        /** Grants the channel permission (a transmission queue's messages) to {@code grantees}. */
        public Builder channel(String... grantees) {
            return add(null, Permission.CHANNEL, grantees);
        }

        /** Grants the connect permission to {@code grantees}. */
        public Builder connect(String... grantees) {
            return add(null, Permission.CONNECT, grantees);
        }

        private Builder add(DestinationPattern pattern, Permission permission, String... grantees) {
            List<Grantee> list = new ArrayList<>();
            for (String g : grantees) {
                list.add(Grantee.parse(g));
            }
            Map<Permission, List<Grantee>> grants = new EnumMap<>(Permission.class);
            grants.put(permission, List.copyOf(list));
            rules.add(new Rule(pattern, grants));
            return this;
        }

        /** The rules added so far. */
        public PermissionRules build() {
            return new PermissionRules(rules);
        }
    }

    /** The permissions that a rule about {@code scope} may grant. */
    public static Set<Permission> permissionsOf(Permission.Scope scope) {
        Set<Permission> set = java.util.EnumSet.noneOf(Permission.class);
        for (Permission p : Permission.values()) {
            if (p.scope() == scope) {
                set.add(p);
            }
        }
        return set;
    }
}
