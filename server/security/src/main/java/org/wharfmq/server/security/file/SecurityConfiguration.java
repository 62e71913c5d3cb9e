package org.wharfmq.server.security.file;

import org.wharfmq.server.config.Setting;

import java.nio.file.Path;

/**
 * The security module's settings and timings (docs/security.md): each key of its {@code security:} block of
 * config/wharf.yaml one {@link Setting}, which {@link SecuritySettings} reads and shows with no code of its own.
 */
public final class SecurityConfiguration {

    /**
     * The security file (users, permissions, a login module): by default none, so that no user can log in and only
     * clients on the server's machine may connect, anonymously. A relative name is taken from the configuration file's
     * directory (security.yaml beside wharf.yaml).
     */
    public static final Setting<Path> SECURITY_FILE = Setting.file("file");

    /**
     * How often the security file's modification time is checked, in ms: {@value}. A changed file is read again and
     * its rules replace the old ones; a file that does not parse keeps the old rules (and the log says why).
     */
    public static final long RELOAD_MILLIS = 2_000L;

    private SecurityConfiguration() {
    }
}
