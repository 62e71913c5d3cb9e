package org.wharfmq.server.flow;

import org.wharfmq.server.config.Setting;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The flow host's settings and defaults (docs/flows.md): each key of its {@code flowHost:} block of config/wharf.yaml
 * one {@link Setting}, named after it, with its default, which {@link FlowHostSettings} reads, checks and shows with
 * no code of a setting's own; the keys of the entries of {@code flows:}, {@code dataSources:} and {@code jmsProviders:}
 * ({@link FlowEntry}, {@link DataSourceEntry}, {@link JmsProviderEntry}); and fixed timings.
 */
public final class FlowHostConfiguration {

    /**
     * Whether {@code wharf flow deploy} may send a flow jar over the wire for the server to run: default false. Anyone
     * with the admin permission could then run code in the server; flows are deployed from the configuration
     * ({@code flows:}) instead.
     */
    public static final Setting<Boolean> REMOTE_DEPLOY = Setting.flag("remoteDeploy", false);

    /**
     * The user the flows connect as (over the in-VM listener, by SCRAM-SHA-256 like any client): by default none, and
     * they connect anonymously in-VM, as the queue manager itself.
     */
    public static final Setting<String> USER = Setting.text("user", null);

    /** The password of {@link #USER}: none by default ({@link FlowHostSettings} needs one with a user). */
    public static final Setting<String> PASSWORD = Setting.text("password", null).secret();

    /**
     * The directories file nodes may read and write, with everything under them (a relative name is taken from the
     * configuration file's directory): by default none, and no flow may use files.
     */
    public static final Setting<List<Path>> FILE_DIRECTORIES = Setting.files("fileDirectories");

    /**
     * {@code recoveryPeriodSeconds}: seconds between the transaction manager's recovery scans (coordinated flows:
     * docs/flows.md, "Coordinated transactions"), after the one at start: default 120, at least 1. A branch left in
     * doubt by a lost connection or a database that crashed between its prepare and its commit (not a crash of the
     * server, whose branches the scan at start settles) waits up to this long once the database is back. Each scan
     * opens a connection to each XA data source and to the queue manager.
     */
    public static final Setting<Integer> RECOVERY_PERIOD_SECONDS = Setting.integer("recoveryPeriodSeconds", 120)
            .atLeast(1);

    /**
     * Seconds between a recovery scan's two passes (the branches the resources list, then the settling of those no
     * transaction in the log claims): {@value}. It lengthens the server's start by as much when a data source is XA.
     */
    public static final int RECOVERY_BACKOFF_SECONDS = 1;

    /**
     * Messages a non-transactional reader's input, taken inside the queue manager ({@link InProcessInputs}), may be
     * handed ahead of the flow: {@value}, a JMS consumer's default prefetch. What the reader receives is settled in
     * batches of a quarter of it at most (or of {@link #IN_PROCESS_INPUT_BYTES}), and before the reader waits
     * ({@link InProcessConsumer}).
     */
    public static final int IN_PROCESS_INPUT_CREDIT = 1_000;

    /**
     * The bytes of messages (as the memory budgets count them) a non-transactional reader's input, taken inside the
     * queue manager, may hold handed ahead of the flow and not yet received: {@value} (a producer's default window),
     * beyond which the queue hands over no more, so at most one message beyond it. What a reader holds counts against
     * the server's memory budget, which the flow's own sends wait for while it is spent: a reader handed its credit's
     * worth of large messages could spend the whole budget and wait for itself (FlowInputMemoryBudgetTest). The rest
     * wait on the queue, which pages them past the budget's paging threshold (the default policy). Received messages
     * count here until they are settled: in batches of a quarter of it at most (64 KiB), so that a batch never stops
     * the queue from handing the reader more.
     */
    public static final long IN_PROCESS_INPUT_BYTES = 256 * 1024;

    /** How long opening or closing an input taken inside the queue manager waits for it: {@value} ms. */
    public static final long IN_PROCESS_TIMEOUT_MILLIS = 10_000;

