package org.wharfmq.server.flow;

import com.arjuna.ats.arjuna.common.CoordinatorEnvironmentBean;
import com.arjuna.ats.arjuna.common.ObjectStoreEnvironmentBean;
import com.arjuna.ats.arjuna.common.arjPropertyManager;
import com.arjuna.ats.arjuna.common.recoveryPropertyManager;
import com.arjuna.ats.arjuna.coordinator.TxControl;
import com.arjuna.ats.arjuna.objectstore.StoreManager;
import com.arjuna.ats.arjuna.recovery.RecoveryManager;
import com.arjuna.ats.arjuna.recovery.RecoveryModule;
import com.arjuna.ats.internal.jta.recovery.arjunacore.JTANodeNameXAResourceOrphanFilter;
import com.arjuna.ats.internal.jta.recovery.arjunacore.JTATransactionLogXAResourceOrphanFilter;
import com.arjuna.ats.internal.jta.recovery.arjunacore.XARecoveryModule;
import com.arjuna.ats.internal.jta.transaction.arjunacore.TransactionSynchronizationRegistryImple;
import com.arjuna.ats.jta.common.jtaPropertyManager;
import com.arjuna.ats.jta.recovery.XAResourceOrphanFilter;
import com.arjuna.ats.jta.recovery.XAResourceRecoveryHelper;
import com.arjuna.common.internal.util.propertyservice.BeanPopulator;
import io.agroal.narayana.NarayanaTransactionIntegration;
import org.wharfmq.flow.runtime.JmsProvider;
import org.wharfmq.jms.WharfXAConnectionFactory;
import org.wharfmq.server.config.ConfigurationException;

