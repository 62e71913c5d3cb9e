package org.wharfmq.server.security;

import java.security.SecureRandom;

/**
 * What every handshake of one server shares: the {@link Authenticator} that knows the users, the
 * {@link LoginThrottle} that slows repeated failures, and the secret from which SCRAM's decoy salts for unknown users
 * are derived (random per start, so it never leaves the process).
 */
public final class Logins {

    private final Authenticator authenticator;
    private final LoginThrottle throttle;
    private final byte[] decoySecret;
    private final InProcessLogins inProcess = new InProcessLogins();

    /** Logins checked by {@code authenticator}, throttled by the system clock. */
    public Logins(Authenticator authenticator) {
        this(authenticator, new LoginThrottle(System::nanoTime));
    }

    /** Logins checked by {@code authenticator} and slowed by {@code throttle}. */
    public Logins(Authenticator authenticator, LoginThrottle throttle) {
        this.authenticator = authenticator;
        this.throttle = throttle;
        this.decoySecret = new byte[32];
        new SecureRandom().nextBytes(decoySecret);
    }

    /** Who the users are. */
    public Authenticator authenticator() {
        return authenticator;
    }

    /** Failed logins per user and address, and per address. */
    public LoginThrottle throttle() {
        return throttle;
    }

    /** The logins with which in-process code (a plugin) acts as a user over the in-VM listener. */
    public InProcessLogins inProcess() {
        return inProcess;
    }

    /** The secret SCRAM's decoy credentials are derived from (a copy). */
    public byte[] decoySecret() {
        return decoySecret.clone();
    }
}
