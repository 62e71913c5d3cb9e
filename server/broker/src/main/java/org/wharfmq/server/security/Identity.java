package org.wharfmq.server.security;

import java.util.Set;

/**
 * Who a connection is, as its handshake established it: fixed for the connection's life, and the one thing
 * authorisation and the JMSXUserID check look at.
 *
 * @param user      the authenticated user name; empty for an anonymous connection
 * @param groups    the groups the user belongs to (never null)
 * @param mechanism how the user was authenticated: {@code SCRAM-SHA-256}, {@code PLAIN}, {@code EXTERNAL} (a TLS
 *                  client certificate), {@code HTTP-BASIC} (a password over the HTTP listener, checked against the
 *                  user's SCRAM verifier), {@code ANONYMOUS}, or {@code IN-PROCESS} for {@link #SERVER}
 */
public record Identity(String user, Set<String> groups, String mechanism) {

    /** A connection that did not authenticate. */
    public static final Identity ANONYMOUS = new Identity("", Set.of(), "ANONYMOUS");

    /**
     * The queue manager's own code: a connection over the in-VM listener that did not authenticate (its plugins,
     * such as the admin command responder, or the application that embeds the server). The in-VM listener is
     * reachable only from inside the server's process, which such code could change anyway, so it may do
     * everything; a plugin meant to have less (the flow host with a service user) authenticates as a user.
     */
    public static final Identity SERVER = new Identity("", Set.of(), "IN-PROCESS");

    public Identity {
        groups = Set.copyOf(groups);
    }

    /** Whether the connection did not authenticate (the queue manager's own in-VM connections included). */
    public boolean anonymous() {
        return user.isEmpty();
    }

    /** Whether this is {@link #SERVER}, the queue manager's own code. */
    public boolean server() {
        return this == SERVER;
    }

    /** The user as a log line or an error message names it. */
    public String describe() {
        return server() ? "the queue manager (in-process)" : anonymous() ? "an anonymous client" : "user '" + user + "'";
    }

    /** {@link #describe()} at the start of a sentence (an error message): "User 'alice' may not ...". */
    public String describeAtStart() {
        String d = describe();
        return Character.toUpperCase(d.charAt(0)) + d.substring(1);
    }
}
