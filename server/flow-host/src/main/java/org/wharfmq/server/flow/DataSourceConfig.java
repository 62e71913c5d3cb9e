package org.wharfmq.server.flow;

import org.wharfmq.server.config.ConfigurationException;
import org.wharfmq.server.config.Settings;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A database the flows may use, by name: an entry under {@code dataSources} in the configuration, which the
 * {@link FlowHost} opens as a connection pool ({@link DataSourcePools}) and the flows' Database nodes name
 * (docs/flows.md, "Databases").
 *
 * @param name                    the name the flows' Database nodes use
 * @param url                     the JDBC URL, e.g. {@code jdbc:postgresql://db:5432/orders} or {@code jdbc:h2:./data/h2/orders}
 * @param user                    the database user, or null
 * @param password                its password, or null; never shown by {@link #toString()}
 * @param poolSize                the most connections open at once (setting {@code poolSize})
 * @param connectionTimeoutMillis how long an invocation waits for a connection before it fails (setting
 *                                {@code connectionTimeoutMillis})
 * @param xa                      whether it takes part in coordinated (XA) transactions (setting {@code xa}): a pool of
 *                                XA connections, and the flows whose Database nodes use it coordinated
 */
public record DataSourceConfig(String name, String url, String user, String password, int poolSize,
                               long connectionTimeoutMillis, boolean xa) {

    /** A data source with the default pool size and connection timeout, not XA. */
    public DataSourceConfig(String name, String url, String user, String password) {
        this(name, url, user, password, FlowHostConfiguration.DataSourceEntry.POOL_SIZE.defaultValue(),
                FlowHostConfiguration.DataSourceEntry.CONNECTION_TIMEOUT_MILLIS.defaultValue());
    }

    /** A data source, not XA. */
    public DataSourceConfig(String name, String url, String user, String password, int poolSize,
                            long connectionTimeoutMillis) {
        this(name, url, user, password, poolSize, connectionTimeoutMillis, false);
    }

    /** This data source taking part in coordinated (XA) transactions, or not. */
    public DataSourceConfig withXa(boolean xa) {
        return new DataSourceConfig(name, url, user, password, poolSize, connectionTimeoutMillis, xa);
    }

    /**
     * Reads the configuration's {@code dataSources:} list, each entry's keys {@code name}, {@code url}, {@code user},
     * {@code password}, {@code poolSize}, {@code connectionTimeoutMillis} and {@code xa}, and checks it.
     *
     * @throws ConfigurationException naming the entry and the key that is unknown or wrong, and the fix
     */
    public static List<DataSourceConfig> read(Settings file) {
        List<DataSourceConfig> dataSources = new ArrayList<>();
        Set<String> names = new HashSet<>();
        List<Settings> entries = file.sections("dataSources");
        for (int i = 0; i < entries.size(); i++) {
            Settings entry = entries.get(i);
            String name = FlowHostConfiguration.DataSourceEntry.NAME.read(entry);
            String url = FlowHostConfiguration.DataSourceEntry.URL.read(entry);
            DataSourceConfig config = new DataSourceConfig(name, url,
                    FlowHostConfiguration.DataSourceEntry.USER.read(entry),
                    FlowHostConfiguration.DataSourceEntry.PASSWORD.read(entry),
                    FlowHostConfiguration.DataSourceEntry.POOL_SIZE.read(entry),
                    FlowHostConfiguration.DataSourceEntry.CONNECTION_TIMEOUT_MILLIS.read(entry),
                    FlowHostConfiguration.DataSourceEntry.XA.read(entry));
            entry.refuseUnknown();
            if (name == null || name.isBlank()) {
                throw entry.invalid("name", "data source number " + (i + 1) + " needs a name, the one its flows' "
                        + "Database nodes use");
            }
            if (!names.add(name)) {
                throw entry.invalid("name", "data source name '" + name + "' is used twice under 'dataSources': give "
                        + "each a name of its own");
            }
            if (url == null || !url.startsWith("jdbc:")) {
                throw entry.invalid("url", "data source '" + name + "' needs a JDBC URL (jdbc:...), e.g. "
                        + "jdbc:postgresql://localhost:5432/orders or jdbc:h2:./data/h2/orders");
            }
            if (config.xa() && DataSourcePools.xaDataSourceClass(url) == null) {
                throw entry.invalid("xa", "data source '" + name + "' cannot be XA: coordinated transactions support "
                        + "H2 (jdbc:h2:) and PostgreSQL (jdbc:postgresql:) data sources; remove xa: true or use one of "
                        + "those");
            }
            if (config.poolSize() < 1) {
                throw entry.invalid("poolSize", "it must be at least 1, was " + config.poolSize());
            }
            if (config.connectionTimeoutMillis() < 250) {
                throw entry.invalid("connectionTimeoutMillis", "it must be at least 250 (ms), was "
                        + config.connectionTimeoutMillis());
            }
            dataSources.add(config);
        }
        return dataSources;
    }

    /**
     * Checks each data source has a name, a JDBC URL, a pool and a timeout, and the names are unique.
     *
     * @throws ConfigurationException naming the first data source that is wrong
     */
    public static void validate(List<DataSourceConfig> dataSources) {
        Set<String> names = new HashSet<>();
        for (DataSourceConfig d : dataSources) {
            if (d.name() == null || d.name().isBlank() || d.url() == null || !d.url().startsWith("jdbc:")) {
                throw new ConfigurationException("Each data source under 'dataSources' needs a name and a JDBC URL "
                        + "(jdbc:...); " + d + " has not.");
            }
            if (d.poolSize() < 1 || d.connectionTimeoutMillis() < 250) {
                throw new ConfigurationException("Data source '" + d.name() + "' needs poolSize at least 1 and "
                        + "connectionTimeoutMillis at least 250, was " + d.poolSize() + " and "
                        + d.connectionTimeoutMillis() + ".");
            }
            if (!names.add(d.name())) {
                throw new ConfigurationException("Data source name '" + d.name() + "' is used twice under "
                        + "'dataSources': give each a name of its own.");
            }
            if (d.xa() && DataSourcePools.xaDataSourceClass(d.url()) == null) {
                throw new ConfigurationException("Data source '" + d.name() + "' cannot be XA: coordinated "
                        + "transactions support H2 (jdbc:h2:) and PostgreSQL (jdbc:postgresql:) data sources.");
            }
        }
    }

    @Override
    public String toString() { // no password
        return "DataSourceConfig[name=" + name + ", url=" + url + ", user=" + user + ", poolSize=" + poolSize
                + ", connectionTimeoutMillis=" + connectionTimeoutMillis + ", xa=" + xa + "]";
    }
}
