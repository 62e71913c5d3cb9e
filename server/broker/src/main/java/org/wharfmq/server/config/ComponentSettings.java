package org.wharfmq.server.config;

import java.util.Map;

/**
 * A component's settings in force, as its section of config/wharf.yaml gave them: the {@link SettingValues} of the
 * {@link Setting}s its class of named defaults declares, checked when made, handed out ({@link #get}) and shown
 * ({@link #shown}, {@link #toString()}: never a password) with no code of a setting's own. A component's settings class
 * extends it with the accessors its code uses and the rules between its settings. Immutable; equal to another of its
 * class with the same values.
 */
public abstract class ComponentSettings {

    private final SettingValues values;

    /**
     * Checks {@code values}, each against its setting's rules.
     *
     * @throws ConfigurationException naming the first setting that is wrong, its value and (from a file) its line
     */
    protected ComponentSettings(SettingValues values) {
        this.values = values.check();
    }

    /** The values themselves: what a subclass derives a changed copy from ({@link SettingValues#with}). */
    protected final SettingValues values() {
        return values;
    }

    /** The value of one of the component's settings. */
    public final <T> T get(Setting<T> setting) {
        return values.get(setting);
    }

    /** The settings in force by their path in the file ({@code http.port}), a password as {@value Setting#REDACTED}. */
    public Map<String, Object> shown() {
        return values.shown();
    }

    @Override
    public boolean equals(Object other) {
        return other != null && other.getClass() == getClass() && values.equals(((ComponentSettings) other).values);
    }

    @Override
    public int hashCode() {
        return values.hashCode();
    }

    /** {@code HttpSettings{http.port=7480, ...}}, never a password. */
    @Override
    public String toString() {
        return getClass().getSimpleName() + values;
    }
}
