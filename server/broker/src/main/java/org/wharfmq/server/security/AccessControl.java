package org.wharfmq.server.security;

import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.message.TransmissionHeader;
import org.wharfmq.server.WharfException;
import org.wharfmq.server.queue.SystemQueues;
import org.wharfmq.server.topic.TopicNames;

/**
 * The queue manager's authorisation: the {@link AccessPolicy} in force, which a reload of the security file
 * replaces at run time, and the rules no policy can change. Asked when a producer, consumer, browser, subscription
 * or queue is created, and for an anonymous producer's send to a destination its session has not sent to since the
 * policy last changed (see {@link #generation()}), so nothing is asked per message.
 *
 * <p>Rules of its own, whatever the policy:
 * <ul>
 *   <li>{@link Identity#SERVER} (the queue manager's own in-VM connections) may do everything.</li>
 *   <li>The {@code SYSTEM.*} queues (dead letters, the admin command and reply queues) are created, sent to,
 *       received from and browsed with the {@link Permission#ADMIN} permission only: so every admin command needs
 *       it. So are another queue manager's ({@code QM2/SYSTEM.*}). A flow's checkpoint queue
 *       ({@link SystemQueues#isFlowCheckpoint}) also with a grant of a rule whose pattern names {@code SYSTEM}
 *       ({@code SYSTEM.FLOW.CHECKPOINT.**}: a wildcard first part does not take it in), for a flow host's user.</li>
 *   <li>The {@code $SYS/...} topics (the queue manager's events) are published to by the queue manager only; a
 *       client subscribes to them with the admin permission, or a subscribe grant whose pattern names
 *       {@code $SYS} (a wildcard first level does not take them in: {@link DestinationPattern}).</li>
 *   <li>{@link Permission#ADMIN} includes {@link Permission#MONITOR}.</li>
 * </ul>
 *
 * <p>A denial is a {@link WharfException} NOT_AUTHORISED naming the user, the permission, the destination and the
 * grant that would allow it, and a line in the {@link AuditLog} that adds where the rules are (the security file's
 * path) and which rule decided: the client is not told the server's paths or other users' rules. Thread-safe: the
 * policy is read once per question.
 */
public final class AccessControl {

    private volatile AccessPolicy policy;
    private volatile long generation;
    private volatile String source;
    private final UserQuotas quotas;

    /**
     * Rules without quotas per user (rules made in code; the security file's come with its quotas).
     *
     * @param policy the rules at start
     * @param source where they come from, for the log and the audit lines of denials (e.g.
     *               {@code security file config/security.yaml}); never told to a client
     */
    public AccessControl(AccessPolicy policy, String source) {
        this(policy, QuotaRules.NONE, source);
    }

    /**
     * @param policy the rules at start
     * @param quotas the quotas per user at start ({@link #quotas()})
     * @param source where they come from, for denials and the log (e.g. {@code security file config/security.yaml})
     */
    public AccessControl(AccessPolicy policy, QuotaRules quotas, String source) {
        this.policy = policy;
        this.source = source;
        this.quotas = new UserQuotas(quotas, who -> allows(who, Permission.ADMIN, null));
    }

    /** No security file: every client may do everything (docs/security.md, "Secure defaults"), without quotas. */
    public static AccessControl allowAll() {
        return new AccessControl(AccessPolicy.ALLOW_ALL, QuotaRules.NONE, "no security file");
    }

    /** What each user holds against its quotas, and the quotas in force ({@link UserQuotas#replace} at a reload). */
    public UserQuotas quotas() {
        return quotas;
    }

    /**
     * Puts new rules in force (a reloaded security file): every later question gets their answer; what was allowed
     * before goes on (an open consumer keeps consuming), and cached answers are void ({@link #generation()}).
     */
    public void replace(AccessPolicy next, String nextSource) {
        policy = next;
        source = nextSource;
        generation++; // one writer: the reload
        AuditLog.action("Permission rules replaced: " + next + " (" + nextSource + ")");
    }

    /** Changes whenever the rules do: an answer cached under another generation must be asked again. */
    public long generation() {
        return generation;
    }

    /** Whether {@code who} has permission {@code what} on {@code destination} (null for {@link Permission#ADMIN}). */
    public boolean allows(Identity who, Permission what, String destination) {
        if (who.server()) {
            return true;
        }
        AccessPolicy rules = policy;
        if (what.scope() == Permission.Scope.QUEUE && isSystem(destination)) {
            return SystemQueues.isFlowCheckpoint(destination) && rules.allows(who, what, destination)
                    || rules.allows(who, Permission.ADMIN, null);
        }
        if (what.scope() == Permission.Scope.TOPIC && TopicNames.isSystemTopic(destination)) {
            return what != Permission.PUBLISH // the queue manager's own events: no client may forge one
                    && (rules.allows(who, what, destination) || rules.allows(who, Permission.ADMIN, null));
        }
        if (what == Permission.MONITOR && rules.allows(who, Permission.ADMIN, null)) {
            return true; // an admin sees what a monitor sees
        }
        return rules.allows(who, what, destination);
    }

