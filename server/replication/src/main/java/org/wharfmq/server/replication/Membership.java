package org.wharfmq.server.replication;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * The members of one replicated queue manager, read from its {@code replication:} description:
 *
 * <pre>
 * replication:
 *   group: WHARF                 # the replicated queue manager's name; every member must give the same
 *   members:
 *     - id: a
 *       address: mq1:7420        # the replication listener (not the clients' port)
 *       dataDirectory: /srv/wharf/a
 *     - id: b
 *       ...
 * </pre>
 *
 * Exactly three members: Raft needs a majority, and three survive the loss of one (two would stop at the loss of
 * either, and a majority of four is three).
 */
public record Membership(String group, List<Member> members) {

    /** Raft members in a group; see the class comment. */
    public static final int MEMBERS = 3;

    public Membership {
        if (group == null || group.isBlank()) {
            throw new IllegalArgumentException("The replication description names no group: give 'group', the "
                    + "replicated queue manager's name, the same on every member.");
        }
        members = List.copyOf(members);
        if (members.size() != MEMBERS) {
            throw new IllegalArgumentException("Replication group '" + group + "' has " + members.size()
                    + " members; it needs exactly " + MEMBERS + " (a majority of three survives the loss of one). "
                    + "List three under 'members'.");
        }
        Set<String> ids = new HashSet<>();
        Set<String> addresses = new HashSet<>();
        Set<Path> directories = new HashSet<>();
        for (Member m : members) {
            if (!ids.add(m.id())) {
                throw new IllegalArgumentException("Replication group '" + group + "' names member '" + m.id()
                        + "' twice: give each member its own id.");
            }
            if (!addresses.add(m.address())) {
                throw new IllegalArgumentException("Replication members of group '" + group + "' share the address "
                        + m.address() + ": give each member its own host:port.");
            }
            if (!directories.add(m.dataDirectory().toAbsolutePath().normalize())) {
                throw new IllegalArgumentException("Replication members of group '" + group + "' share the data "
                        + "directory " + m.dataDirectory() + ": each member needs its own (no shared disk).");
            }
        }
    }

    /**
     * Reads the {@code replication:} section as a configuration file's parser gives it (maps, lists, strings,
     * numbers); every refusal names the entry and the fix.
     */
    public static Membership parse(Map<String, ?> section) {
        Object group = section.get("group");
        Object list = section.get("members");
        if (!(list instanceof List<?> entries)) {
            throw new IllegalArgumentException("The replication description has no 'members' list: list the three "
                    + "members, each with id, address (host:port) and dataDirectory.");
        }
        List<Member> members = new ArrayList<>();
        for (Object entry : entries) {
            if (!(entry instanceof Map<?, ?> m)) {
                throw new IllegalArgumentException("Replication member '" + entry + "' is not a map: give id, address "
                        + "and dataDirectory.");
            }
            String id = text(m, "id", "?");
            String address = text(m, "address", id);
            int colon = address.lastIndexOf(':');
            if (colon <= 0 || colon == address.length() - 1) {
                throw new IllegalArgumentException("Replication member '" + id + "' has address '" + address
                        + "': give it as host:port.");
            }
            int port;
            try {
                port = Integer.parseInt(address.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("Replication member '" + id + "' has address '" + address
                        + "', whose port is not a number: give it as host:port.");
            }
            members.add(new Member(id, address.substring(0, colon), port, Path.of(text(m, "dataDirectory", id))));
        }
        return new Membership(group == null ? null : group.toString(), members);
    }

    private static String text(Map<?, ?> member, String key, String id) {
        Object value = member.get(key);
        if (value == null || value.toString().isBlank()) {
            throw new IllegalArgumentException("Replication member '" + id + "' has no '" + key + "': give id, "
                    + "address (host:port) and dataDirectory.");
        }
        return value.toString();
    }

    /** The member with {@code id}; refused, naming the members, when there is none. */
    public Member member(String id) {
        for (Member m : members) {
            if (m.id().equals(id)) {
                return m;
            }
        }
        List<String> ids = members.stream().map(Member::id).toList();
        throw new IllegalArgumentException("Replication group '" + group + "' has no member '" + id + "'; its members "
                + "are " + ids + ".");
    }

    /** The Raft group's id: derived from the group's name, so every member computes the same. */
    UUID groupUuid() {
        return UUID.nameUUIDFromBytes(("wharf-replication:" + group).getBytes(StandardCharsets.UTF_8));
    }
}
