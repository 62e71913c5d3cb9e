package org.wharfmq.server.security;

/**
 * Whether a user may do something: the broker asks when a producer, consumer, browser, subscription or queue is
 * created and when an anonymous producer sends to a destination it has not sent to before. Implementations are
 * immutable; new rules (a reloaded security file) are a new policy, given to {@link AccessControl}.
 */
public interface AccessPolicy {

    /** Every user may do everything: a queue manager without a security file (docs/security.md). */
    AccessPolicy ALLOW_ALL = new AccessPolicy() {
        @Override
        public boolean allows(Identity who, Permission what, String destination) {
            return true;
        }

        @Override
        public String toString() {
            return "no security file: every client may do everything";
        }
    };

    /**
     * Whether {@code who} has permission {@code what} on {@code destination}.
     *
     * @param destination the queue name or topic string ({@link Permission#scope()}); for {@link Permission#SUBSCRIBE}
     *                    and {@link Permission#DURABLE} a filter, allowed only when every topic it matches is; null
     *                    for {@link Permission.Scope#SERVER} permissions (connect, admin)
     */
    boolean allows(Identity who, Permission what, String destination);

    /**
     * What decided {@code what} on {@code destination}, for the audit line of a denial (the client is told the
     * permission and the destination only): the rule that decides it, or that none does.
     */
    default String decidedBy(Permission what, String destination) {
        return toString();
    }
}