    private FlowHostConfiguration() {
    }

    /** The keys of an entry of {@code flows:}: a flow deployed at startup ({@link FlowConfig}). */
    public static final class FlowEntry {

        /** {@code jar}: the flow jar; required. */
        public static final Setting<String> JAR = Setting.text("jar", null);
        /** {@code class}: its FlowFactory class; required. */
        public static final Setting<String> CLASS = Setting.text("class", null);
        /** {@code instances}: threads per input node, at least 1: default 1. */
        public static final Setting<Integer> INSTANCES = Setting.integer("instances", 1).atLeast(1);
        /**
         * {@code properties}: texts by name that the flow's factory reads ({@code FlowFactory.create(FlowProperties)}),
         * as App Connect's user-defined properties: none by default.
         */
        public static final Setting<Map<String, String>> PROPERTIES = Setting.textsByKey("properties");

        private FlowEntry() {
        }
    }

    /** The keys of an entry of {@code dataSources:}: a database the flows may use ({@link DataSourceConfig}). */
    public static final class DataSourceEntry {

        /** {@code name}: the one its flows' Database nodes use; required. */
        public static final Setting<String> NAME = Setting.text("name", null);
        /** {@code url}: its JDBC URL; required. */
        public static final Setting<String> URL = Setting.text("url", null).check(
                u -> u != null && u.startsWith("jdbc:"), u -> "must be a JDBC URL (jdbc:...), e.g. "
                        + "jdbc:postgresql://localhost:5432/orders or jdbc:h2:./data/h2/orders, was "
                        + (u == null ? "none" : "'" + u + "'"));
        /** {@code user}: the database user; none by default. */
        public static final Setting<String> USER = Setting.text("user", null);
        /** {@code password}: the user's, never shown; none by default. */
        public static final Setting<String> PASSWORD = Setting.text("password", null).secret();
        /**
         * {@code poolSize}: the most connections the pool opens at once: default 10. An invocation holds at most one
         * connection per data source, from its first statement to its commit, so a pool as large as the instances of
         * the flows using it never makes them wait.
         */
        public static final Setting<Integer> POOL_SIZE = Setting.integer("poolSize", 10).atLeast(1);
        /**
         * {@code connectionTimeoutMillis}: how long an invocation waits for a connection from the pool (all in use,
         * or the database not answering) before its Database node fails, in ms: default 5000, at least 250.
         */
        public static final Setting<Long> CONNECTION_TIMEOUT_MILLIS = Setting.whole("connectionTimeoutMillis", 5_000)
                .atLeast(250);
        /** {@code xa}: whether it takes part in coordinated (XA) transactions: default false. */
        public static final Setting<Boolean> XA = Setting.flag("xa", false);

        private DataSourceEntry() {
        }
    }

    /** The keys of an entry of {@code jmsProviders:}: another JMS provider (its {@code jndi:} block is a map). */
    public static final class JmsProviderEntry {

        /** {@code name}: the one its flows' JMSInput and JMSOutput nodes use; required. */
        public static final Setting<String> NAME = Setting.text("name", null);
        /** {@code connectionFactory}: the JNDI name of the provider's connection factory: default ConnectionFactory. */
        public static final Setting<String> CONNECTION_FACTORY = Setting.text("connectionFactory",
                org.wharfmq.flow.runtime.JmsProvider.DEFAULT_CONNECTION_FACTORY);
        /** {@code user}: who to connect as; none by default. */
        public static final Setting<String> USER = Setting.text("user", null);
        /** {@code password}: the user's, never shown; none by default. */
        public static final Setting<String> PASSWORD = Setting.text("password", null).secret();
        /**
         * {@code xa}: whether a coordinated flow's transactional gets and sends on it join the flow's XA transaction
         * (its connection factory must be an XA one): default false, each commits on its own.
         */
        public static final Setting<Boolean> XA = Setting.flag("xa", false);

        private JmsProviderEntry() {
        }
    }
}
