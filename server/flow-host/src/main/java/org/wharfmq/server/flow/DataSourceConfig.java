package org.wharfmq.server.flow;

import org.wharfmq.server.config.ConfigurationException;
import org.wharfmq.server.config.SettingValues;
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
     * Reads the configuration's {@code dataSources:} list, each entry's keys
     * ({@link FlowHostConfiguration.DataSourceEntry}), and checks it: each key against its rules (naming the file and
     * its line), a name of its own, XA only where it is supported.
     *
     * @throws ConfigurationException naming the entry and the key that is unknown or wrong, and the fix
     */
    public static List<DataSourceConfig> read(Settings file) {
        List<DataSourceConfig> dataSources = new ArrayList<>();
        Set<String> names = new HashSet<>();
        List<Settings> entries = file.sections("dataSources");
        for (int i = 0; i < entries.size(); i++) {
            Settings entry = entries.get(i);
            SettingValues values = SettingValues.ofEntry(entry, FlowHostConfiguration.DataSourceEntry.class);
            entry.refuseUnknown();
            DataSourceConfig config = new DataSourceConfig(values.get(FlowHostConfiguration.DataSourceEntry.NAME),
                    values.get(FlowHostConfiguration.DataSourceEntry.URL),
                    values.get(FlowHostConfiguration.DataSourceEntry.USER),
                    values.get(FlowHostConfiguration.DataSourceEntry.PASSWORD),
                    values.get(FlowHostConfiguration.DataSourceEntry.POOL_SIZE),
                    values.get(FlowHostConfiguration.DataSourceEntry.CONNECTION_TIMEOUT_MILLIS),
                    values.get(FlowHostConfiguration.DataSourceEntry.XA));
            String name = config.name();
            if (name == null || name.isBlank()) {
                throw entry.invalid("name", "data source number " + (i + 1) + " needs a name, the one its flows' "
                        + "Database nodes use");
            }
            if (!names.add(name)) {
                throw entry.invalid("name", "data source name '" + name + "' is used twice under 'dataSources': give "
                        + "each a name of its own");
            }
            values.named(config.owner()).check();
            if (config.xa() && DataSourcePools.xaDataSourceClass(config.url()) == null) {
                throw entry.invalid("xa", notXa(name) + "; remove xa: true or use one of those");
            }
            dataSources.add(config);
        }
        return dataSources;
    }

    /** This data source as errors name it: {@code data source 'orders'}. */
    private String owner() {
        return "data source '" + name + "'";
    }

    private static String notXa(String name) {
        return "Data source '" + name + "' cannot be XA: coordinated transactions support H2 (jdbc:h2:) and "
                + "PostgreSQL (jdbc:postgresql:) data sources";
    }

    /**
     * Checks each data source has a name of its own, its settings keep their rules
     * ({@link FlowHostConfiguration.DataSourceEntry}), and it is XA only where that is supported.
     *
     * @throws ConfigurationException naming the first data source that is wrong
     */
    public static void validate(List<DataSourceConfig> dataSources) {
        Set<String> names = new HashSet<>();
        for (DataSourceConfig d : dataSources) {
            if (d.name() == null || d.name().isBlank()) {
                throw new ConfigurationException("Each data source under 'dataSources' needs a name; " + d
                        + " has none.");
            }
            if (!names.add(d.name())) {
                throw new ConfigurationException("Data source name '" + d.name() + "' is used twice under "
                        + "'dataSources': give each a name of its own.");
            }
            SettingValues.defaults("", FlowHostConfiguration.DataSourceEntry.class).named(d.owner())
                    .with(FlowHostConfiguration.DataSourceEntry.NAME, d.name())
                    .with(FlowHostConfiguration.DataSourceEntry.URL, d.url())
                    .with(FlowHostConfiguration.DataSourceEntry.USER, d.user())
                    .with(FlowHostConfiguration.DataSourceEntry.PASSWORD, d.password())
                    .with(FlowHostConfiguration.DataSourceEntry.POOL_SIZE, d.poolSize())
                    .with(FlowHostConfiguration.DataSourceEntry.CONNECTION_TIMEOUT_MILLIS, d.connectionTimeoutMillis())
                    .with(FlowHostConfiguration.DataSourceEntry.XA, d.xa()).check();
            if (d.xa() && DataSourcePools.xaDataSourceClass(d.url()) == null) {
                throw new ConfigurationException(notXa(d.name()) + ".");
            }
        }
    }

    @Override
    public String toString() { // no password
        return "DataSourceConfig[name=" + name + ", url=" + url + ", user=" + user + ", poolSize=" + poolSize
                + ", connectionTimeoutMillis=" + connectionTimeoutMillis + ", xa=" + xa + "]";
    }
}
