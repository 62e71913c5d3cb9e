package org.wharfmq.server.config;

import java.util.List;
import java.util.Map;

/**
 * A queue's settings: one defined in the configuration (so that it exists from startup, and is the only kind there
 * is when {@code autoCreate} is off), or defined or altered at run time (kept in the data directory). It holds the
 * value of each key of {@link QueueConfiguration} ({@link #get}), each none (null) unless given: a queue that leaves
 * a key out takes the queue manager's setting of the same kind, or has none (config/wharf.yaml explains each key).
 *
 * <p>Every way a queue's settings come in reads them through the same declarations: the configuration's entry
 * ({@link #read(Settings)}), an administrator's text ({@link #alteredBy}: {@code wharf admin define|alter queue}, the
 * admin command queue, the console) and the definitions file ({@link #attributes} and {@link #read(String, Map,
 * String)}). A new key of a queue is its declaration in {@link QueueConfiguration}, its paragraph in config/wharf.yaml
 * and the code that uses it ({@code definition.get(QueueConfiguration.KEY)}).
 *
 * <p>Immutable: {@link #with} makes a changed copy, checked when the queue manager takes it ({@link #check}).
 */
public final class QueueDefinition extends SettingsEntry<QueueDefinition> {

    /** The usage of a transmission queue. */
    public static final String TRANSMISSION = "transmission";
    /** The usage of an ordinary queue, as an administrator writes it to undo {@value #TRANSMISSION}. */
    public static final String NORMAL = "normal";
    /** What an administrator gives for a key to put it back to its default ({@code --max-depth default}). */
    public static final String DEFAULT = "default";
    /** The keys of a queue ({@link QueueConfiguration}), in declaration order: found once. */
    private static final List<Setting<?>> KEYS = Setting.declaredIn(QueueConfiguration.class);

    private QueueDefinition(SettingValues values) {
        super(values);
    }

    @Override
    protected QueueDefinition of(SettingValues values) {
        return new QueueDefinition(values);
    }

    /**
     * Reads an entry of {@code queues:}, each key through its {@link QueueConfiguration} setting, and checks each
     * against its rules (naming the file and its line) and the rules between them.
     *
     * @throws ConfigurationException for an unknown key, or a value of the wrong type or refused
     */
    static QueueDefinition read(Settings entry) {
        SettingValues values = readEntry(entry, KEYS);
        String name = values.get(QueueConfiguration.NAME);
        QueueDefinition queue = new QueueDefinition(values.named(name == null || name.isBlank() ? entry.path()
                : owner(name)));
        queue.check();
        return queue;
    }

    /**
     * The queue {@code name} with {@code attributes}, texts by key as config/wharf.yaml names them ({@code maxDepth}
     * {@code 1000}), read and checked as an entry of {@code queues:} is.
     *
     * @param source what the attributes come from, for errors ("the command 'define queue ORDERS'")
     * @throws ConfigurationException naming an unknown key, or a value of the wrong type or refused
     */
    public static QueueDefinition read(String name, Map<String, String> attributes, String source) {
        if (attributes.containsKey(QueueConfiguration.NAME.key())) {
            throw new ConfigurationException("'name' is not a setting of " + source + ": the queue is the one it"
                    + " names.");
        }
        Settings entry = Settings.ofTexts(source, "", attributes);
        entry.put(QueueConfiguration.NAME.key(), new Settings.Value(name, 0));
        return read(entry);
    }

    /** A queue as errors name it: {@code queue 'ORDERS'}. */
    private static String owner(String name) {
        return "queue '" + name + "'";
    }

    /** The queue {@code name} with every other key at its default (none). */
    public static QueueDefinition named(String name) {
        return new QueueDefinition(SettingValues.defaults("", KEYS).named(owner(name))
                .with(QueueConfiguration.NAME, name));
    }

    /** A transmission queue with every other setting at its default. */
    public static QueueDefinition transmissionQueue(String name) {
        return named(name).with(QueueConfiguration.USAGE, TRANSMISSION);
    }

    /** The queue's name. */
    public String name() {
        return get(QueueConfiguration.NAME);
    }

