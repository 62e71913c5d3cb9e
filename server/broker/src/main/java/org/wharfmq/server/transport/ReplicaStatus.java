package org.wharfmq.server.transport;

/**
 * What a replica of a replicated queue manager tells an administrator in a status session ({@link StatusListener}):
 * its own status and where the active member is. Called on the listener's event loop; must not block.
 */
public interface ReplicaStatus {

    /** This member's answer to {@code display-server}: the result object of the admin protocol's reply, as JSON. */
    String displayServer();

    /**
     * Where the active member is, as this member knows it, for refusals: "member c (a replica) follows the active
     * member b (replication address mq2:7420)", or that an election is under way.
     */
    String activeMember();
}
