package org.wharfmq.server.security.file;

import org.wharfmq.server.config.ComponentSettings;
import org.wharfmq.server.config.SettingValues;
import org.wharfmq.server.config.SettingsSection;

import java.nio.file.Path;
import java.util.Map;

/**
 * Where the queue manager's security file is: the settings {@link SecurityConfiguration} declares, at the top level
 * of config/wharf.yaml ({@code securityFile}; docs/security.md), read and shown here without a line of their own.
 * What the file says (users, permissions, a login module) is the file's own ({@link SecurityFile}). Without it (the
 * secure default) no user can log in and only clients on the server's machine may connect, anonymously. Immutable.
 */
public final class SecuritySettings extends ComponentSettings {

    /**
     * Reads {@code securityFile}: a relative path is taken from the configuration file's directory (security.yaml
     * beside wharf.yaml). Null when the key is left out or empty.
     *
     * @see SettingsSection
     */
    public static final SettingsSection<SecuritySettings> SECTION = file -> {
        SettingValues values = SettingValues.defaults("", SecurityConfiguration.class).read(file).check();
        return values.get(SecurityConfiguration.SECURITY_FILE) == null ? null : new SecuritySettings(values);
    };

    private SecuritySettings(SettingValues values) {
        super(values);
    }

    /** The security file, absolute when read from a configuration file. */
    public Path file() {
        return get(SecurityConfiguration.SECURITY_FILE);
    }

    /** What the settings show when there is no security file: {@code securityFile} none. */
    public static Map<String, Object> none() {
        return SettingValues.defaults("", SecurityConfiguration.class).shown();
    }
}
