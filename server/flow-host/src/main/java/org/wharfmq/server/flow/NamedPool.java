package org.wharfmq.server.flow;

import org.wharfmq.flow.DatabaseUnavailableException;

import javax.sql.DataSource;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.logging.Logger;

/**
 * A data source's pool as the flows see it: a connection the pool cannot give (none free within the data source's
 * {@code connectionTimeoutMillis}, or the database not answering) is a {@link DatabaseUnavailableException} naming
 * the data source and the timeout, which the flows answer as "try again later" (HTTP 503), not as a refusal. Everything
 * else is the pool's own.
 */
final class NamedPool implements DataSource {

    private final String name;
    private final long timeoutMillis;
    private final DataSource pool;

    NamedPool(String name, long timeoutMillis, DataSource pool) {
        this.name = name;
        this.timeoutMillis = timeoutMillis;
        this.pool = pool;
    }

    /** The pool itself (to close it). */
    DataSource pool() {
        return pool;
    }

    @Override
    public Connection getConnection() throws SQLException {
        try {
            return pool.getConnection();
        } catch (SQLException e) {
            throw new DatabaseUnavailableException(name, timeoutMillis, e);
        }
    }

    @Override
    public Connection getConnection(String user, String password) throws SQLException {
        throw new SQLFeatureNotSupportedException("Data source '" + name + "' connects as its configured user");
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return pool.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        pool.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        pool.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return pool.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return pool.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
        return type.isInstance(pool) ? type.cast(pool) : pool.unwrap(type);
    }

    @Override
    public boolean isWrapperFor(Class<?> type) throws SQLException {
        return type.isInstance(pool) || pool.isWrapperFor(type);
    }
}
