package org.wharfmq.server.replication;

import org.wharfmq.server.admin.AdminCommand;
import org.wharfmq.server.admin.AdminCommands;
import org.wharfmq.server.admin.AdminException;
import org.wharfmq.server.admin.AdminProtocol;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The replication's admin commands, served by the admin plugin on the admin command queue (so only a user with the
 * admin permission may send them, and each is audited as every admin command is): {@code switchover} (optional
 * {@value #MEMBER}: the member to hand the active role to), {@code define-member} ({@value #MEMBER} and
 * {@value #ADDRESS}: a member joining the group) and {@code delete-member} ({@value #MEMBER}: one leaving it). A queue manager that is
 * not replicated answers them with a refusal saying so.
 */
public final class ReplicationCommands implements AdminCommands {

    /** Request property: a member's id. */
    public static final String MEMBER = "WharfMember";
    /** Request property: a member's replication address, host:port. */
    public static final String ADDRESS = "WharfAddress";

    /** The member this queue manager is, or null when it is not replicated. */
    private final ReplicationMember member;

    /** The commands of {@code member}; null for a queue manager that is not replicated. */
    public ReplicationCommands(ReplicationMember member) {
        this.member = member;
    }

    @Override
    public Map<String, AdminCommand> commands() {
        Map<String, AdminCommand> commands = new LinkedHashMap<>();
        commands.put("switchover", r -> replicated("switchover").switchover(r.string(MEMBER)));
        commands.put("define-member", r -> replicated("define member").addMember(r.required(MEMBER, "the new "
                + "member's id"), r.required(ADDRESS, "its replication address, host:port")));
        commands.put("delete-member", r -> replicated("delete member").removeMember(r.required(MEMBER,
                "the id of the member to remove")));
        return commands;
    }

    private ReplicationMember replicated(String command) {
        if (member == null) {
            throw new AdminException(AdminProtocol.REFUSED, "This queue manager is not replicated, so '" + command
                    + "' has nothing to do: it runs on the members of a replicated queue manager (a replication: "
                    + "block, docs/resilience.md).");
        }
        return member;
    }

    @Override
    public String toString() {
        return "the replication";
    }
}
