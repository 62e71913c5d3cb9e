package org.wharfmq.server.config;

import java.util.List;
import java.util.Map;

/**
 * A queue name that is not a queue of its own but leads to one (docs/distributed.md): a queue alias, a remote queue
 * definition or a queue-manager alias, as IBM MQ's QALIAS and QREMOTE. Defined under {@code queues:} with a
 * {@code type}, or at run time ({@code wharf admin define alias|remote}, kept in the data directory beside the
 * queues defined at run time).
 *
 * <ul>
 * <li>{@code type: alias}: {@code target} is the queue it stands for (a local queue, or a remote definition), as
 *     IBM MQ's QALIAS TARGET.</li>
 * <li>{@code type: remote} with {@code remoteQueue}: queue {@code remoteQueue} on queue manager
 *     {@code remoteQueueManager}, reached through the transmission queue {@code transmissionQueue} (left out: the
 *     transmission queue named as the queue manager, else the default transmission queue), as IBM MQ's QREMOTE
 *     RNAME, RQMNAME and XMITQ.</li>
 * <li>{@code type: remote} without {@code remoteQueue}: a queue-manager alias, whose name is a queue manager's: a
 *     message for queue manager {@code name} goes to {@code remoteQueueManager} instead (left out: the same), through
 *     {@code transmissionQueue} when given.</li>
 * </ul>
 *
 * <p>It holds the value of each of its keys ({@link QueueConfiguration#NAME} and those of
 * {@link QueueConfiguration.Reference}), each none (null) unless given: the configuration's entry ({@link
 * #read(Settings)}), the definitions file ({@link #attributes}, read back through {@link #read(String, Map, String)})
 * and the factories the admin commands use all go through those declarations. Immutable.
 */
public final class QueueReference extends SettingsEntry<QueueReference> {

    /** The type of a queue alias. */
    public static final String ALIAS = "alias";
    /** The type of a remote queue definition or a queue-manager alias. */
    public static final String REMOTE = "remote";
    /** Its keys: {@link QueueConfiguration#NAME} and those of {@link QueueConfiguration.Reference}, found once. */
    private static final List<Setting<?>> KEYS = QueueConfiguration.Reference.keys();

    private QueueReference(SettingValues values) {
        super(values);
    }

    @Override
    protected QueueReference of(SettingValues values) {
        return new QueueReference(values);
    }

    /** Whether an entry of {@code queues:} is a reference (it has a {@code type} other than {@code local}). */
    static boolean isReference(Settings entry) {
        return !"local".equals(QueueConfiguration.Reference.TYPE.read(entry, "local"));
    }

    /**
     * Reads an entry of {@code queues:} with a {@code type} ({@link QueueConfiguration.Reference}'s keys), and checks
     * each against its rules (naming the file and its line) and the rules between them.
     *
     * @throws ConfigurationException for an unknown key, or a value of the wrong type or refused
     */
    static QueueReference read(Settings entry) {
        SettingValues values = readEntry(entry, KEYS);
        String name = values.get(QueueConfiguration.NAME);
        QueueReference reference = new QueueReference(values.named(name == null || name.isBlank() ? entry.path()
                : owner(name)));
        reference.check();
        return reference;
    }

    /**
     * The reference {@code name} with {@code attributes}, texts by key as config/wharf.yaml names them ({@code type}
     * {@code alias}), read and checked as an entry of {@code queues:} is: a line of the definitions file.
     *
     * @param source what the attributes come from, for errors ("the line")
     * @throws ConfigurationException naming an unknown key, or a value of the wrong type or refused
     */
    public static QueueReference read(String name, Map<String, String> attributes, String source) {
        Settings entry = Settings.ofTexts(source, "", attributes);
        entry.put(QueueConfiguration.NAME.key(), new Settings.Value(name, 0));
        return read(entry);
    }

    private static QueueReference of(String name, String type) {
        return new QueueReference(SettingValues.defaults("", KEYS).named(owner(name))
                .with(QueueConfiguration.NAME, name).with(QueueConfiguration.Reference.TYPE, type));
    }

    private static String owner(String name) {
        return "queue '" + name + "'";
    }

    /** A queue alias. */
    public static QueueReference alias(String name, String target) {
        return of(name, ALIAS).with(QueueConfiguration.Reference.TARGET, target);
    }

