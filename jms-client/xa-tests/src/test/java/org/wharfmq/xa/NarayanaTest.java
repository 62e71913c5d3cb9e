package org.wharfmq.xa;

import com.arjuna.ats.arjuna.common.ObjectStoreEnvironmentBean;
import com.arjuna.ats.arjuna.common.arjPropertyManager;
import com.arjuna.ats.arjuna.common.recoveryPropertyManager;
import com.arjuna.ats.arjuna.recovery.RecoveryManager;
import com.arjuna.ats.arjuna.recovery.RecoveryModule;
import com.arjuna.ats.internal.jta.recovery.arjunacore.XARecoveryModule;
import com.arjuna.ats.jta.common.jtaPropertyManager;
import com.arjuna.ats.jta.recovery.XAResourceRecoveryHelper;
import com.arjuna.common.internal.util.propertyservice.BeanPopulator;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.jms.WharfXAConnectionFactory;
import org.wharfmq.server.store.ServerProcess;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.jms.TextMessage;
import javax.jms.XAConnection;
import javax.jms.XASession;
import javax.transaction.Transaction;
import javax.transaction.TransactionManager;
import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Wharf under a real transaction manager, Narayana (5.13, javax.transaction), with a database in the same
 * transactions (H2, through its XA data source), as an application server would run them: a row and a message commit
 * together, an exception rolls both back, and a Wharf server killed with SIGKILL between the prepare and the commit is
 * resolved by Narayana's recovery once the server is back: the message then appears, as the row already had.
 */
@Timeout(120)
@Tag("slow")
class NarayanaTest {

    private static final long EXPECTED_MS = 10_000;
    private static final String NODE = "wharf-xa-test";

    private static Path temp;
    private static TransactionManager transactions;
    private static RecoveryManager recovery;
    private static JdbcDataSource database;
    /** Where Narayana's recovery finds the queue manager's branches: the server running now. */
    private static volatile String recoveryUrl;
    private static final Recovering RECOVERING = new Recovering();

    private Path data;
    private ServerProcess server;
    private final List<AutoCloseable> closing = new ArrayList<>();

    @BeforeAll
    static void transactionManager() throws Exception {
        temp = Files.createTempDirectory("wharf-xa-tests-");
        String objectStore = temp.resolve("narayana").toString();
        BeanPopulator.getDefaultInstance(ObjectStoreEnvironmentBean.class).setObjectStoreDir(objectStore);
        BeanPopulator.getNamedInstance(ObjectStoreEnvironmentBean.class, "communicationStore").setObjectStoreDir(objectStore);
        BeanPopulator.getNamedInstance(ObjectStoreEnvironmentBean.class, "stateStore").setObjectStoreDir(objectStore);
        arjPropertyManager.getCoreEnvironmentBean().setNodeIdentifier(NODE);
        jtaPropertyManager.getJTAEnvironmentBean().setXaRecoveryNodes(List.of(NODE));
        recoveryPropertyManager.getRecoveryEnvironmentBean().setRecoveryBackoffPeriod(1); // seconds between passes
        RecoveryManager.delayRecoveryManagerThread();
        recovery = RecoveryManager.manager(RecoveryManager.DIRECT_MANAGEMENT); // scans when the test says
        XARecoveryModule xaRecovery = null;
        for (RecoveryModule module : recovery.getModules()) {
            if (module instanceof XARecoveryModule m) {
                xaRecovery = m;
            }
        }
        assertNotNull(xaRecovery, "Narayana's XA recovery module");
        xaRecovery.addXAResourceRecoveryHelper(RECOVERING);
        transactions = com.arjuna.ats.jta.TransactionManager.transactionManager();

        database = new JdbcDataSource();
        database.setURL("jdbc:h2:file:" + temp.resolve("orders") + ";DB_CLOSE_DELAY=-1");
        try (java.sql.Connection c = database.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE ORDERS (ID INT PRIMARY KEY, ITEM VARCHAR(100))");
        }
    }

    @AfterAll
    static void stopRecovery() throws Exception {
        recovery.terminate();
        RECOVERING.close();
        try (java.sql.Connection c = database.getConnection(); Statement s = c.createStatement()) {
            s.execute("SHUTDOWN");
        }
        try (var files = Files.walk(temp)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }
    }

    @BeforeEach
    void startServer() throws Exception {
        data = temp.resolve("wharf-" + System.nanoTime());
        server = ServerProcess.start(data);
        recoveryUrl = server.url();
    }

