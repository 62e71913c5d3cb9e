package org.wharfmq.jms;

import org.wharfmq.client.core.ClientException;
import org.wharfmq.client.core.ConnectionListener;
import org.wharfmq.client.core.ConnectionSettings;
import org.wharfmq.client.core.CoreConnection;
import org.wharfmq.client.core.ReconnectPolicy;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;

import javax.jms.JMSException;

/**
 * A status session with a replica of a replicated queue manager (docs/protocol.md, "Status sessions"): not a JMS
 * connection, but the way an administrator's tool ({@code wharf admin}) asks a member that serves no applications for
 * its own status. The HELLO asks for it ({@link Frame.Hello#STATUS_SESSION}); the user logs in as on any connection
 * (SCRAM, the password never crosses the wire) and needs the {@code monitor} permission; then only the read-only
 * admin commands run ({@link #request}), each answered with the admin protocol's JSON. A member that is active answers
 * the HELLO with a normal session, which this class closes and refuses: use a JMS connection there. No reconnection.
 */
public final class WharfStatusSession implements AutoCloseable {

    private final CoreConnection core;

    private WharfStatusSession(CoreConnection core) {
        this.core = core;
    }

    /**
     * Opens a status session with the first of the URL's addresses that answers.
     *
     * @throws JMSException the server's refusal (the login, the monitor permission), the member being active
     *                      (error code {@code ILLEGAL_STATE}), or no address answering
     */
    static WharfStatusSession open(BrokerUrl url, String user, String password) throws JMSException {
        CoreConnection core;
        try {
            core = CoreConnection.connect(new ConnectionSettings(url.addresses(), url.tls(), user, password,
                    url.clientName(), url.heartbeatMillis(), url.connectTimeoutMillis(), url.requestTimeoutMillis(),
                    url.maxReceiveLength(), ReconnectPolicy.NONE, Frame.Hello.STATUS_SESSION), ConnectionListener.NONE);
        } catch (ClientException e) {
            throw JmsErrors.toException(e);
        }
        if (!core.statusSession()) {
            String where = core.current().address().toString();
            core.close();
            throw JmsErrors.toException(ErrorCode.ILLEGAL_STATE, "Wharf at " + where + " is the active instance, "
                    + "which has no status session: administer it over a JMS connection (its admin command queue).");
        }
        return new WharfStatusSession(core);
    }

    /** The queue manager's name, as the member said in its HELLO_OK. */
    public String serverName() {
        return core.current().serverName();
    }

    /**
     * Runs the read-only admin command {@code command} ({@code display-server}) and returns its answer, the admin
     * protocol's JSON.
     *
     * @throws JMSException the member's refusal: NOT_AUTHORISED (no monitor permission), NOT_ACTIVE (a command a
     *                      replica does not run; the message names the active member and the fix), or the session's
     *                      loss
     */
    public String request(String command) throws JMSException {
        try {
            return core.status(command);
        } catch (ClientException e) {
            throw JmsErrors.toException(e);
        }
    }

    /** Ends the session in order (CLOSE). */
    @Override
    public void close() {
        core.close();
    }
}
