package org.wharfmq.server.security.file;

import org.wharfmq.server.config.SettingsSection;

import java.nio.file.Path;

/**
 * Where the queue manager's security file is: the key {@code securityFile} of config/wharf.yaml (docs/security.md).
 * What the file says (users, permissions, a login module) is the file's own ({@link SecurityFile}). Without the key
 * (the secure default) no user can log in and only clients on the server's machine may connect, anonymously.
 *
 * @param file the security file, absolute when read from a configuration file
 */
public record SecuritySettings(Path file) {

    /**
     * Reads {@code securityFile}: a relative path is taken from the configuration file's directory (security.yaml
     * beside wharf.yaml). Null when the key is left out or empty.
     *
     * @see SettingsSection
     */
    public static final SettingsSection<SecuritySettings> SECTION = settings -> {
        Path file = settings.file("securityFile");
        return file == null ? null : new SecuritySettings(file);
    };
}