    @AfterEach
    void stopServer() throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            try {
                closing.get(i).close();
            } catch (Exception e) {
                // a connection to a killed server: nothing left to close
            }
        }
        server.close();
    }

    /** A row inserted and a message consumed and sent in one transaction: all of it is there after the commit. */
    @Test
    void aRowAndAMessageCommitTogether() throws Exception {
        send("INBOX", "order 1");
        Work work = begin();
        work.consumeAndInsert(1);
        work.send("CONFIRMED", "order 1 confirmed");
        transactions.commit();

        assertTrue(rows().contains("order 1"), "the row is there");
        try (Connection app = connect()) {
            Session session = app.createSession(false, Session.AUTO_ACKNOWLEDGE);
            assertEquals("order 1 confirmed", receive(session, "CONFIRMED").getText());
            assertNull(session.createConsumer(session.createQueue("INBOX")).receiveNoWait(), "consumed for good");
        }
    }

    /** The business logic throws: the transaction rolls back, the row is not there and the message comes back. */
    @Test
    void anExceptionRollsBackTheRowAndTheMessage() throws Exception {
        send("INBOX", "order 2");
        Work work = begin();
        try {
            work.consumeAndInsert(2);
            work.send("CONFIRMED", "order 2 confirmed");
            checkCustomer(); // throws
            transactions.commit();
        } catch (IllegalStateException unknownCustomer) {
            transactions.rollback();
        }

        assertFalse(rows().contains("order 2"), "the row is not there");
        try (Connection app = connect()) {
            Session session = app.createSession(false, Session.AUTO_ACKNOWLEDGE);
            TextMessage again = receive(session, "INBOX");
            assertEquals("order 2", again.getText());
            assertTrue(again.getJMSRedelivered(), "delivered once in the rolled-back transaction");
            assertNull(session.createConsumer(session.createQueue("CONFIRMED")).receiveNoWait());
        }
    }

    private static void checkCustomer() {
        throw new IllegalStateException("the order's customer is unknown");
    }

    /**
     * The server is killed with SIGKILL once both resources are prepared, before Narayana commits: the database
     * commits, Wharf's commit fails (XAER_RMFAIL) and Narayana keeps the transaction in its log. The restarted server
     * holds the branch in doubt (its message invisible) until Narayana's recovery finds it with recover() and commits
     * it.
     */
    @Test
    void aServerKilledBetweenPrepareAndCommitIsResolvedByTheTransactionManagersRecovery() throws Exception {
        Work work = begin();
        work.resource.killAfterPrepare = server;
        work.insert(3, "order 3");
        work.send("CONFIRMED", "order 3 confirmed");
        try {
            transactions.commit(); // Narayana reports the participant it could not commit as it sees fit
        } catch (Exception e) {
            System.out.println("Narayana's commit, with Wharf killed after its prepare: " + e);
        }
        assertTrue(rows().contains("order 3"), "the database committed");

        server = ServerProcess.start(data);
        recoveryUrl = server.url();
        assertTrue(server.outputSoFar().contains("1 prepared XA transactions in doubt"), server.outputSoFar());
        try (Connection app = connect()) {
            Session session = app.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer confirmed = session.createConsumer(session.createQueue("CONFIRMED"));
            assertNull(confirmed.receiveNoWait(), "in doubt until the transaction manager says");
            Message message = null;
            for (int scan = 1; scan <= 5 && message == null; scan++) {
                recovery.scan(); // both passes: the Xids recover() lists, then the logged transaction's commit
                message = confirmed.receiveNoWait();
            }
            assertNotNull(message, "Narayana's recovery committed the branch");
            assertEquals("order 3 confirmed", ((TextMessage) message).getText());
        }
        try (XAConnection check = new WharfXAConnectionFactory(server.url()).createXAConnection()) {
            assertEquals(0, check.createXASession().getXAResource().recover(XAResource.TMSTARTRSCAN).length);
        }
    }

    // ---- the application's side ----

    /** One transaction's work: an XA session of Wharf's and a connection of the database's, both enlisted. */
    private final class Work {
        final XASession session;
        final java.sql.Connection sql;
        final KillingResource resource;

        Work(XASession session, java.sql.Connection sql, KillingResource resource) {
            this.session = session;
            this.sql = sql;
            this.resource = resource;
        }

        /** Takes the next message from INBOX (its consumer closed then: it takes no more) and inserts it as an order. */
        void consumeAndInsert(int id) throws Exception {
            MessageConsumer inbox = session.createConsumer(session.createQueue("INBOX"));
            Message order = inbox.receive(EXPECTED_MS);
            inbox.close();
            assertNotNull(order, "no order within " + EXPECTED_MS + " ms");
            insert(id, ((TextMessage) order).getText());
        }

        void insert(int id, String item) throws SQLException {
            try (var insert = sql.prepareStatement("INSERT INTO ORDERS VALUES (?, ?)")) {
                insert.setInt(1, id);
                insert.setString(2, item);
                insert.executeUpdate();
            }
        }

        void send(String queue, String text) throws JMSException {
            MessageProducer producer = session.createProducer(session.createQueue(queue));
            producer.setDeliveryMode(DeliveryMode.PERSISTENT);
            producer.send(session.createTextMessage(text));
        }
    }

    /** Begins a transaction and enlists a Wharf XA session and a database connection in it, as a container does. */
    private Work begin() throws Exception {
        XAConnection jms = new WharfXAConnectionFactory(server.url()).createXAConnection();
        closing.add(jms);
        jms.start();
        XASession session = jms.createXASession();
        javax.sql.XAConnection db = database.getXAConnection();
        closing.add(db::close);
        transactions.begin();
        Transaction transaction = transactions.getTransaction();
        KillingResource wharf = new KillingResource(session.getXAResource());
        assertTrue(transaction.enlistResource(wharf));
        assertTrue(transaction.enlistResource(db.getXAResource()));
        return new Work(session, db.getConnection(), wharf);
    }

    /**
     * Wharf's XAResource as the transaction manager sees it; when told, it kills the server with SIGKILL right after
     * the server has answered its prepare, before anything else reaches it.
     */
    private static final class KillingResource implements XAResource {
        private final XAResource wharf;
        volatile ServerProcess killAfterPrepare;

        KillingResource(XAResource wharf) {
            this.wharf = wharf;
        }

        @Override
        public int prepare(Xid xid) throws XAException {
            int vote = wharf.prepare(xid);
            ServerProcess doomed = killAfterPrepare;
            if (doomed != null) {
                try {
                    doomed.kill();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return vote;
        }

        @Override
        public void commit(Xid xid, boolean onePhase) throws XAException {
            wharf.commit(xid, onePhase);
        }

        @Override
        public void end(Xid xid, int flags) throws XAException {
            wharf.end(xid, flags);
        }

        @Override
        public void forget(Xid xid) throws XAException {
            wharf.forget(xid);
        }

        @Override
        public int getTransactionTimeout() throws XAException {
            return wharf.getTransactionTimeout();
        }

        @Override
        public boolean isSameRM(XAResource other) throws XAException {
            return other == this;
        }

        @Override
        public Xid[] recover(int flag) throws XAException {
            return wharf.recover(flag);
        }

        @Override
        public void rollback(Xid xid) throws XAException {
            wharf.rollback(xid);
        }

        @Override
        public boolean setTransactionTimeout(int seconds) throws XAException {
            return wharf.setTransactionTimeout(seconds);
        }

        @Override
        public void start(Xid xid, int flags) throws XAException {
            wharf.start(xid, flags);
        }
    }

    /**
     * What Narayana's recovery asks for the resources whose prepared branches it resolves: Wharf's, on a connection
     * to the server running now (opened for each scan, as a container's recovery does), and the database's.
     */
    private static final class Recovering implements XAResourceRecoveryHelper {
        private XAConnection connection;
        private String connectedTo;
        private javax.sql.XAConnection db;

        @Override
        public boolean initialise(String properties) {
            return true;
        }

        @Override
        public synchronized XAResource[] getXAResources() throws Exception {
            String url = recoveryUrl;
            if (connection == null || !url.equals(connectedTo)) {
                if (connection != null) {
                    try {
                        connection.close();
                    } catch (JMSException e) {
                        // the server it reached is gone
                    }
                }
                connection = new WharfXAConnectionFactory(url).createXAConnection();
                connectedTo = url;
            }
            if (db == null) {
                db = database.getXAConnection();
            }
            return new XAResource[]{connection.createXASession().getXAResource(), db.getXAResource()};
        }

        synchronized void close() throws Exception {
            if (connection != null) {
                connection.close();
            }
            if (db != null) {
                db.close();
            }
        }
    }

    // ---- checks, outside any transaction ----

    private Connection connect() throws JMSException {
        Connection connection = new WharfConnectionFactory(server.url()).createConnection();
        connection.start();
        return connection;
    }

    private void send(String queue, String text) throws JMSException {
        try (Connection app = connect()) {
            Session session = app.createSession(false, Session.AUTO_ACKNOWLEDGE);
            session.createProducer(session.createQueue(queue)).send(session.createTextMessage(text));
        }
    }

    private static TextMessage receive(Session session, String queue) throws JMSException {
        Message message = session.createConsumer(session.createQueue(queue)).receive(EXPECTED_MS);
        assertNotNull(message, "no message on " + queue + " within " + EXPECTED_MS + " ms");
        return (TextMessage) message;
    }

    /** The items of the orders the database holds (every test's: their ids differ). */
    private static List<String> rows() throws SQLException {
        List<String> items = new ArrayList<>();
        try (java.sql.Connection c = database.getConnection(); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT ITEM FROM ORDERS ORDER BY ID")) {
            while (r.next()) {
                items.add(r.getString(1));
            }
        }
        return items;
    }
}
