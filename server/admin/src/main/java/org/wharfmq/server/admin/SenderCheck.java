package org.wharfmq.server.admin;

import org.wharfmq.protocol.message.WireMessage;
import org.wharfmq.server.security.AccessControl;
import org.wharfmq.server.security.AdminSender;
import org.wharfmq.server.security.Identity;
import org.wharfmq.server.security.Permission;

/**
 * Whether the sender of a request on the admin command queue may administer the queue manager, asked by the admin
 * command responder itself before it runs the command, whatever let the request onto the queue: the sender is the
 * identity the queue manager stamped on the request when it accepted it ({@link AdminSender}), never the
 * request's JMSXUserID, and it needs the {@code admin} permission under the rules in force when the command runs.
 *
 * <p>Refused: a request without the stamp (it reached the queue some other way); a request the queue manager's own
 * connection put in the name of a user (its JMSXUserID is then the word of whoever sent it first, a channel's partner
 * or a flow's input, and proves nothing); a request of a user, or an anonymous client, without {@code admin}. The
 * queue manager's own connections with no JMSXUserID (an application that embeds the server, a flow that sends to the
 * queue without {@code flowHost.user}) are the queue manager, which may do everything.
 */
final class SenderCheck {

    private static final String JMSX_USER_ID = "JMSXUserID";

    private final AccessControl control;

    SenderCheck(AccessControl control) {
        this.control = control;
    }

    /**
     * Checks that {@code message}'s sender may run {@code command}.
     *
     * @throws AdminException {@link AdminProtocol#NOT_AUTHORISED}, naming the command, the sender, why and the fix
     */
    void check(String command, WireMessage message) {
        Identity sender = AdminSender.of(message.properties);
        String what = "Admin command '" + command + "'";
        if (sender == null) {
            throw new AdminException(AdminProtocol.NOT_AUTHORISED, what + " was refused: the request carries no "
                    + "sender stamped by the queue manager (it reached SYSTEM.ADMIN.COMMAND.QUEUE by another name"
                    + " or before this check existed), so who sent it is not known. Send it again to "
                    + "SYSTEM.ADMIN.COMMAND.QUEUE by that name (wharf admin does) as a user with the 'admin' "
                    + "permission.");
        }
        if (sender.server()) {
            Object claimed = message.properties.get(JMSX_USER_ID);
            if (claimed != null && !claimed.toString().isEmpty()) {
                throw new AdminException(AdminProtocol.NOT_AUTHORISED, what + " was refused: the queue manager's "
                        + "own connection put it in the name of user '" + claimed + "' (its JMSXUserID), which is the "
                        + "word of whoever sent the message first (a channel's partner, a flow's input), not a login "
                        + "this queue manager checked. Send admin commands over a connection logged in as a user "
                        + "with the 'admin' permission (wharf admin --user NAME).");
            }
            return;
        }
        if (!control.allows(sender, Permission.ADMIN, null)) {
            String grantee = sender.anonymous() ? "anyone" : "user:" + sender.user();
            throw new AdminException(AdminProtocol.NOT_AUTHORISED, what + " was refused: "
                    + sender.describe() + " may not administer this queue manager (no 'admin' permission is granted "
                    + "to it under the rules in force now). Ask an administrator to grant 'admin' to " + grantee
                    + " in the security file's permissions, or send the command as a user that has it.");
        }
    }
}
