package org.wharfmq.server.flow;

import org.wharfmq.jms.JmsErrors;
import org.wharfmq.protocol.auth.Mechanisms;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.server.ServerPlugin;
import org.wharfmq.server.security.Authenticator;
import org.wharfmq.server.security.Identity;

import javax.jms.JMSException;

/**
 * The flows' user ({@code flowHost.user}) as the queue manager knows it, for what the flows do inside it
 * ({@link InProcessInputs}, {@link InProcessOutputs}): as their in-VM connection's login made them, with the groups the
 * users file gives the user now; none: the queue manager itself, as an anonymous in-VM connection is.
 */
final class FlowUser {

    private final ServerPlugin.Host server;
    /** The flows' user, or null: the queue manager's own authority. */
    private final String user;

    FlowUser(ServerPlugin.Host server, String user) {
        this.server = server;
        this.user = user;
    }

    /**
     * Who the flows are now.
     *
     * @param what what the flows cannot do without it, for the refusal ("take their input")
     * @throws JMSException AUTHENTICATION_FAILED when the user is no longer in the security file
     */
    Identity identity(String what) throws JMSException {
        if (user == null) {
            return Identity.SERVER;
        }
        Authenticator.User known = server.logins().authenticator().user(user);
        if (known == null) {
            throw JmsErrors.toException(ErrorCode.AUTHENTICATION_FAILED, "The flows' user '" + user + "' (flowHost.user)"
                    + " is no longer a user of the security file: its flows cannot " + what + ". Add the user again,"
                    + " or set flowHost.user to one that is.");
        }
        return new Identity(user, known.groups(), Mechanisms.SCRAM_SHA_256);
    }
}
