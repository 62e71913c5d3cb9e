package org.wharfmq.flow.runtime;

import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.wharfmq.flow.DatabaseUnavailableException;

import javax.sql.DataSource;
import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A reader's database work against a real (in-memory) H2, through a data source that counts what a pool would be
 * asked: a busy reader takes its connection and prepares its statement once for many invocations, and gives the
 * connection back when its read finds nothing, once it has kept it {@link FlowConfiguration#KEEP_CONNECTION_MILLIS},
 * after a failed invocation, and when a statement broke it; the work commits and rolls back as before.
 */
class DatabaseWorkTest {

    private static final String SOURCE = "db";
    private static final String UPDATE = "UPDATE counter SET n = n + 1 WHERE id = 1";

    /** The clock the kept connections' age is told against, moved by the tests. */
    private final AtomicLong now = new AtomicLong();
    private CountingDataSource pool;
    /** The test's own connection, reading what was committed. */
    private Connection check;

    @BeforeEach
    void database() throws SQLException {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:work-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
        pool = new CountingDataSource(h2);
        check = h2.getConnection();
        try (Statement s = check.createStatement()) {
            s.execute("CREATE TABLE counter (id INT PRIMARY KEY, n INT NOT NULL)");
            s.execute("INSERT INTO counter VALUES (1, 0)");
        }
    }

    @AfterEach
    void drop() throws SQLException {
        try (Statement s = check.createStatement()) {
            s.execute("SHUTDOWN");
        }
        check.close();
    }

    @Test
    void aBusyReaderTakesItsConnectionOnceAndPreparesItsStatementOnce() throws SQLException {
        DatabaseWork work = keeping(true);
        for (int i = 0; i < 50; i++) {
            invocation(work);
        }
        assertEquals(50, counter(), "every invocation's update committed");
        assertEquals(1, pool.taken, "connections taken from the pool");
        assertEquals(1, pool.prepared, "statements prepared");
        assertEquals(0, pool.givenBack, "connections given back");

        work.idle(); // the read found no message
        assertEquals(1, pool.givenBack);
        invocation(work);
        assertEquals(2, pool.taken, "after an idle read the next invocation takes a connection again");
        assertEquals(2, pool.prepared);
    }

    @Test
    void aKeptConnectionGoesBackAtTheFirstInvocationsEndPastTheKeepTime() throws SQLException {
        DatabaseWork work = keeping(false);
        invocation(work);
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(FlowConfiguration.KEEP_CONNECTION_MILLIS) - 1);
        invocation(work);
        assertEquals(0, pool.givenBack, "kept just short of the keep time");
        now.addAndGet(1);
        invocation(work);
        assertEquals(1, pool.givenBack, "given back at the end of the invocation that found it kept that long");
        invocation(work);
        assertEquals(2, pool.taken);
        assertEquals(4, counter());
    }

    @Test
    void aFailedInvocationRollsBackAndGivesItsConnectionBack() throws SQLException {
        DatabaseWork work = keeping(true);
        invocation(work);
        work.statement(SOURCE, UPDATE).executeUpdate();
        work.rollback(); // the invocation failed
        assertEquals(1, counter(), "the failed invocation's update rolled back");
        assertEquals(1, pool.givenBack);
        assertEquals(1, pool.closedStatements, "its statement closed with it");
        invocation(work);
        assertEquals(2, counter());
        assertEquals(2, pool.taken);
    }

    @Test
    void aTransactionalReadersWorkIsSeenOnlyOnceItCommits() throws SQLException {
        DatabaseWork work = keeping(true);
        work.statement(SOURCE, UPDATE).executeUpdate();
        assertEquals(0, counter());
        work.commit();
        assertEquals(1, counter());
        work.statement(SOURCE, UPDATE).executeUpdate(); // the kept connection is in manual commit still
        assertEquals(1, counter());
        work.commit();
        assertEquals(2, counter());
    }

    @Test
    void aConnectionAStatementBrokeIsNotKept() throws SQLException {
        DatabaseWork work = keeping(false);
        invocation(work);
        pool.last.close(); // the connection breaks (the pool closes one its statement found broken)
        assertThrows(SQLException.class, () -> work.statement(SOURCE, UPDATE).executeUpdate());
        work.commit(); // a failure terminal took the failure: the invocation ends well
        assertEquals(1, pool.givenBack, "the closed connection went back");
        invocation(work);
        assertEquals(2, pool.taken);
        assertEquals(2, counter());
    }

    @Test
    void aReaderThatDoesNotKeepGivesItsConnectionBackAfterEachInvocation() throws SQLException {
        DatabaseWork work = new DatabaseWork("f", Map.of(SOURCE, pool), false, false, now::get);
        for (int i = 0; i < 3; i++) {
            invocation(work);
        }
        assertEquals(3, pool.taken);
        assertEquals(3, pool.givenBack);
        assertEquals(3, pool.closedStatements);
        assertEquals(3, counter());
    }

    @Test
    void aStoppingReaderGivesEverythingBack() throws SQLException {
        DatabaseWork work = keeping(true);
        invocation(work);
        work.close();
        assertEquals(1, pool.givenBack);
        assertEquals(1, pool.closedStatements);
    }

    /**
     * A data source that gives no connection is unavailable, named, not a refused statement: the flows answer it as
     * "try again later" (HTTP 503).
     */
    @Test
    void aDataSourceThatGivesNoConnectionIsUnavailableNamingIt() {
        JdbcDataSource missing = new JdbcDataSource();
        missing.setURL("jdbc:h2:./target/missing-" + System.nanoTime() + ";IFEXISTS=TRUE"); // H2 will not make it
        DatabaseWork work = new DatabaseWork("f", Map.of("ledger", missing), true);
        DatabaseUnavailableException e = assertThrows(DatabaseUnavailableException.class,
                () -> work.connection("ledger"));
        assertEquals("ledger", e.dataSource());
        assertTrue(e.getMessage().startsWith("Data source 'ledger' gave no connection: the database does not answer"),
                e.getMessage());
        assertTrue(e.getMessage().contains(DatabaseUnavailableException.CAUSE + "org.h2.jdbc.JdbcSQLNonTransient"),
                e.getMessage());
    }

    /** A procedure's call is prepared once per connection taken, as a statement is, and closed with it. */
    @Test
    void aCallIsPreparedOncePerConnectionAndClosedWithIt() throws SQLException {
        DatabaseWork work = keeping(true);
        java.sql.CallableStatement call = work.call(SOURCE, "CALL 1");
        assertEquals(call, work.call(SOURCE, "CALL 1"), "the same call, prepared once");
        call.execute();
        work.commit();
        work.close();
        assertTrue(call.isClosed(), "closed when its connection went back");
    }

    private DatabaseWork keeping(boolean transactional) {
        DatabaseWork work = new DatabaseWork("f", Map.of(SOURCE, pool), transactional, false, now::get);
        work.keepWhileBusy();
        return work;
    }

    /** An invocation as a reader runs one: the statement, the commit, the release that follows every invocation. */
    private static void invocation(DatabaseWork work) throws SQLException {
        work.statement(SOURCE, UPDATE).executeUpdate();
        work.commit();
        work.rollback();
    }

    private int counter() throws SQLException {
        try (Statement s = check.createStatement(); ResultSet row = s.executeQuery("SELECT n FROM counter WHERE id = 1")) {
            row.next();
            return row.getInt(1);
        }
    }

    /**
     * H2's data source, counting the connections taken and given back (closed) and the statements prepared and
     * closed on them.
     */
    private static final class CountingDataSource implements DataSource {
        private final JdbcDataSource h2;
        int taken;
        int givenBack;
        int prepared;
        int closedStatements;
        /** The last connection taken, unwrapped. */
        Connection last;

        CountingDataSource(JdbcDataSource h2) {
            this.h2 = h2;
        }

        @Override
        public Connection getConnection() throws SQLException {
            Connection real = h2.getConnection();
            taken++;
            last = real;
            return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[]{Connection.class},
                    (proxy, method, args) -> {
                        if (method.getName().equals("close")) {
                            givenBack++;
                        }
                        Object result = invoke(real, method, args);
                        if (method.getName().equals("prepareStatement")) {
                            prepared++;
                            java.sql.PreparedStatement statement = (java.sql.PreparedStatement) result;
                            return Proxy.newProxyInstance(getClass().getClassLoader(),
                                    new Class<?>[]{java.sql.PreparedStatement.class}, (p, m, a) -> {
                                        if (m.getName().equals("close")) {
                                            closedStatements++;
                                        }
                                        return invoke(statement, m, a);
                                    });
                        }
                        return result;
                    });
        }

        private static Object invoke(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
            try {
                return method.invoke(target, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }

        @Override
        public Connection getConnection(String user, String password) {
            throw new UnsupportedOperationException();
        }

        @Override
        public PrintWriter getLogWriter() {
            return null;
        }

        @Override
        public void setLogWriter(PrintWriter out) {
        }

        @Override
        public void setLoginTimeout(int seconds) {
        }

        @Override
        public int getLoginTimeout() {
            return 0;
        }

        @Override
        public Logger getParentLogger() {
            return Logger.getGlobal();
        }

        @Override
        public <T> T unwrap(Class<T> type) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean isWrapperFor(Class<?> type) {
            return false;
        }
    }
}
