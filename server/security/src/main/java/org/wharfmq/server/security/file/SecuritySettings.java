package org.wharfmq.server.security.file;

import org.wharfmq.server.config.ComponentSettings;
import org.wharfmq.server.config.SettingValues;
import org.wharfmq.server.config.Settings;
import org.wharfmq.server.config.SettingsSection;

import java.nio.file.Path;
import java.util.Map;

/**
 * Where the queue manager's security file is: the settings {@link SecurityConfiguration} declares, the
 * {@code security:} block of config/wharf.yaml ({@code file}; docs/security.md), read and shown here without a line of
 * their own; the top-level {@code securityFile} of earlier versions is still read, with a warning at start. What the
 * file says (users, permissions, a login module) is the file's own ({@link SecurityFile}). Without it (the secure
 * default) no user can log in and only clients on the server's machine may connect, anonymously. Immutable.
 */
public final class SecuritySettings extends ComponentSettings {

    /** The block's key in the file. */
    public static final String KEY = "security";

    /** The block's keys that earlier versions read at the file's top level, each with its key in the block. */
    public static final Map<String, String> FORMER_KEYS = Map.of("securityFile", "file");

    /**
     * Reads the {@code security:} block (or {@code securityFile}): a relative path is taken from the configuration
     * file's directory (security.yaml beside wharf.yaml). Null when the file names no security file.
     *
     * @see SettingsSection
     */
    public static final SettingsSection<SecuritySettings> SECTION = file -> {
        Settings block = file.section(KEY, FORMER_KEYS);
        if (block == null) {
            return null;
        }
        SettingValues values = defaults().read(block);
        block.refuseUnknown();
        return values.check().get(SecurityConfiguration.SECURITY_FILE) == null ? null : new SecuritySettings(values);
    };

    private SecuritySettings(SettingValues values) {
        super(values);
    }

    /** The security file, absolute when read from a configuration file. */
    public Path file() {
        return get(SecurityConfiguration.SECURITY_FILE);
    }

    /** What the settings show when there is no security file: {@code security.file} none. */
    public static Map<String, Object> none() {
        return defaults().shown();
    }

    private static SettingValues defaults() {
        return SettingValues.defaults(KEY, SecurityConfiguration.class);
    }
}
