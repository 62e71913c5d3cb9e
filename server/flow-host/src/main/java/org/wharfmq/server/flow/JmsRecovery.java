package org.wharfmq.server.flow;

import com.arjuna.ats.jta.recovery.XAResourceRecoveryHelper;

import javax.jms.JMSException;
import javax.jms.XAConnection;
import javax.jms.XASession;
import javax.transaction.xa.XAResource;

/**
 * The recovery scans' way into a JMS resource manager (the queue manager, or an {@code xa: true} JMS provider): a
 * helper of Narayana's XA recovery module with an XA connection kept open (made again once lost) and a new XA session
 * for each scan. A resource manager that cannot be reached is logged, naming it, and its branches in doubt wait for a
 * later scan; what the scans settle there is logged naming it ({@link RecoveryLog}). Its scans run on the recovery
 * manager's thread, or the flow host's at start: one at a time.
 */
final class JmsRecovery implements XAResourceRecoveryHelper {

    private static final System.Logger LOG = System.getLogger(JmsRecovery.class.getName());

    /** Opens an XA connection to the resource manager. */
    interface Connecting {
        XAConnection connect() throws JMSException;
    }

    private final String owner;
    private final String where;
    private final Connecting connecting;
    private final int periodSeconds;
    private XAConnection connection;
    private XASession session;

    /**
     * @param owner         the resource manager as the recovery log names it ("the queue manager")
     * @param where         the resource manager and its address, for a warning that it cannot be reached
     * @param periodSeconds seconds between the recovery scans, for the log
     */
    JmsRecovery(String owner, String where, Connecting connecting, int periodSeconds) {
        this.owner = owner;
        this.where = where;
        this.connecting = connecting;
        this.periodSeconds = periodSeconds;
    }

    @Override
    public boolean initialise(String properties) {
        return true;
    }

    /** Its XA resource for a scan, or none when it cannot be reached (logged: the next scan tries again). */
    @Override
    public synchronized XAResource[] getXAResources() {
        if (session != null) {
            try {
                session.close();
            } catch (JMSException | RuntimeException lost) {
                close();
            }
            session = null;
        }
        try {
            if (connection != null) {
                try {
                    session = connection.createXASession();
                } catch (JMSException | RuntimeException lost) {
                    close();
                }
            }
            if (session == null) {
                connection = connecting.connect();
                session = connection.createXASession();
            }
            return RecoveryLog.wrap(owner, new XAResource[]{session.getXAResource()});
        } catch (JMSException | RuntimeException e) {
            close();
            LOG.log(System.Logger.Level.WARNING, "Recovery cannot reach " + where + " (" + e + "): the branches in "
                    + "doubt in it, if any, stay prepared, holding their messages, until a scan reaches it; the next in "
                    + periodSeconds + " s (flowHost.recoveryPeriodSeconds). Check that it is up and takes connections.");
            return new XAResource[0];
        }
    }

    /** Closes the connection (a later scan opens another). */
    synchronized void close() {
        if (connection != null) {
            try {
                connection.close();
            } catch (JMSException | RuntimeException e) {
                LOG.log(System.Logger.Level.DEBUG, "Closing the recovery's connection to " + owner + ": " + e);
            }
            connection = null;
            session = null;
        }
    }
}
