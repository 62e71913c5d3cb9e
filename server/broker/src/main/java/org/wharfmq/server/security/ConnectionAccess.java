package org.wharfmq.server.security;

import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.server.queue.QueueCreator;
import org.wharfmq.server.queue.SystemQueues;

/**
 * What one connection may do: its {@link Identity} asked of the queue manager's {@link AccessControl}, with the
 * destination it last sent to remembered, so that a producer sending to one destination (the usual case, an
 * anonymous producer's included) asks once, not per message, until the rules change. Owned by the connection's
 * event loop, like the connection and its sessions; not thread-safe.
 *
 * <p>A send to a {@code SYSTEM.*} queue (an admin command) is checked and written to the audit log every time, with
 * the peer's address: the admin command responder then logs what the command did.
 *
 * <p>Temporary queues and topics are not subject to rules (their names are made up by their connection): anyone
 * may send to one, which is what a reply needs, and only the connection that created one may consume from it
 * (checked where temporary destinations are kept).
 *
 * <p>What the connection's user holds against its quotas ({@link UserQuotas}) is taken here too: the queues it has
 * created by use (as the {@link QueueCreator} of the queue lookups), its temporary queues, and its REJECTs to the
 * dead-letter queue; and a client id the security file keeps for other users is refused here.
 */
public final class ConnectionAccess implements QueueCreator {

    private final Identity identity;
    private final AccessControl control;
    private final Object peer;

    private String lastSendName;
    private boolean lastSendTopic;
    private long lastSendGeneration;
    /** The transmission queue a qualified name last went through, allowed under {@link #lastThroughGeneration}. */
    private String lastThroughName;
    private long lastThroughGeneration;

    /**
     * @param identity who the connection is
     * @param control  the queue manager's rules
     * @param peer     where the connection comes from, for the audit log
     */
    public ConnectionAccess(Identity identity, AccessControl control, Object peer) {
        this.identity = identity;
        this.control = control;
        this.peer = peer;
    }

    /** Who the connection is. */
    public Identity identity() {
        return identity;
    }

    /** Where the connection comes from, for the audit log. */
    public Object peer() {
        return peer;
    }

    /** Whether the connection has the {@link Permission#ADMIN} permission (asked, not cached: rules change). */
    public boolean isAdmin() {
        return control.allows(identity, Permission.ADMIN, null);
    }

    /**
     * Checks a permission.
     *
     * @throws org.wharfmq.server.WharfException NOT_AUTHORISED naming the user, permission and destination
     */
    public void check(Permission what, String destination) {
        control.check(identity, what, destination, peer);
    }

    /**
     * Checks that the connection may create a producer for {@code destination} ({@link Permission#SEND} for a queue,
     * {@link Permission#PUBLISH} for a topic); null (an anonymous producer) needs nothing yet: its sends are checked.
     */
    public void checkProducer(WireDestination destination) {
        if (destination == null || destination.kind().isTemporary()) {
            return;
        }
        check(destination.kind().isQueue() ? Permission.SEND : Permission.PUBLISH, destination.name());
    }

    /**
     * Checks that the connection may send to {@code destination} ({@link Permission#SEND} for a queue,
     * {@link Permission#PUBLISH} for a topic): asked of the rules only when it differs from the last destination
     * allowed or the rules changed since.
     */
    public void checkSend(WireDestination destination) {
        if (destination == null || destination.kind().isTemporary()) {
            return; // no destination is refused by the send itself; temporary ones: see the class comment
        }
        boolean topic = !destination.kind().isQueue();
        String name = destination.name();
        long generation = control.generation();
        if (generation == lastSendGeneration && topic == lastSendTopic && name.equals(lastSendName)) {
            return;
        }
        check(topic ? Permission.PUBLISH : Permission.SEND, name);
        if (!topic && SystemQueues.isSystem(name) && !SystemQueues.isFlowCheckpoint(name)) {
            // an admin command, or a message for the dead letters: each is audited with where it came from
            AuditLog.sent(identity, peer, name);
            return;
        }
        lastSendName = name;
        lastSendTopic = topic;
        lastSendGeneration = generation;
    }

    /**
     * Checks that the connection may send through transmission queue {@code queue} ({@link Permission#SEND}), as a
     * name qualified by another queue manager ({@code QM2/ORDERS}) needs on top of {@link #checkSend} (IBM MQ checks
     * the transmission queue too): asked of the rules only when it differs from the last one allowed or the rules
     * changed since, so that a requester's replies to {@code QM1/REPLY} (RR-5's) ask once, not per message.
     */
    public void checkSendThrough(String queue) {
        long generation = control.generation();
        if (generation == lastThroughGeneration && queue.equals(lastThroughName)) {
            return;
        }
        check(Permission.SEND, queue);
        lastThroughName = queue;
        lastThroughGeneration = generation;
    }

    /** Checks {@link Permission#CREATE} on a queue about to be created by use; see {@link #createCheck()}. */
    @Override
    public void checkCreate(String queueName) {
        check(Permission.CREATE, queueName);
    }

    /**
     * Counts a queue created by use against the user's quota.
     *
     * @throws org.wharfmq.server.WharfException TOO_MANY_QUEUES naming the user, the quota and its setting
     */
    @Override
    public Runnable created(String queueName) {
        return control.quotas().takeCreatedQueue(identity, queueName, peer);
    }

    /** This connection as the queue manager's lookups that may create a queue ask it: {@link QueueCreator}. */
    public QueueCreator createCheck() {
        return this;
    }

    /**
     * Counts a temporary queue about to be created against the user's quota; {@link #giveBackTemporaryQueue} once it
     * is deleted.
     *
     * @throws org.wharfmq.server.WharfException TOO_MANY_QUEUES naming the user, the quota and its setting
     */
    public void takeTemporaryQueue(String queueName) {
        control.quotas().takeTemporaryQueue(identity, queueName, peer);
    }

    /**
     * A temporary queue this connection, or one of the same user it took over from, counted has been deleted.
     */
    public void giveBackTemporaryQueue() {
        control.quotas().giveBack(identity, Quota.TEMPORARY_QUEUES);
    }

    /**
     * Checks that the connection may set {@code clientId}: not one the security file keeps for other users.
     *
     * @throws org.wharfmq.server.WharfException INVALID_CLIENT_ID naming the reservation
     */
    public void checkClientId(String clientId) {
        control.quotas().checkClientId(identity, clientId, peer);
    }

    /**
     * Whether a delivery the client REJECTs may go to the dead-letter queue: false once the user has sent its quota
     * of them there this minute (then it goes back to its queue instead).
     */
    public boolean mayRejectToDeadLetters() {
        return control.quotas().takeReject(identity, peer);
    }
}
