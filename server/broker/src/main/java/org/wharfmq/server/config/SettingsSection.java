package org.wharfmq.server.config;

/**
 * A component's part of the configuration file: the keys of {@code config/wharf.yaml} one component owns (the
 * queue manager's top-level settings, the HTTP listener's {@code http:} block, the flow host's {@code flows:}...),
 * read and checked by that component's own module, beside the named defaults of its settings. The command line
 * reads the file into a {@link Settings} tree, hands it to each component's section, and refuses the keys that no
 * section asked for. Adding a setting to a component touches its settings class (and the docs), nothing else.
 *
 * <p>A section reads the {@link Setting}s it declares into a {@link SettingValues} ({@link SettingValues#read} for a
 * block, {@link SettingValues#ofEntry} for each entry of a list: the default when the file leaves a key out, a value
 * of the wrong type refused with its line), calls {@link Settings#refuseUnknown()} on each mapping it read, then
 * checks the values ({@link SettingValues#check}) and the rules between them, throwing a
 * {@link ConfigurationException} that names the setting, what was wrong and the fix.
 *
 * @param <T> the component's settings
 */
@FunctionalInterface
public interface SettingsSection<T> {

    /**
     * Reads this component's settings from the file's top level.
     *
     * @param file the whole file (its top-level mapping)
     * @return the settings, checked
     * @throws ConfigurationException naming the setting that is wrong
     */
    T read(Settings file);
}
