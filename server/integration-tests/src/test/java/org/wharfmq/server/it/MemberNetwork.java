package org.wharfmq.server.it;

import java.util.List;

/**
 * The network of queue managers that a test runs as processes and that talk to each other (its members: a replicated
 * queue manager's, store.ReplicatedGroup; two queue managers joined by channels): the host name each member reaches
 * another at ({@code member-ID}, which each member resolves through a hosts file), where the test's clients reach a
 * member, how a member's process is started in it, and how the paths between a member and the others are cut and
 * healed (its clients' paths stay). {@link LoopbackNetwork}: TCP proxies on loopback addresses, no privileges needed;
 * {@link NamespaceNetwork}: each member in a network namespace of its own.
 */
public interface MemberNetwork extends AutoCloseable {

    /** The host name the other members reach member {@code id} at (its replication or channel listener). */
    static String host(String id) {
        return "member-" + id;
    }

    /** The address the test's clients (its admin commands, its metrics scrapes) reach member {@code i} at. */
    String clientHost(int i);

    /**
     * Whether the test's clients connect from the members' own machine (127.0.0.1): a queue manager without users
     * accepts anonymous clients from there only.
     */
    boolean clientsLocal();

    /** What comes before member {@code i}'s java command: nothing, or {@code ip netns exec NAME}. */
    List<String> commandPrefix(int i);

    /** Options for member {@code i}'s JVM: its hosts file. */
    List<String> jvmOptions(int i);

    /** Cuts every path between member {@code i} and the others, both ways. */
    void cut(int i) throws Exception;

    /** Heals what {@link #cut} cut. */
    void heal(int i) throws Exception;

    /** Takes the network down: for a test's finally, once the members have ended. */
    @Override
    void close() throws Exception;
}
