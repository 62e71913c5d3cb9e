package org.wharfmq.server.config;

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
 * @param name               the name applications (or other queue managers) use
 * @param type               {@value #ALIAS} or {@value #REMOTE}
 * @param target             an alias's queue; null otherwise
 * @param remoteQueue        a remote definition's queue on the other queue manager; null for a queue-manager alias
 * @param remoteQueueManager the other queue manager
 * @param transmissionQueue  the transmission queue to use, or null
 */
public record QueueReference(String name, String type, String target, String remoteQueue, String remoteQueueManager,
                             String transmissionQueue) {

    /** The type of a queue alias. */
    public static final String ALIAS = "alias";
    /** The type of a remote queue definition or a queue-manager alias. */
    public static final String REMOTE = "remote";

    /** Whether an entry of {@code queues:} is a reference (it has a {@code type} other than {@code local}). */
    static boolean isReference(Settings entry) {
        return !"local".equals(QueueConfiguration.Reference.TYPE.read(entry, "local"));
    }

    /**
     * Reads an entry of {@code queues:} with a {@code type} ({@link QueueConfiguration.Reference}'s keys), and checks
     * each against its rules (naming the file and its line) and the rules between them.
     */
    static QueueReference read(Settings entry) {
        SettingValues values = SettingValues.ofEntry(entry, QueueConfiguration.Reference.keys());
        entry.refuseUnknown();
        QueueReference reference = new QueueReference(values.get(QueueConfiguration.NAME),
                values.get(QueueConfiguration.Reference.TYPE), values.get(QueueConfiguration.Reference.TARGET),
                values.get(QueueConfiguration.Reference.REMOTE_QUEUE),
                values.get(QueueConfiguration.Reference.REMOTE_QUEUE_MANAGER),
                values.get(QueueConfiguration.Reference.TRANSMISSION_QUEUE));
        String name = reference.name();
        values.named(name == null || name.isBlank() ? entry.path() : "queue '" + name + "'").check();
        reference.checkBetween();
        return reference;
    }

    /** A queue alias. */
    public static QueueReference alias(String name, String target) {
        return new QueueReference(name, ALIAS, target, null, null, null);
    }

    /** A remote queue definition ({@code transmissionQueue} may be null), or a queue-manager alias (no remote queue). */
    public static QueueReference remote(String name, String remoteQueue, String remoteQueueManager,
                                        String transmissionQueue) {
        return new QueueReference(name, REMOTE, null, remoteQueue, remoteQueueManager, transmissionQueue);
    }

    /** Whether this is a queue alias. */
    public boolean isAlias() {
        return ALIAS.equals(type);
    }

    /** Whether this is a queue-manager alias: a remote definition without a remote queue. */
    public boolean isQueueManagerAlias() {
        return REMOTE.equals(type) && remoteQueue == null;
    }

    /** What it is, for people: "queue alias for ORDERS", "remote queue ORDERS on QM2 through QM2.XMIT", ... */
    public String describe() {
        if (isAlias()) {
            return "queue alias for " + target;
        }
        String through = transmissionQueue == null ? "" : " through " + transmissionQueue;
        if (isQueueManagerAlias()) {
            return "queue-manager alias for " + (remoteQueueManager == null ? name : remoteQueueManager) + through;
        }
        return "remote queue " + remoteQueue + " on " + remoteQueueManager + through;
    }

    /**
     * Checks the definition is whole: each setting against its rules ({@link QueueConfiguration.Reference}) and the
     * rules between them (the name is the caller's to check).
     *
     * @throws ConfigurationException naming it, what is missing or wrong, and what it must be
     */
    public void check() {
        SettingValues.defaults("", QueueConfiguration.Reference.keys()).named("queue '" + name + "'")
                .with(QueueConfiguration.NAME, name).with(QueueConfiguration.Reference.TYPE, type)
                .with(QueueConfiguration.Reference.TARGET, target)
                .with(QueueConfiguration.Reference.REMOTE_QUEUE, remoteQueue)
                .with(QueueConfiguration.Reference.REMOTE_QUEUE_MANAGER, remoteQueueManager)
                .with(QueueConfiguration.Reference.TRANSMISSION_QUEUE, transmissionQueue).check();
        checkBetween();
    }

    /** The rules between its settings, by its type. */
    private void checkBetween() {
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
        return new ConfigurationException("Queue '" + name + "' (" + type + "): " + why + ".");
    }
}