    /** Whether this is a transmission queue ({@code usage} {@value #TRANSMISSION}). */
    public boolean transmission() {
        return TRANSMISSION.equals(get(QueueConfiguration.USAGE));
    }

    /** Whether a queue-full event is published ({@code fullEvent} true). */
    public boolean publishesFullEvents() {
        return Boolean.TRUE.equals(get(QueueConfiguration.FULL_EVENT));
    }

    /**
     * The keys it gives (its name aside), in declaration order, each value as config/wharf.yaml writes it: what the
     * definitions file keeps, read back through {@link #read(String, Map, String)}.
     */
    public Map<String, String> attributes() {
        return values().texts(QueueConfiguration.NAME);
    }

    /**
     * Every key by its name in config/wharf.yaml, in declaration order, as settings in force show them (null for
     * none): what {@code display queue} shows as the queue's {@code settings}.
     */
    public Map<String, Object> shown() {
        return values().shown();
    }

    /** Its settings that are not at their default, for people: "maxDepth 50, backoutThreshold 3" (or "the defaults"). */
    public String describeSettings() {
        StringBuilder text = new StringBuilder();
        shown().forEach((key, value) -> {
            if (value != null && !key.equals(QueueConfiguration.NAME.key())) {
                text.append(text.length() == 0 ? "" : ", ").append(key).append(' ').append(value);
            }
        });
        return text.length() == 0 ? "the defaults" : text.toString();
    }

    /**
     * This queue with an administrator's changes ({@code wharf admin define|alter queue}): texts by key as
     * config/wharf.yaml names them; an empty one or {@value #DEFAULT} puts a key back to its default, and a key left
     * out stays as it is. Read and checked as an entry of {@code queues:} is.
     *
     * @param source what the changes come from, for errors ("the command 'alter queue ORDERS'")
     * @throws ConfigurationException naming an unknown key, or a value of the wrong type or refused
     */
    public QueueDefinition alteredBy(Map<String, String> changes, String source) {
        Map<String, String> attributes = attributes();
        changes.forEach((key, text) -> {
            if ((text == null || text.isEmpty() || DEFAULT.equals(text)) && isKey(key)) {
                attributes.remove(key);
            } else {
                attributes.put(key, text);
            }
        });
        return read(name(), attributes, source);
    }

    private static boolean isKey(String key) {
        return KEYS.stream().anyMatch(setting -> setting.key().equals(key));
    }

    /**
     * Checks every setting against its rules ({@link QueueConfiguration}) and the rules between them (the name is the
     * caller's to check).
     *
     * @throws ConfigurationException naming the queue, the setting, its value and what it must be
     */
    public void check() {
        values().check();
        checkBetween();
    }

    /** The rules between its settings: a backout queue of another name, a depth-low event below a depth-high one. */
    private void checkBetween() {
        String backoutQueue = get(QueueConfiguration.BACKOUT_QUEUE);
        Integer depthHighEvent = get(QueueConfiguration.DEPTH_HIGH_EVENT);
        Integer depthLowEvent = get(QueueConfiguration.DEPTH_LOW_EVENT);
        if (backoutQueue != null && backoutQueue.equals(name())) {
            throw bad("backoutQueue", "'" + backoutQueue + "'", "another queue's name");
        }
        if (depthLowEvent != null && (depthHighEvent == null || depthLowEvent < 0 || depthLowEvent >= depthHighEvent)) {
            throw bad("depthLowEvent", depthLowEvent, depthHighEvent == null
                    ? "set together with depthHighEvent (a depth-low event follows a depth-high one)"
                    : "a percentage of maxDepth from 0 to below depthHighEvent (" + depthHighEvent + ")");
        }
    }

    private ConfigurationException bad(String setting, Object value, String must) {
        return new ConfigurationException("Setting " + setting + " of queue '" + name() + "' must be " + must
                + ", was " + value + ".");
    }

    /** {@code queue 'ORDERS' (maxDepth 50, backoutThreshold 3)}. */
    @Override
    public String toString() {
        return owner(name()) + " (" + describeSettings() + ")";
    }
}
