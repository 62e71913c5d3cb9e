package org.wharfmq.server.flow;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.wharfmq.server.config.ConfigurationException;

import javax.sql.DataSource;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The flow host's data sources, each a HikariCP connection pool opened from its {@link DataSourceConfig}, handed to
 * the flows by name ({@code RunningFlow.start}). A pool opens its connections as the flows ask for them: a database
 * that is down when the server starts fails the invocations that use it (their messages are rolled back and come
 * again), not the server's start. A URL no JDBC driver accepts fails the start, naming the data source.
 *
 * <p>Opened by {@link FlowHost#start} and closed after its flows have stopped.
 */
final class DataSourcePools implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(DataSourcePools.class.getName());

    private final Map<String, HikariDataSource> pools = new LinkedHashMap<>();

    /**
     * Opens a pool per data source.
     *
     * @throws ConfigurationException naming the data source whose URL no driver accepts (the pools opened are closed)
     */
    DataSourcePools(List<DataSourceConfig> dataSources) {
        for (DataSourceConfig d : dataSources) {
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
                pools.put(d.name(), new HikariDataSource(config));
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

    /** The pools by name, for the flows. */
    Map<String, DataSource> byName() {
        return Collections.unmodifiableMap(pools);
    }

    /** Closes every pool (their connections to the databases). Idempotent. */
    @Override
    public void close() {
        for (HikariDataSource pool : pools.values()) {
            pool.close();
        }
        pools.clear();
    }
}