    /**
     * Whether a queue name is a {@code SYSTEM.*} queue's, here ({@code SYSTEM.X}) or on another queue manager
     * ({@code QM2/SYSTEM.X}): another queue manager's are its own as much as ours are ours (its channels put on them
     * what only queue managers send, such as a publish/subscribe hierarchy's proxy subscriptions).
     */
    private static boolean isSystem(String queue) {
        return SystemQueues.isSystem(TransmissionHeader.queueOf(queue));
    }

    /**
     * Checks a permission.
     *
     * @param peer where the client connects from, for the audit log
     * @throws WharfException NOT_AUTHORISED naming the user, the permission, the destination and the fix; where the
     *                        rules are and which one decided go to the audit log only, for the administrators
     */
    public void check(Identity who, Permission what, String destination, Object peer) {
        if (allows(who, what, destination)) {
            return;
        }
        String target = describe(what, destination);
        AccessPolicy rules = policy;
        if (what == Permission.PUBLISH && TopicNames.isSystemTopic(destination)) {
            AuditLog.denied(who, peer, what, target, "only the queue manager publishes to " + TopicNames.SYSTEM_LEVEL
                    + "/... topics");
            throw new WharfException(ErrorCode.NOT_AUTHORISED, who.describeAtStart() + " may not publish to " + target
                    + ": the " + TopicNames.SYSTEM_LEVEL + "/... topics are the queue manager's own (its events);"
                    + " only it publishes there.");
        }
        boolean system = what.scope() == Permission.Scope.QUEUE && isSystem(destination);
        Permission needed = system ? Permission.ADMIN : what;
        String grantee = who.anonymous() ? "anyone" : "user:" + who.user();
        String why = !system ? "" : SystemQueues.isFlowCheckpoint(destination)
                ? " (the SYSTEM.* queues need the admin permission; a flow's checkpoint queue also a rule on "
                + SystemQueues.FLOW_CHECKPOINT_PREFIX + "** granting '" + what.key() + "')"
                : " (the SYSTEM.* queues need the admin permission)";
        String message = who.describeAtStart() + " may not " + verb(what) + " " + target + ": no '" + needed.key()
                + "' permission" + why + " is granted to "
                + (who.anonymous() ? "anonymous clients" : "it") + ". Ask an administrator to grant '" + needed.key()
                + "'" + (needed.scope() == Permission.Scope.SERVER ? "" : " on " + target) + " to " + grantee
                + " in the security file's permissions" + (who.anonymous() ? ", or connect as a user that has it" : "")
                + ".";
        AuditLog.denied(who, peer, what, target, source + ": " + rules.decidedBy(needed, system ? null : destination));
        throw new WharfException(ErrorCode.NOT_AUTHORISED, message);
    }

    /**
     * Lets an authenticated client in, or not: the one decision every listener makes once it knows who the client is
     * (the wire's handshake before HELLO_OK, the HTTP listener for every request), so a client refused on one is
     * refused on all. Today that is the {@link Permission#CONNECT} permission, which {@link Permission#ADMIN} does
     * not include.
     *
     * @param peer where the client connects from, for the audit log
     * @throws WharfException NOT_AUTHORISED saying the client may not connect, and why
     */
    public void admit(Identity who, Object peer) {
        check(who, Permission.CONNECT, null, peer);
    }

    private static String describe(Permission what, String destination) {
        return switch (what.scope()) {
            case QUEUE -> "queue '" + destination + "'";
            case TOPIC -> "topic '" + destination + "'";
            case PATH -> "HTTP path '" + destination + "'";
            case SERVER -> "the queue manager";
        };
    }

    private static String verb(Permission what) {
        return switch (what) {
            case SEND -> "send to";
            case RECEIVE -> "receive from";
            case BROWSE -> "browse";
            case CREATE -> "create";
            case PUBLISH -> "publish to";
            case SUBSCRIBE -> "subscribe to";
            case DURABLE -> "hold a durable subscription to";
            case ADMIN -> "administer";
            case MONITOR -> "monitor";
            case CONNECT -> "connect to";
            case CHANNEL -> "run a channel of";
            case CALL -> "call";
        };
    }


    @Override
    public String toString() {
        return policy + " (" + source + ")";
    }
}
