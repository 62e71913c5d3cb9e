package org.wharfmq.server.security;

import org.wharfmq.server.config.ConfigurationException;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The security file's {@code quotas:} and {@code clientIds:}: how much each user may hold, and which client ids are
 * kept for which users (docs/security.md, "Quotas"). Immutable; a reloaded file is a new one, handed to
 * {@link UserQuotas#replace}.
 *
 * <p>A user's quota for one thing is, in this order: the value a {@code user:NAME} entry sets; else the value the
 * first {@code group:NAME} entry (in file order) of one of its groups sets; else, for a user with the admin
 * permission, unlimited; else the {@code default} entry's value; else the built-in default ({@link Quota#defaultValue}).
 * Anonymous clients are one user together, {@code user:}-less, under the default.
 *
 * @param defaults  the {@code default:} entry's values (those it does not set: the built-in defaults)
 * @param overrides the {@code user:NAME} and {@code group:NAME} entries, in file order, each with the values it sets
 * @param clientIds the client id reservations, in file order: the first whose pattern matches decides
 * @param limited   false when no security file is in use: then nothing is limited per user
 */
public record QuotaRules(Map<Quota, Integer> defaults, List<Entry> overrides, List<Reservation> clientIds,
                         boolean limited) {

    /** A quota without a limit: {@code unlimited} in the file. */
    public static final int UNLIMITED = Integer.MAX_VALUE;

    /** No security file: no quota per user, no client id reserved (every client may do everything). */
    public static final QuotaRules NONE = new QuotaRules(Map.of(), List.of(), List.of(), false);

    /** A security file without {@code quotas:} or {@code clientIds:}: the built-in defaults. */
    public static final QuotaRules DEFAULTS = new QuotaRules(Map.of(), List.of(), List.of(), true);

    public QuotaRules {
        defaults = defaults.isEmpty() ? Map.of() : java.util.Collections.unmodifiableMap(new EnumMap<>(defaults));
        overrides = List.copyOf(overrides);
        clientIds = List.copyOf(clientIds);
    }

    /**
     * One {@code user:NAME} or {@code group:NAME} entry of {@code quotas:}.
     *
     * @param who    the user or group
     * @param values the quotas it sets
     */
    public record Entry(PermissionRules.Grantee who, Map<Quota, Integer> values) {
        public Entry {
            if (who.kind() == PermissionRules.Grantee.Kind.ANYONE) {
                throw new ConfigurationException("'quotas' has an entry for anyone: write it as 'default'.");
            }
            values = values.isEmpty() ? Map.of() : java.util.Collections.unmodifiableMap(new EnumMap<>(values));
        }
    }

    /**
     * A {@code clientIds:} entry: the client ids {@code pattern} matches may be set only by {@code owners}.
     *
     * @param pattern a client id, where {@code *} stands for any characters (none included)
     * @param owners  who may set them
     */
    public record Reservation(String pattern, List<PermissionRules.Grantee> owners) {

        public Reservation {
            if (pattern.isEmpty()) {
                throw new ConfigurationException("A client id under 'clientIds' is empty.");
            }
            owners = List.copyOf(owners);
            if (owners.isEmpty()) {
                throw new ConfigurationException("'clientIds.\"" + pattern + "\"' names nobody: write the user or group"
                        + " it is kept for, such as user:orders or [group:billing]");
            }
        }

        /** Whether {@code clientId} is one of those kept. */
        public boolean matches(String clientId) {
            if (pattern.indexOf('*') < 0) {
                return pattern.equals(clientId);
            }
            List<String> parts = new java.util.ArrayList<>();
            for (String part : pattern.split("\\*", -1)) {
                parts.add(Pattern.quote(part));
            }
            return Pattern.compile(String.join(".*", parts), Pattern.DOTALL).matcher(clientId).matches();
        }

        /** Whether {@code who} may set a client id this keeps. */
        public boolean owns(Identity who) {
            for (PermissionRules.Grantee owner : owners) {
                if (owner.includes(who)) {
                    return true;
                }
            }
            return false;
        }
    }

    /**
     * A user's quota for one thing and where it comes from.
     *
     * @param quota   what it limits
     * @param value   the most, or {@link #UNLIMITED}
     * @param setting the entry of the security file to change: {@code quotas.default.createdQueues} and the like
     */
    public record Limit(Quota quota, int value, String setting) {
    }

    /**
     * {@code who}'s quota for {@code quota}.
     *
     * @param admin whether {@code who} has the admin permission: then unlimited unless an entry for it sets it
     */
    public Limit limit(Identity who, boolean admin, Quota quota) {
        if (!limited || who.server()) {
            return new Limit(quota, UNLIMITED, "none");
        }
        for (Entry e : overrides) {
            if (e.who().kind() == PermissionRules.Grantee.Kind.USER && e.who().includes(who) && e.values().containsKey(quota)) {
                return new Limit(quota, e.values().get(quota), setting(e.who().toString(), quota));
            }
        }
        for (Entry e : overrides) {
            if (e.who().kind() == PermissionRules.Grantee.Kind.GROUP && e.who().includes(who) && e.values().containsKey(quota)) {
                return new Limit(quota, e.values().get(quota), setting(e.who().toString(), quota));
            }
        }
        if (admin) {
            return new Limit(quota, UNLIMITED, "none for an admin");
        }
        Integer value = defaults.get(quota);
        return new Limit(quota, value != null ? value : quota.defaultValue(), setting("default", quota));
    }

    private static String setting(String entry, Quota quota) {
        return "quotas." + (entry.equals("default") ? entry : "\"" + entry + "\"") + "." + quota.key();
    }

    /** The reservation that keeps {@code clientId}, or null when none does. */
    public Reservation reservation(String clientId) {
        for (Reservation r : clientIds) {
            if (r.matches(clientId)) {
                return r;
            }
        }
        return null;
    }

    @Override
    public String toString() {
        return !limited ? "no quotas" : "quotas " + (defaults.isEmpty() ? "(built-in defaults)" : defaults) + " with "
                + overrides.size() + " user and group entries, " + clientIds.size() + " client id reservations";
    }
}
