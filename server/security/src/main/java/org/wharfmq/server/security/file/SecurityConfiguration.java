package org.wharfmq.server.security.file;

/** The security file's defaults and timings ({@link SecuritySettings}; docs/security.md). */
public final class SecurityConfiguration {

    /**
     * How often the security file's modification time is checked, in ms: {@value}. A changed file is read again and
     * its rules replace the old ones; a file that does not parse keeps the old rules (and the log says why).
     */
    public static final long RELOAD_MILLIS = 2_000L;

    private SecurityConfiguration() {
    }
}