import javax.jms.JMSException;
import javax.jms.XAConnection;
import javax.jms.XAConnectionFactory;
import javax.transaction.TransactionManager;
import javax.transaction.TransactionSynchronizationRegistry;
import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The flow host's transaction manager for coordinated flows (docs/flows.md, "Coordinated transactions"): Narayana's
 * JTA, its log (the object store) under {@code DATA/transactions}, and its recovery manager, which finds the prepared
 * branches of the queue manager (over an XA connection of the flow host's, in-VM), of the XA data sources (Agroal's
 * recovery connections) and of the XA JMS providers ({@link JmsRecovery}) and commits those whose transaction the log
 * says committed, rolling back the others. Started by {@link FlowHost#start} only when a data source or a JMS
 * provider is {@code xa: true}; recovery runs before the flows start
 * ({@link #recoverAtStart}), so a crash's in-doubt work is settled before new work comes, then a scan every
 * {@link FlowHostConfiguration#RECOVERY_PERIOD_SECONDS} (a database that crashed between a prepare and its commit is
 * settled by the first scan that reaches it again). What the scans settle is logged naming the resource
 * ({@link RecoveryLog}).
 *
 * <p>Narayana is one per JVM (its settings are static): a JVM runs one coordinated flow host at a time (a second one
 * is refused while the first runs); each start points Narayana at its own data directory.
 *
 * <p>The node identifier, which Narayana writes into each Xid and by which its recovery knows its own branches, is
 * made once per data directory (a random one, kept in {@code DATA/transactions/node-id}), so servers sharing a
 * database or a queue manager never settle each other's branches.
 */
final class XaTransactions implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(XaTransactions.class.getName());

    /** The transaction manager running in this JVM, or null. */
    private static XaTransactions running;

    private final Path store;
    private final int periodSeconds;
    private final RecoveryManager recovery;
    private final XARecoveryModule xaRecovery;
    private final TransactionManager transactionManager;
    private final TransactionSynchronizationRegistry synchronizations = new TransactionSynchronizationRegistryImple();
    private final JmsRecovery queueManager;
    private final List<DataSourceRecovery> dataSources = new CopyOnWriteArrayList<>();
    private final List<JmsRecovery> jmsProviders = new CopyOnWriteArrayList<>();

    private XaTransactions(Path store, int periodSeconds, WharfXAConnectionFactory queueManagerConnections) {
        this.store = store;
        this.periodSeconds = periodSeconds;
        RecoveryManager.delayRecoveryManagerThread(); // its periodic scans start after recoverAtStart
        recovery = RecoveryManager.manager(RecoveryManager.INDIRECT_MANAGEMENT);
        XARecoveryModule module = null;
        for (RecoveryModule candidate : recovery.getModules()) {
            if (candidate instanceof XARecoveryModule xa) {
                module = xa;
            }
        }
        if (module == null) {
            recovery.terminate();
            throw new IllegalStateException("Narayana's recovery manager has no XA recovery module");
        }
        xaRecovery = module;
        queueManager = new JmsRecovery("the queue manager", "the queue manager",
                queueManagerConnections::createXAConnection, periodSeconds);
        xaRecovery.addXAResourceRecoveryHelper(queueManager);
        transactionManager = com.arjuna.ats.jta.TransactionManager.transactionManager();
    }

    /**
     * Configures Narayana (once per JVM) and starts its recovery manager.
     *
     * @param dataDirectory           the server's data directory: the log goes under {@code transactions/}
     * @param queueManagerConnections XA connections to the queue manager, as the flows connect
     * @param periodSeconds           seconds between the recovery scans after the one at start
     * @throws IllegalStateException when another flow host of this JVM runs coordinated flows
     */
    static XaTransactions start(Path dataDirectory, WharfXAConnectionFactory queueManagerConnections,
                                int periodSeconds) {
        Path store = dataDirectory.resolve("transactions").toAbsolutePath();
        synchronized (XaTransactions.class) {
            if (running != null) {
                throw new IllegalStateException("Coordinated flows cannot start with the transaction log " + store
                        + ": this JVM's transaction manager (Narayana, one per JVM) runs for the server whose log is "
                        + running.store + ". Run one server with xa: true data sources per JVM.");
            }
            configure(store, periodSeconds);
            running = new XaTransactions(store, periodSeconds, queueManagerConnections);
            return running;
        }
    }

    private static void configure(Path store, int periodSeconds) {
        String node;
        try {
            Files.createDirectories(store);
            Path id = store.resolve("node-id");
            if (!Files.exists(id)) {
                byte[] random = new byte[8];
                new SecureRandom().nextBytes(random);
                Files.writeString(id.resolveSibling("node-id.new"), "wharf-" + HexFormat.of().formatHex(random));
                Files.move(id.resolveSibling("node-id.new"), id, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            }
            node = Files.readString(id, StandardCharsets.UTF_8).trim();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot open the transaction log's folder " + store + ": " + e, e);
        }
        // no sockets of Narayana's own: the flow host drives it in-process (set before anything reads them)
        BeanPopulator.getDefaultInstance(CoordinatorEnvironmentBean.class).setTransactionStatusManagerEnable(false);
        recoveryPropertyManager.getRecoveryEnvironmentBean().setRecoveryListener(false);
        String objects = store.toString();
        BeanPopulator.getDefaultInstance(ObjectStoreEnvironmentBean.class).setObjectStoreDir(objects);
        BeanPopulator.getNamedInstance(ObjectStoreEnvironmentBean.class, "communicationStore").setObjectStoreDir(objects);
        BeanPopulator.getNamedInstance(ObjectStoreEnvironmentBean.class, "stateStore").setObjectStoreDir(objects);
        try {
            arjPropertyManager.getCoreEnvironmentBean().setNodeIdentifier(node);
        } catch (com.arjuna.ats.arjuna.common.CoreEnvironmentBeanException e) {
            throw new IllegalStateException("The transaction log's node identifier '" + node + "' (in " + store
                    + "/node-id) is refused: " + e.getMessage(), e);
        }
        StoreManager.shutdown(); // the stores of an earlier start in this JVM: opened again from these settings
        TxControl.setXANodeName(node); // read once by Narayana: set again for a later start in this JVM
        jtaPropertyManager.getJTAEnvironmentBean().setXaRecoveryNodes(List.of(node));
        recoveryPropertyManager.getRecoveryEnvironmentBean()
                .setRecoveryBackoffPeriod(FlowHostConfiguration.RECOVERY_BACKOFF_SECONDS);
        recoveryPropertyManager.getRecoveryEnvironmentBean()
                .setPeriodicRecoveryPeriod(periodSeconds);
        LOG.log(System.Logger.Level.INFO, "Coordinated flows: transaction log in " + store + ", node " + node
                + ", recovery scans every " + periodSeconds + " s");
    }

    /** The transaction manager the coordinated flows' invocations run under. */
    TransactionManager transactionManager() {
        return transactionManager;
    }

    /**
     * What enlists the connections of XA data source {@code name}'s pool in the thread's transaction, under its own
     * key (a transaction's connection of one pool is never another pool's) and its name (which the transaction
     * manager's log and warnings give), and registers the pool for recovery.
     *
     * @return the data source's recovery, whose {@link DataSourceRecovery#listener()} the pool is to report to
     */
    DataSourceRecovery recoveryOf(String name) {
        DataSourceRecovery recovery = new DataSourceRecovery(name, periodSeconds, xaRecovery);
        dataSources.add(recovery);
        return recovery;
    }

    /**
     * Registers {@code provider} ({@code xa: true}) for recovery: each scan reaches it over an XA connection of its
     * own. Its connection factory is looked up now, to refuse one that is not XA before any flow starts; a JNDI that
     * does not answer yet is only logged (the scans look it up again).
     *
     * @throws ConfigurationException when its connection factory is not an XA one (the message says why and the fix)
     */
    void recoveryOf(JmsProvider provider) {
        try {
            provider.xaConnectionFactory();
        } catch (JMSException e) {
            LOG.log(System.Logger.Level.WARNING, e.getMessage() + " Recovery tries again at each scan.");
        } catch (IllegalArgumentException e) {
            throw new ConfigurationException(e.getMessage(), e);
        }
        JmsRecovery recovery = new JmsRecovery("JMS provider '" + provider.name() + "'", provider.describe(),
                () -> connect(provider), periodSeconds);
        jmsProviders.add(recovery);
        xaRecovery.addXAResourceRecoveryHelper(recovery);
    }

    private static XAConnection connect(JmsProvider provider) throws JMSException {
        XAConnectionFactory factory = provider.xaConnectionFactory();
        return provider.user() == null ? factory.createXAConnection()
                : factory.createXAConnection(provider.user(), provider.password());
    }

    /** The transaction integration of XA data source {@code name}'s pool, registering it with {@code recovery}. */
    NarayanaTransactionIntegration integration(String name, DataSourceRecovery recovery) {
        return new NarayanaTransactionIntegration(transactionManager, synchronizations, DataSourceRecovery.label(name),
                false, recovery);
    }

    /**
     * Settles what a crash left in doubt, before any flow runs, then starts the periodic scans. A recovery scan
     * commits the branches whose transaction the log decided to commit; then the branches of this server's
     * transactions that the log has no decision for (a crash before it) are rolled back. Narayana's own scans roll
     * such orphans back only once they have seen them for its orphan safety interval (20 s), since they run beside
     * transactions between their prepares and their decision; at start no transaction of this server is, so every
     * one is an orphan.
     */
    void recoverAtStart() {
        recovery.scan();
        XAResourceOrphanFilter ours = new JTANodeNameXAResourceOrphanFilter();
        XAResourceOrphanFilter logged = new JTATransactionLogXAResourceOrphanFilter();
        List<XAResourceRecoveryHelper> helpers = new ArrayList<>();
        dataSources.forEach(dataSource -> helpers.addAll(dataSource.helpers()));
        helpers.addAll(jmsProviders);
        helpers.add(queueManager);
        for (XAResourceRecoveryHelper helper : helpers) {
            XAResource[] resources;
            try {
                resources = helper.getXAResources();
            } catch (Exception e) {
                LOG.log(System.Logger.Level.WARNING, "Recovery at start cannot reach a resource (" + e + "): its "
                        + "branches in doubt wait for the next scan, in " + periodSeconds + " s");
                continue;
            }
            for (XAResource resource : resources) {
                rollBackOrphans(resource, ours, logged);
            }
        }
        recovery.startRecoveryManagerThread();
    }

    private void rollBackOrphans(XAResource resource, XAResourceOrphanFilter ours, XAResourceOrphanFilter logged) {
        try {
            Xid[] prepared = resource.recover(XAResource.TMSTARTRSCAN);
            try {
                for (Xid xid : prepared) {
                    if (ours.checkXid(xid) == XAResourceOrphanFilter.Vote.ROLLBACK
                            && logged.checkXid(xid) != XAResourceOrphanFilter.Vote.LEAVE_ALONE) {
                        resource.rollback(xid); // logged by the resource (RecoveryLog)
                    }
                }
            } finally {
                resource.recover(XAResource.TMENDRSCAN);
            }
        } catch (XAException | RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "Recovery at start could not settle the branches of " + resource
                    + " (" + e + "): they wait for the next scan, in " + periodSeconds + " s");
        }
    }

    /** Stops the recovery manager and closes its connection to the queue manager; another may start then. */
    @Override
    public void close() {
        synchronized (XaTransactions.class) {
            if (running != this) {
                return;
            }
            recovery.terminate();
            xaRecovery.removeXAResourceRecoveryHelper(queueManager);
            dataSources.forEach(DataSourceRecovery::close);
            dataSources.clear();
            jmsProviders.forEach(provider -> {
                xaRecovery.removeXAResourceRecoveryHelper(provider);
                provider.close();
            });
            jmsProviders.clear();
            queueManager.close();
            StoreManager.shutdown();
            running = null;
        }
    }
}