    /** A remote queue definition ({@code transmissionQueue} may be null), or a queue-manager alias (no remote queue). */
    public static QueueReference remote(String name, String remoteQueue, String remoteQueueManager,
                                        String transmissionQueue) {
        return of(name, REMOTE).with(QueueConfiguration.Reference.REMOTE_QUEUE, remoteQueue)
                .with(QueueConfiguration.Reference.REMOTE_QUEUE_MANAGER, remoteQueueManager)
                .with(QueueConfiguration.Reference.TRANSMISSION_QUEUE, transmissionQueue);
    }

    /** The name applications (or other queue managers) use. */
    public String name() {
        return get(QueueConfiguration.NAME);
    }

    /** {@value #ALIAS} or {@value #REMOTE}. */
    public String type() {
        return get(QueueConfiguration.Reference.TYPE);
    }

    /** An alias's queue; null otherwise. */
    public String target() {
        return get(QueueConfiguration.Reference.TARGET);
    }

    /** A remote definition's queue on the other queue manager; null for a queue-manager alias. */
    public String remoteQueue() {
        return get(QueueConfiguration.Reference.REMOTE_QUEUE);
    }

    /** The other queue manager. */
    public String remoteQueueManager() {
        return get(QueueConfiguration.Reference.REMOTE_QUEUE_MANAGER);
    }

    /** The transmission queue to use, or null. */
    public String transmissionQueue() {
        return get(QueueConfiguration.Reference.TRANSMISSION_QUEUE);
    }

    /**
     * The keys it gives (its name aside), in declaration order, each value as config/wharf.yaml writes it: what the
     * definitions file keeps, read back through {@link #read(String, Map, String)}.
     */
    public Map<String, String> attributes() {
        return values().texts(QueueConfiguration.NAME);
    }

    /** Whether this is a queue alias. */
    public boolean isAlias() {
        return ALIAS.equals(type());
    }

    /** Whether this is a queue-manager alias: a remote definition without a remote queue. */
    public boolean isQueueManagerAlias() {
        return REMOTE.equals(type()) && remoteQueue() == null;
    }

    /** What it is, for people: "queue alias for ORDERS", "remote queue ORDERS on QM2 through QM2.XMIT", ... */
    public String describe() {
        if (isAlias()) {
            return "queue alias for " + target();
        }
        String through = transmissionQueue() == null ? "" : " through " + transmissionQueue();
        if (isQueueManagerAlias()) {
            return "queue-manager alias for " + (remoteQueueManager() == null ? name() : remoteQueueManager())
                    + through;
        }
        return "remote queue " + remoteQueue() + " on " + remoteQueueManager() + through;
    }

    /**
     * Checks the definition is whole: each setting against its rules ({@link QueueConfiguration.Reference}) and the
     * rules between them (the name is the caller's to check).
     *
     * @throws ConfigurationException naming it, what is missing or wrong, and what it must be
     */
    public void check() {
        values().check();
        checkBetween();
    }

    /** The rules between its settings, by its type. */
    private void checkBetween() {
        String name = name();
        String type = type();
        String target = target();
        String remoteQueue = remoteQueue();
        String remoteQueueManager = remoteQueueManager();
        String transmissionQueue = transmissionQueue();
        if (ALIAS.equals(type)) {
            if (target == null || target.isEmpty() || target.equals(name)) {
                throw bad("an alias needs a target: another queue's name (target: QUEUE)");
            }
            if (remoteQueue != null || remoteQueueManager != null || transmissionQueue != null) {
                throw bad("an alias has only a target (remoteQueue, remoteQueueManager and transmissionQueue are"
                        + " for type remote)");
            }
            return;
        }
        if (target != null) {
            throw bad("a remote definition has no target (that is for type alias)");
        }
        if (remoteQueue != null && remoteQueueManager == null) {
            throw bad("a remote queue needs the queue manager it is on (remoteQueueManager: QM2)");
        }
        if (remoteQueue == null && remoteQueueManager == null && transmissionQueue == null) {
            throw bad("a queue-manager alias (a remote definition without remoteQueue) needs remoteQueueManager"
                    + " or transmissionQueue");
        }
    }

    private ConfigurationException bad(String why) {
        return new ConfigurationException("Queue '" + name() + "' (" + type() + "): " + why + ".");
    }

    /** {@code queue 'ORDERS.ALIAS' (queue alias for ORDERS)}. */
    @Override
    public String toString() {
        return owner(name()) + " (" + describe() + ")";
    }
}
