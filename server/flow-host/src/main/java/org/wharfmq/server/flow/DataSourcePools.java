package org.wharfmq.server.flow;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.agroal.api.AgroalDataSource;
import io.agroal.api.configuration.supplier.AgroalDataSourceConfigurationSupplier;
import io.agroal.api.security.NamePrincipal;
import io.agroal.api.security.SimplePassword;
import org.wharfmq.server.config.ConfigurationException;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The flow host's data sources, each a HikariCP connection pool opened from its {@link DataSourceConfig}, handed to
 * the flows by name ({@code RunningFlow.start}). A pool opens its connections as the flows ask for them: a database
 * that is down when the server starts fails the invocations that use it (their messages are rolled back and come
 * again), not the server's start. A URL no JDBC driver accepts fails the start, naming the data source.
 *
 * <p>An XA data source ({@code xa: true}) is an Agroal pool of the driver's XA connections (H2's {@code JdbcDataSource},
 * PostgreSQL's {@code PGXADataSource}) with Agroal's Narayana integration: a connection taken while the thread has a
 * transaction is enlisted in it and goes back to the pool when the transaction ends; one taken outside any works as
 * an ordinary connection. Each pool has an integration of its own, named after the data source (the transaction
 * manager's log and warnings name it), and Agroal registers the pool with the transaction manager's recovery
 * ({@link DataSourceRecovery}), whose scans reach the database with a new connection each time.
 *
 * <p>The flows get each pool as a {@link NamedPool}: a connection the pool cannot give is a
 * {@code DatabaseUnavailableException} naming the data source and its timeout. A (non-XA) pool's first connection is
 * opened when the first flow using it starts ({@link #warm}).
 *
 * <p>Opened by {@link FlowHost#start} and closed after its flows have stopped.
 */
final class DataSourcePools implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(DataSourcePools.class.getName());

    private final Map<String, DataSource> pools = new LinkedHashMap<>();
    private final Set<String> xa = new HashSet<>();
    /** The data sources whose first connection was opened (or tried) by {@link #warm}. */
    private final Set<String> warmed = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    /**
     * Opens a pool per data source.
     *
     * @param transactions the transaction manager of the XA data sources; null when none is XA
     * @throws ConfigurationException naming the data source whose URL no driver accepts (the pools opened are closed)
     */
    DataSourcePools(List<DataSourceConfig> dataSources, XaTransactions transactions) {
        for (DataSourceConfig d : dataSources) {
            if (d.xa()) {
                openXa(d, transactions);
                continue;
            }
            HikariConfig config = new HikariConfig();
            config.setPoolName("wharf-" + d.name());
            config.setJdbcUrl(d.url());
            config.setUsername(d.user());
            config.setPassword(d.password());
            config.setMaximumPoolSize(d.poolSize());
            config.setMinimumIdle(0); // no connection until a flow asks for one
            config.setConnectionTimeout(d.connectionTimeoutMillis());
            config.setInitializationFailTimeout(-1); // a database down at start fails invocations, not the server
            try {
                pools.put(d.name(), new NamedPool(d.name(), d.connectionTimeoutMillis(), new HikariDataSource(config)));
            } catch (RuntimeException e) {
                close();
                throw new ConfigurationException("Data source '" + d.name() + "' (dataSources, url " + d.url()
                        + ") cannot be opened: " + e.getMessage() + ". Check the URL; a database other than H2 or "
                        + "PostgreSQL needs its JDBC driver's jar in the server's lib/ folder.", e);
            }
            LOG.log(System.Logger.Level.INFO, "Data source '" + d.name() + "' (" + d.url() + ", at most "
                    + d.poolSize() + " connections) is ready for the flows");
        }
    }

    private void openXa(DataSourceConfig d, XaTransactions transactions) {
        DataSourceRecovery recovery = transactions.recoveryOf(d.name());
        AgroalDataSourceConfigurationSupplier config = new AgroalDataSourceConfigurationSupplier()
                .connectionPoolConfiguration(pool -> pool
                        .maxSize(d.poolSize())
                        .minSize(0) // no connection until a flow asks for one
                        .initialSize(0)
                        .acquisitionTimeout(Duration.ofMillis(d.connectionTimeoutMillis()))
                        .transactionIntegration(transactions.integration(d.name(), recovery))
                        .connectionFactoryConfiguration(factory -> factory
                                .connectionProviderClassName(xaDataSourceClass(d.url()))
                                .jdbcUrl(d.url())
                                .principal(d.user() == null ? null : new NamePrincipal(d.user()))
                                .credential(d.password() == null ? null : new SimplePassword(d.password()))));
        try {
            pools.put(d.name(), new NamedPool(d.name(), d.connectionTimeoutMillis(),
                    AgroalDataSource.from(config, recovery.listener())));
        } catch (SQLException | RuntimeException e) {
            close();
            throw new ConfigurationException("XA data source '" + d.name() + "' (dataSources, url " + d.url()
                    + ") cannot be opened: " + e.getMessage() + ". Check the URL.", e);
        }
        xa.add(d.name());
        LOG.log(System.Logger.Level.INFO, "XA data source '" + d.name() + "' (" + d.url() + ", at most "
                + d.poolSize() + " connections) is ready for coordinated flows");
    }

    /**
     * The driver's XADataSource class for a JDBC URL, or null when coordinated transactions do not support its
     * database.
     */
    static String xaDataSourceClass(String url) {
        if (url.startsWith("jdbc:h2:")) {
            return "org.h2.jdbcx.JdbcDataSource";
        }
        if (url.startsWith("jdbc:postgresql:")) {
            return "org.postgresql.xa.PGXADataSource";
        }
        return null;
    }

    /** The pools by name, for the flows. */
    Map<String, DataSource> byName() {
        return Collections.unmodifiableMap(pools);
    }

    /** Whether data source {@code name} is XA. */
    boolean isXa(String name) {
        return xa.contains(name);
    }

    /**
     * Opens a first connection of each of {@code names} not opened yet, on a thread of its own, and gives it back to
     * its pool: called when a flow using them starts, so that the database's first open (for an embedded H2: its
     * engine's classes loaded, its file opened or made, the URL's INIT script run; seconds on a busy machine) is
     * done before the flow's first invocation rather than inside that invocation's connection timeout. How long it
     * took is logged; a database that does not answer is logged too, and is not an error (the invocations that need
     * it fail until it answers). Not the XA data sources: Agroal does not check an idle connection before it hands it
     * out, so one opened early could be a dead one after the database's restart (HikariCP checks one idle for more
     * than 500 ms).
     */
    void warm(Set<String> names, String flow) {
        for (String name : names) {
            DataSource pool = pools.get(name);
            if (pool == null || xa.contains(name) || !warmed.add(name)) {
                continue;
            }
            Thread thread = new Thread(() -> warm(name, pool, flow), "wharf-warm-" + name);
            thread.setDaemon(true);
            thread.start();
        }
    }

    private void warm(String name, DataSource pool, String flow) {
        long start = System.nanoTime();
        try (Connection connection = pool.getConnection()) {
            LOG.log(System.Logger.Level.INFO, "Data source '" + name + "': first connection opened in "
                    + (System.nanoTime() - start) / 1_000_000 + " ms, as flow '" + flow + "' started");
        } catch (SQLException | RuntimeException e) {
            LOG.log(closed ? System.Logger.Level.DEBUG : System.Logger.Level.WARNING, "Data source '" + name
                    + "' cannot open a connection yet, as flow '" + flow + "' starts (" + e.getMessage() + "): the "
                    + "invocations that use it fail until the database answers (an HTTP request: 503).");
        }
    }

    /** Closes every pool (their connections to the databases). Idempotent. */
    @Override
    public void close() {
        closed = true;
        for (DataSource named : pools.values()) {
            if (((NamedPool) named).pool() instanceof AutoCloseable closing) {
                try {
                    closing.close();
                } catch (Exception e) {
                    LOG.log(System.Logger.Level.WARNING, "Closing a data source's pool: " + e);
                }
            }
        }
        pools.clear();
        xa.clear();
    }
}
