package org.wharfmq.server.config;

import java.util.List;

/**
 * An entry of one of the configuration's lists ({@code queues:}, {@code topics:}, {@code flows:},
 * {@code dataSources:}...) as a value: the value of each key its class of named defaults declares, handed out by
 * {@link #get}, changed into a copy by {@link #with}, and equal to an entry of the same class with the same values. A
 * subclass adds the rules between its keys and what its users ask of it, never a field, a reading or a check of a
 * key of its own (docs/architecture.md, "Settings").
 *
 * <p>Immutable.
 *
 * @param <E> the subclass, which {@link #with} returns
 */
public abstract class SettingsEntry<E extends SettingsEntry<E>> {

    /** The value of each declared key, named for errors as the entry's. */
    private final SettingValues values;

    protected SettingsEntry(SettingValues values) {
        this.values = values;
    }

    /**
     * The keys {@code keys} of {@code entry}, an entry of the file's list: those it gives taken from it, the others
     * at their defaults, each named by its key (not by the entry's path, {@code queues[1].maxDepth}: an entry is
     * shown and compared as any entry of its list is, wherever it came from); the entry's unknown keys refused. Not
     * checked yet.
     *
     * @throws ConfigurationException for an unknown key or a value of the wrong type, naming the file and its line
     */
    protected static SettingValues readEntry(Settings entry, List<Setting<?>> keys) {
        SettingValues values = SettingValues.defaults("", keys).read(entry);
        entry.refuseUnknown();
        return values;
    }

    /** This entry made of {@code values} (of the same keys): what {@link #with} returns. */
    protected abstract E of(SettingValues values);

    /** The values of its keys. */
    protected final SettingValues values() {
        return values;
    }

    /** The value of {@code setting}, one of its keys: null for none (unless the key has a default). */
    public final <T> T get(Setting<T> setting) {
        return values.get(setting);
    }

    /**
     * This entry with {@code setting} (one of its keys) at {@code value}; checked as its class checks an entry (a rule
     * between keys may need the next change).
     *
     * @throws IllegalArgumentException for a setting that is not one of its keys
     */
    public final <T> E with(Setting<T> setting, T value) {
        return of(values.with(setting, value));
    }

    /** Whether {@code other} is an entry of the same class with the same value of every key. */
    @Override
    public final boolean equals(Object other) {
        return other != null && other.getClass() == getClass() && values.equals(((SettingsEntry<?>) other).values);
    }

    @Override
    public final int hashCode() {
        return values.hashCode();
    }
}
