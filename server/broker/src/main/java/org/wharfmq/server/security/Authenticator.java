package org.wharfmq.server.security;

import org.wharfmq.protocol.auth.ScramCredential;

import javax.security.auth.x500.X500Principal;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * What the handshake asks about users: a user's SCRAM credential and groups, whether a login module checks PLAIN
 * passwords, which user a TLS client certificate is, and who may connect without a user. The security file
 * ({@code server/security}) implements it over its reloadable rules; {@link #localOnly()} is the secure default when
 * there is no such file. Called on event loops, so every method but {@link #verifyPlain} answers from memory at once.
 */
public interface Authenticator {

    /** Where a client may connect without a user name, over TCP (the in-VM listener is in-process: always). */
    enum AnonymousAccess {
        /** Nowhere: every TCP client authenticates. */
        NOWHERE,
        /** From this machine only (127.0.0.1, ::1): the default when no users are configured. */
        LOOPBACK,
        /** From anywhere: {@code allowAnonymous: true}, logged loudly at start. */
        ANYWHERE
    }

    /**
     * A user of the users file.
     *
     * @param credential the stored SCRAM-SHA-256 verifier
     * @param groups     the groups the user is in
     */
    record User(ScramCredential credential, Set<String> groups) {
        public User {
            groups = Set.copyOf(groups);
        }
    }

    /** The user named {@code name} in the users file, or null when there is none. */
    User user(String name);

    /** Whether any user is configured for SCRAM-SHA-256 (else that mechanism is not offered). */
    boolean hasUsers();

    /** Whether a login module checks user names and passwords (PLAIN, offered over TLS only). */
    boolean plainAvailable();

    /**
     * Checks a user name and password with the login module, off the caller's thread (a directory is a network round
     * trip away).
     *
     * @return completes with the user's identity (mechanism {@code PLAIN}), or null when the login module refused it;
     * exceptionally when the module could not be asked
     */
    CompletionStage<Identity> verifyPlain(String user, char[] password);

    /** Where anonymous clients may connect from over TCP. */
    AnonymousAccess anonymousAccess();

    /**
     * The PBKDF2 iteration count an unknown user's decoy exchange asks for, and costs: the one most users' verifiers
     * have (the higher of two as common), so that neither the SCRAM challenge nor the time an HTTP login takes tells
     * an unknown user from a known one; by default {@link ScramCredential#MIN_ITERATIONS}, {@code bin/wharf user}'s
     * default.
     */
    default int decoyIterations() {
        return ScramCredential.MIN_ITERATIONS;
    }

    /**
     * Who a verified TLS client certificate logs in as (the EXTERNAL mechanism): by default nobody; the security file
     * maps subjects to users under {@code certificateUsers:}.
     *
     * @param subject the certificate's subject, compared as an {@link X500Principal} (not as a string)
     * @return the mapped user's identity (mechanism {@code EXTERNAL}, the user's groups), or null when the subject is
     * mapped to no user
     */
    default Identity certificateUser(X500Principal subject) {
        return null;
    }

    /**
     * The secure default of a server with no users: anonymous clients from this machine only, no user can
     * authenticate (there are none).
     */
    static Authenticator localOnly() {
        return NoUsers.LOCAL_ONLY;
    }

    /** No users, anonymous clients from where {@code access} says: an embedding application's or a benchmark's choice. */
    static Authenticator noUsers(AnonymousAccess access) {
        return access == AnonymousAccess.LOOPBACK ? NoUsers.LOCAL_ONLY : new NoUsers(access);
    }

    /** {@link #noUsers}: nobody can authenticate; anonymous clients as configured. */
    final class NoUsers implements Authenticator {
        private static final NoUsers LOCAL_ONLY = new NoUsers(AnonymousAccess.LOOPBACK);

        private final AnonymousAccess access;

        private NoUsers(AnonymousAccess access) {
            this.access = access;
        }

        @Override
        public User user(String name) {
            return null;
        }

        @Override
        public boolean hasUsers() {
            return false;
        }

        @Override
        public boolean plainAvailable() {
            return false;
        }

        @Override
        public CompletionStage<Identity> verifyPlain(String user, char[] password) {
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public AnonymousAccess anonymousAccess() {
            return access;
        }
    }
}
