package org.wharfmq.server.security;

import java.net.SocketAddress;

/**
 * The audit log: the {@code System.Logger} named {@value #NAME}, one line per security event (a failed login, a
 * connection refused for a limit; denials and admin actions from authorisation; XA completions), each saying who,
 * from where, what and the result, so it can be routed to its own file (docs/security.md).
 */
public final class AuditLog {

    /** The logger's name. */
    public static final String NAME = "org.wharfmq.audit";

    private static final System.Logger LOG = System.getLogger(NAME);

    private AuditLog() {
    }

    /**
     * A login refused.
     *
     * @param user      the user the client named ("" for none)
     * @param from      the client's address
     * @param mechanism the mechanism it used (null before it chose one)
     * @param reason    why, for the operator (the client is told less)
     * @param delayMillis how long the answer is held back because of earlier failures of the user from the address, or
     *                    of many users from it
     */
    public static void loginFailed(String user, SocketAddress from, String mechanism, String reason, long delayMillis) {
        LOG.log(System.Logger.Level.WARNING, "login failed: user '" + user + "' from " + from + " mechanism "
                + (mechanism == null ? "none" : mechanism) + ": " + reason
                + (delayMillis > 0 ? "; answer delayed " + delayMillis + " ms after repeated failures (docs/security.md, Login throttling)" : ""));
    }

    /**
     * A connection refused before its handshake because the server holds its maximum number of connections, in total
     * or from the client's address.
     *
     * @param from   the client's address
     * @param reason what the client is told: the limit, the count and the setting
     */
    public static void connectionRefused(SocketAddress from, String reason) {
        LOG.log(System.Logger.Level.WARNING, "connection refused: from " + from + ": " + reason);
    }

    /**
     * A request refused for want of a permission.
     *
     * @param why for the administrators alone: where the rules are and which rule decided (the client is told less)
     */
    public static void denied(Identity who, Object from, Permission what, String target, String why) {
        LOG.log(System.Logger.Level.WARNING, "DENIED " + who.describe() + " from " + from + ": " + what.key() + " "
                + target + " (" + why + ")");
    }

    /**
     * An XA branch's completion (commit, rollback, a prepare that rolls it back or forgets it) with its result, or an
     * admin's listing of other users' branches.
     *
     * @param what what was done, naming the Xid and the result, and the branch's owner when it is not {@code who}
     * @param ok   false when it failed (a WARNING)
     */
    public static void xa(Identity who, Object from, String what, boolean ok) {
        System.Logger.Level level = level(who, ok);
        if (LOG.isLoggable(level)) {
            LOG.log(level, "XA " + who.describe() + " from " + from + ": " + what);
        }
    }

    /**
     * Whether an event of {@code who} with result {@code ok} is written: a caller that builds the event's description
     * asks first, so that a line not written costs no string.
     */
    public static boolean logs(Identity who, boolean ok) {
        return LOG.isLoggable(level(who, ok));
    }

    /**
     * A message sent to a system queue (an admin command, a dead letter, a channel's sync record), with where it came
     * from.
     */
    public static void sent(Identity who, Object from, String queue) {
        System.Logger.Level level = level(who, true);
        if (LOG.isLoggable(level)) {
            LOG.log(level, who.describe() + " from " + from + " sent a message to " + queue);
        }
    }

    /**
     * An event's level: WARNING when it failed; DEBUG for the queue manager's own routine work done by itself (its
     * channels' batches: each batch's XA completion on the sender, its sync record on the receiver), which is no
     * user's action and would be lines per batch; INFO for the rest.
     */
    private static System.Logger.Level level(Identity who, boolean ok) {
        return !ok ? System.Logger.Level.WARNING : who.server() ? System.Logger.Level.DEBUG : System.Logger.Level.INFO;
    }

    /** An XA request refused because its branch is another user's: {@code what} names the request and the Xid. */
    public static void xaDenied(Identity who, Object from, String what) {
        LOG.log(System.Logger.Level.WARNING, "DENIED " + who.describe() + " from " + from + ": " + what);
    }

    /**
     * A request refused by a quota of the security file ({@link UserQuotas}) or a client id kept for another user.
     *
     * @param from where the client connects from
     * @param what what was refused and why
     */
    public static void refused(Identity who, Object from, String what) {
        LOG.log(System.Logger.Level.WARNING, "REFUSED " + who.describe() + " from " + from + ": " + what);
    }

    /**
     * A peer that is no user refused: a replication member's connection whose certificate names another member than
     * the one it speaks as. {@code what} names the peer, what was refused, why and the fix.
     */
    public static void peerRefused(String what) {
        LOG.log(System.Logger.Level.WARNING, "REFUSED " + what);
    }

    /** Something allowed that is worth keeping: an admin command's arrival, new permission rules in force. */
    public static void action(String what) {
        LOG.log(System.Logger.Level.INFO, what);
    }

    /** An admin command as the admin command responder ran it: who, what, and the result. */
    public static void adminCommand(String what, boolean ok) {
        LOG.log(ok ? System.Logger.Level.INFO : System.Logger.Level.WARNING, what);
    }
}
