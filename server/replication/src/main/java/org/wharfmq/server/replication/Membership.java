package org.wharfmq.server.replication;

import org.wharfmq.server.config.ConfigurationException;
import org.wharfmq.server.config.SettingValues;
import org.wharfmq.server.config.Settings;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
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
 * At least three members: Raft needs a majority, and three survive the loss of one (two would stop at the loss of
 * either). The block is the group a member founds when its replicated log is new; once the log exists, the members
 * are the ones its latest configuration entry names (changed at run time by {@code define member} and
 * {@code delete member}), and the block only has to name this member as it is (docs/resilience.md, "Adding,
 * removing and replacing a member").
 */
public record Membership(String group, List<Member> members) {

    /** The fewest members a group may have; see the class comment. */
    public static final int MIN_MEMBERS = 3;

    public Membership {
        if (group == null || group.isBlank()) {
            throw new IllegalArgumentException("The replication block has no group: give replication.group, the "
                    + "replicated queue manager's name, the same on every member.");
        }
        members = List.copyOf(members);
        if (members.size() < MIN_MEMBERS) {
            throw new IllegalArgumentException("Replication group '" + group + "' has " + members.size()
                    + " members; it needs at least " + MIN_MEMBERS + " (a majority of three survives the loss of "
                    + "one). List three under replication.members.");
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
     * Reads the members of a {@code replication:} block, of {@code group} ({@link ReplicationSettings#SECTION} reads the
     * block's other keys and refuses unknown ones).
     */
    static Membership read(Settings file, Settings block, String group) {
        List<Member> members = new ArrayList<>();
        for (Settings entry : block.sections("members")) {
            SettingValues values = SettingValues.ofEntry(entry, ReplicationConfiguration.MemberEntry.class);
            entry.refuseUnknown();
            String id = values.get(ReplicationConfiguration.MemberEntry.ID);
            values.named(id == null || id.isBlank() ? entry.path() : "member '" + id + "'").check();
            String address = values.get(ReplicationConfiguration.MemberEntry.ADDRESS);
            try {
                members.add(new Member(id, Member.host(address), Member.port(address),
                        Path.of(values.get(ReplicationConfiguration.MemberEntry.DATA_DIRECTORY)),
                        values.get(ReplicationConfiguration.MemberEntry.HTTP_URL)));
            } catch (IllegalArgumentException e) {
                throw new ConfigurationException(e.getMessage() + " (in " + file.source() + ", "
                        + block.path("members") + ")", e);
            }
        }
        try {
            return new Membership(group, members);
        } catch (IllegalArgumentException e) {
            throw new ConfigurationException(e.getMessage() + " (in " + file.source() + ", setting replication)", e);
        }
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

    /**
     * Where member {@code id}'s HTTP listener is reached ({@code httpUrl}), or null when this list does not say (or
     * has no such member: one added at run time by {@code define member} and not listed here).
     */
    public String httpUrl(String id) {
        for (Member m : members) {
            if (m.id().equals(id)) {
                return m.httpUrl();
            }
        }
        return null;
    }

    /** The Raft group's id: derived from the group's name, so every member computes the same. */
    UUID groupUuid() {
        return UUID.nameUUIDFromBytes(("wharf-replication:" + group).getBytes(StandardCharsets.UTF_8));
    }
}
