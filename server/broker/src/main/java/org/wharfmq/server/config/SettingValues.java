package org.wharfmq.server.config;

import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One section's settings in force: the value of every {@link Setting} a component declares for it (the TLS
 * listener's {@code tls:}, the HTTP listener's {@code http:}, the flow host's top-level keys...), read from the file
 * ({@link #read}), set in code ({@link #with}), checked ({@link #check}), handed out ({@link #get}) and shown
 * ({@link #shown}) with no code of a setting's own. A component's settings class holds one and reads its values
 * from it, so a new setting is its declaration in the component's class of named defaults (and its explanation in
 * config/wharf.yaml).
 *
 * <p>Immutable: {@link #with} and {@link #read} make a changed copy.
 */
public final class SettingValues {

    private final String section;
    /**
     * What the entry of a list these settings are is, as errors name it ({@code queue 'ORDERS'}: "Setting maxDepth of
     * queue 'ORDERS' must be ..."), or null: a setting is named by its path ({@code tls.port}).
     */
    private final String owner;
    /** Every declared setting, in its declaration order, with its value (null for none). */
    private final Map<Setting<?>, Object> values;
    /** Where the file gave a setting's value ({@code FILE at line N}), for the settings whose value it gave. */
    private final Map<Setting<?>, String> origins;

    private SettingValues(String section, String owner, Map<Setting<?>, Object> values,
                          Map<Setting<?>, String> origins) {
        this.section = section;
        this.owner = owner;
        this.values = Collections.unmodifiableMap(values);
        this.origins = Collections.unmodifiableMap(origins);
    }

    /**
     * The settings {@code declarations} declares ({@link Setting#declaredIn}), each at its default.
     *
     * @param section where they are in the file: {@code tls}, {@code replication.tls}; empty at the top level
     */
    public static SettingValues defaults(String section, Class<?> declarations) {
        return defaults(section, Setting.declaredIn(declarations));
    }

    /** {@code settings}, each at its default, in {@code section} ({@code http}; empty at the top level). */
    public static SettingValues defaults(String section, List<Setting<?>> settings) {
        Map<Setting<?>, Object> values = new LinkedHashMap<>();
        for (Setting<?> setting : settings) {
            values.put(setting, setting.defaultValue());
        }
        return new SettingValues(section, null, values, Map.of());
    }

    /**
     * The settings declared for each entry of a list ({@code queues:}, {@code channels:}), read from one of its
     * entries: those it gives taken from it, the others at their defaults, its path ({@code queues[1]}) their
     * section. Not checked yet, and the entry's unknown keys not yet refused (the caller may read more keys of it
     * first: a channel's {@code tls:} block); {@link #named} then names the entry for errors.
     *
     * @throws ConfigurationException for a value of the wrong type, naming the file, the key and its line
     */
    public static SettingValues ofEntry(Settings entry, List<Setting<?>> settings) {
        return defaults(entry.path(), settings).read(entry);
    }

    /** {@link #ofEntry(Settings, List)} of the settings {@code declarations} declares. */
    public static SettingValues ofEntry(Settings entry, Class<?> declarations) {
        return ofEntry(entry, Setting.declaredIn(declarations));
    }

    /**
     * These settings, named in errors as those of {@code owner}, the entry of a list they are: {@code queue 'ORDERS'}
     * gives "Setting maxDepth of queue 'ORDERS' must be at least 1, was 0. (in FILE at line 7)".
     */
    public SettingValues named(String owner) {
        return new SettingValues(section, owner, values, origins);
    }

    /** Whether the file gave {@code setting}'s value (rather than its default, or code). */
    public boolean given(Setting<?> setting) {
        return origins.containsKey(setting);
    }

    /** Where these settings are in the file: {@code tls}, {@code http}; empty at the top level. */
    public String section() {
        return section;
    }

    /** The declared settings, in their declaration order. */
    public List<Setting<?>> settings() {
        return List.copyOf(values.keySet());
    }

    /**
     * These settings with every one {@code block} gives taken from it (each key marked known there, so that the
     * caller's {@link Settings#refuseUnknown()} refuses only keys nobody declared); not checked yet.
     *
     * @throws ConfigurationException for a value of the wrong type, naming the file, the key and its line
     */
    public SettingValues read(Settings block) {
        Map<Setting<?>, Object> read = new LinkedHashMap<>(values);
        Map<Setting<?>, String> from = new HashMap<>(origins);
        for (Setting<?> setting : values.keySet()) {
            read.put(setting, readOne(setting, block));
            String where = block.where(setting.key());
            if (where != null) {
                from.put(setting, where);
            }
        }
        return new SettingValues(section, owner, read, from);
    }

    private <T> T readOne(Setting<T> setting, Settings block) {
        return setting.read(block, get(setting));
    }

    /**
     * These settings with {@code setting} at {@code value}; not checked until {@link #check()}.
     *
     * @throws IllegalArgumentException for a setting not declared here
     */
    public <T> SettingValues with(Setting<T> setting, T value) {
        requireDeclared(setting);
        Map<Setting<?>, Object> changed = new LinkedHashMap<>(values);
        changed.put(setting, value);
        Map<Setting<?>, String> from = new HashMap<>(origins);
        from.remove(setting);
        return new SettingValues(section, owner, changed, from);
    }

    /**
     * The value of {@code setting}: one map lookup (read it once, into a field, where it is used per message).
     *
     * @throws IllegalArgumentException for a setting not declared here (another section's)
     */
    @SuppressWarnings("unchecked") // read and with put only a setting's own type under it
    public <T> T get(Setting<T> setting) {
        Object value = values.get(setting);
        if (value == null) {
            requireDeclared(setting); // none, or another section's setting
        }
        return (T) value;
    }

    /**
     * Checks every value against its setting's rules, in declaration order.
     *
     * @return these settings
     * @throws ConfigurationException {@code Setting tls.port must be ..., was 70000.}, for the first that breaks one,
     *                                followed by where the file gives it ({@code (in FILE at line 3)}) when it does
     */
    public SettingValues check() {
        values.forEach(this::checkOne);
        return this;
    }

    @SuppressWarnings("unchecked") // read and with put only a setting's own type under it
    private <T> void checkOne(Setting<T> setting, Object value) {
        try {
            setting.checkAs((T) value, owner == null ? setting.path(section) : setting.key() + " of " + owner);
        } catch (ConfigurationException e) {
            String where = origins.get(setting);
            if (where == null) {
                throw e;
            }
            throw new ConfigurationException(e.getMessage() + " (in " + where + ")", e);
        }
    }

    /**
     * The settings that are set (not null), but {@code except}, by their key, in declaration order, each as
     * config/wharf.yaml writes it ({@link Setting#asText}): what a definitions file keeps of an entry, read back as
     * the entry is.
     */
    public Map<String, String> texts(Setting<?> except) {
        Map<String, String> texts = new LinkedHashMap<>();
        values.forEach((setting, value) -> {
            String text = textOf(setting, value);
            if (text != null && setting != except) {
                texts.put(setting.key(), text);
            }
        });
        return texts;
    }

    @SuppressWarnings("unchecked") // read and with put only a setting's own type under it
    private static <T> String textOf(Setting<T> setting, Object value) {
        return setting.asText((T) value);
    }

    /**
     * The settings in force by their path in the file ({@code tls.port}), in declaration order, as
     * {@link Setting#shown} shows them: a password as {@value Setting#REDACTED}.
     */
    public Map<String, Object> shown() {
        Map<String, Object> shown = new LinkedHashMap<>();
        values.forEach((setting, value) -> shown.put(setting.path(section), showOne(setting, value)));
        return shown;
    }

    @SuppressWarnings("unchecked") // read and with put only a setting's own type under it
    private static <T> Object showOne(Setting<T> setting, Object value) {
        return setting.shown((T) value);
    }

    private void requireDeclared(Setting<?> setting) {
        if (!values.containsKey(setting)) {
            throw new IllegalArgumentException("Setting " + setting.key() + " is not declared for "
                    + (section.isEmpty() ? "the top level" : section) + ": it belongs to another component.");
        }
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof SettingValues that && section.equals(that.section) && values.equals(that.values);
    }

    @Override
    public int hashCode() {
        return values.hashCode();
    }

    /** {@code tls[port=7415, keyStorePassword=***, ...]}: as {@link #shown()}, never a password. */
    @Override
    public String toString() {
        return shown().toString();
    }
}
