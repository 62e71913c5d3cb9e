package org.wharfmq.server.flow;

import com.arjuna.ats.internal.jta.recovery.arjunacore.XARecoveryModule;
import com.arjuna.ats.jta.recovery.XAResourceRecoveryHelper;
import io.agroal.api.AgroalDataSourceListener;
import org.jboss.tm.XAResourceRecovery;
import org.jboss.tm.XAResourceRecoveryRegistry;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The recovery of one XA data source's branches in doubt (docs/flows.md, "Coordinated transactions"): Agroal registers
 * the data source's pool here ({@link XAResourceRecoveryRegistry}), and it becomes a helper of Narayana's XA recovery
 * module, whose scans get a new connection of the pool's each time (so a database that crashed and came back is
 * reached again). What the scans do there is logged naming the data source ({@link RecoveryLog}), and so is a database
 * they cannot reach ({@link #listener()}: Agroal reports it to the pool's listeners only).
 */
final class DataSourceRecovery implements XAResourceRecoveryRegistry {

    private static final System.Logger LOG = System.getLogger(DataSourceRecovery.class.getName());

    private final String name;
    private final int periodSeconds;
    private final XARecoveryModule module;
    private final Map<XAResourceRecovery, XAResourceRecoveryHelper> helpers = new ConcurrentHashMap<>();

    /**
     * @param name          the data source's name
     * @param periodSeconds seconds between the recovery scans, for the log
     * @param module        Narayana's XA recovery module
     */
    DataSourceRecovery(String name, int periodSeconds, XARecoveryModule module) {
        this.name = name;
        this.periodSeconds = periodSeconds;
        this.module = module;
    }

    /** The data source as the transaction manager's log and messages name it (Agroal's JNDI name). */
    static String label(String dataSource) {
        return "data source '" + dataSource + "'";
    }

    @Override
    public void addXAResourceRecovery(XAResourceRecovery pool) {
        String label = label(name);
        XAResourceRecoveryHelper helper = new XAResourceRecoveryHelper() {
            @Override
            public boolean initialise(String properties) {
                return true;
            }

            @Override
            public javax.transaction.xa.XAResource[] getXAResources() {
                return RecoveryLog.wrap(label, pool.getXAResources());
            }
        };
        helpers.put(pool, helper);
        module.addXAResourceRecoveryHelper(helper);
    }

    @Override
    public void removeXAResourceRecovery(XAResourceRecovery pool) {
        XAResourceRecoveryHelper helper = helpers.remove(pool);
        if (helper != null) {
            module.removeXAResourceRecoveryHelper(helper);
        }
    }

    /** The helpers of the pool registered (one, once the pool is open), for the scan at start. */
    List<XAResourceRecoveryHelper> helpers() {
        return new ArrayList<>(helpers.values());
    }

    /** Takes the pool's helper out of the recovery module (the pool closed first has removed it already). */
    void close() {
        helpers.values().forEach(module::removeXAResourceRecoveryHelper);
        helpers.clear();
    }

    /**
     * Logs the pool's warnings naming the data source: above all a recovery connection that cannot be made (the
     * database down), which leaves its branches in doubt until a later scan reaches it, and a connection dropped after
     * a failure (the transaction manager's own warning of a failed commit names the connection's object only).
     */
    AgroalDataSourceListener listener() {
        return new AgroalDataSourceListener() {
            @Override
            public void onWarning(String message) {
                if (message.startsWith("Unable to get recovery connection")) {
                    LOG.log(System.Logger.Level.WARNING, "Recovery cannot reach XA " + label(name) + " (" + message
                            + "): the branches in doubt in it, if any, stay prepared, holding their rows' locks, until "
                            + "a scan reaches it; the next in " + periodSeconds + " s (flowHost.recoveryPeriodSeconds). "
                            + "Check that the database is up and takes connections.");
                } else {
                    LOG.log(System.Logger.Level.WARNING, "XA " + label(name) + ": " + message);
                }
            }

            @Override
            public void onConnectionFlush(java.sql.Connection connection) {
                LOG.log(System.Logger.Level.WARNING, "XA " + label(name) + ": a connection that failed (its commit, "
                        + "its rollback or the connection itself) is dropped from the pool; new ones are opened as the "
                        + "flows ask. A transaction whose commit failed there stays in the transaction manager's log, "
                        + "and recovery commits it once the database answers (a scan every " + periodSeconds
                        + " s, flowHost.recoveryPeriodSeconds).");
            }

            @Override
            public void onWarning(Throwable throwable) {
                LOG.log(System.Logger.Level.WARNING, "XA " + label(name) + ": " + throwable);
            }
        };
    }
}
