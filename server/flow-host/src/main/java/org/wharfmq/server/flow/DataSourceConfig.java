package org.wharfmq.server.flow;

import org.wharfmq.server.config.ConfigurationException;
import org.wharfmq.server.config.Setting;
import org.wharfmq.server.config.SettingValues;
import org.wharfmq.server.config.SettingsEntry;
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
 * <p>It holds the value of each key of {@link FlowHostConfiguration.DataSourceEntry} ({@link #get}): a new key of a
 * data source is its declaration there, its paragraph in config/wharf.yaml and the code that reads it. Immutable.
 */
public final class DataSourceConfig extends SettingsEntry<DataSourceConfig> {

    /** The keys of an entry ({@link FlowHostConfiguration.DataSourceEntry}), in declaration order: found once. */
    private static final List<Setting<?>> KEYS = Setting.declaredIn(FlowHostConfiguration.DataSourceEntry.class);

    private DataSourceConfig(SettingValues values) {
        super(values);
    }

    @Override
    protected DataSourceConfig of(SettingValues values) {
        return new DataSourceConfig(values);
    }

    /**
     * A data source, not XA.
     *
     * @param name                    the name the flows' Database nodes use
     * @param url                     the JDBC URL, e.g. {@code jdbc:postgresql://db:5432/orders}
     * @param user                    the database user, or null
     * @param password                its password, or null; never shown by {@link #toString()}
     * @param poolSize                the most connections open at once (setting {@code poolSize})
     * @param connectionTimeoutMillis how long an invocation waits for a connection before it fails
     */
    public DataSourceConfig(String name, String url, String user, String password, int poolSize,
                            long connectionTimeoutMillis) {
        this(SettingValues.defaults("", KEYS).with(FlowHostConfiguration.DataSourceEntry.NAME, name)
                .with(FlowHostConfiguration.DataSourceEntry.URL, url)
                .with(FlowHostConfiguration.DataSourceEntry.USER, user)
                .with(FlowHostConfiguration.DataSourceEntry.PASSWORD, password)
                .with(FlowHostConfiguration.DataSourceEntry.POOL_SIZE, poolSize)
                .with(FlowHostConfiguration.DataSourceEntry.CONNECTION_TIMEOUT_MILLIS, connectionTimeoutMillis));
    }

    /** A data source with the default pool size and connection timeout, not XA. */
    public DataSourceConfig(String name, String url, String user, String password) {
        this(name, url, user, password, FlowHostConfiguration.DataSourceEntry.POOL_SIZE.defaultValue(),
                FlowHostConfiguration.DataSourceEntry.CONNECTION_TIMEOUT_MILLIS.defaultValue());
    }

    /** This data source taking part in coordinated (XA) transactions, or not. */
    public DataSourceConfig withXa(boolean xa) {
        return with(FlowHostConfiguration.DataSourceEntry.XA, xa);
    }

    /** The name the flows' Database nodes use. */
    public String name() {
        return get(FlowHostConfiguration.DataSourceEntry.NAME);
    }

    /** The JDBC URL. */
    public String url() {
        return get(FlowHostConfiguration.DataSourceEntry.URL);
    }

    /** The database user, or null. */
    public String user() {
        return get(FlowHostConfiguration.DataSourceEntry.USER);
    }

    /** Its password, or null. */
    public String password() {
        return get(FlowHostConfiguration.DataSourceEntry.PASSWORD);
    }

    /** The most connections open at once. */
    public int poolSize() {
        return get(FlowHostConfiguration.DataSourceEntry.POOL_SIZE);
    }

    /** How long an invocation waits for a connection before it fails. */
    public long connectionTimeoutMillis() {
        return get(FlowHostConfiguration.DataSourceEntry.CONNECTION_TIMEOUT_MILLIS);
    }

    /**
     * Whether it takes part in coordinated (XA) transactions: a pool of XA connections, and the flows whose Database
     * nodes use it coordinated.
     */
    public boolean xa() {
        return get(FlowHostConfiguration.DataSourceEntry.XA);
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
            DataSourceConfig config = new DataSourceConfig(readEntry(entry, KEYS));
            String name = config.name();
            if (name == null || name.isBlank()) {
                throw entry.invalid("name", "data source number " + (i + 1) + " needs a name, the one its flows' "
                        + "Database nodes use");
            }
            if (!names.add(name)) {
                throw entry.invalid("name", "data source name '" + name + "' is used twice under 'dataSources': give "
                        + "each a name of its own");
            }
            config.values().named(config.owner()).check();
            if (config.xa() && DataSourcePools.xaDataSourceClass(config.url()) == null) {
                throw entry.invalid("xa", notXa(name) + "; remove xa: true or use one of those");
            }
            dataSources.add(config);
        }
        return dataSources;
    }

    /** This data source as errors name it: {@code data source 'orders'}. */
    private String owner() {
        return "data source '" + name() + "'";
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
            d.values().named(d.owner()).check();
            if (d.xa() && DataSourcePools.xaDataSourceClass(d.url()) == null) {
                throw new ConfigurationException(notXa(d.name()) + ".");
            }
        }
    }

    /** {@code data source 'orders' [name=orders, url=..., password=***, ...]}: never the password. */
    @Override
    public String toString() {
        return (name() == null ? "data source" : owner()) + " " + values();
    }
}
