package org.wharfmq.protocol.auth;

/** The names of the authentication mechanisms of the handshake, as AUTH_MECHANISMS and AUTH carry them. */
public final class Mechanisms {
    /** Salted challenge-response over the users file's verifiers: the password never crosses the wire. */
    public static final String SCRAM_SHA_256 = "SCRAM-SHA-256";
    /** User name and password in clear ({@code \0user\0password}), for a login module: offered only over TLS. */
    public static final String PLAIN = "PLAIN";
    /** The TLS client certificate names the user. */
    public static final String EXTERNAL = "EXTERNAL";
    /** No user. */
    public static final String ANONYMOUS = "ANONYMOUS";

    private Mechanisms() {
    }
}
