package org.wharfmq.server;

import org.wharfmq.protocol.auth.ScramCredential;
import org.wharfmq.server.security.Authenticator;
import org.wharfmq.server.security.Identity;

import java.security.SecureRandom;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Users for a test server: an {@link Authenticator} over a map, each user's password being {@code <name>-pw}, with
 * anonymous clients allowed as the test chooses (from this machine, as the secure default, unless said otherwise);
 * or ({@link #loginModule}) users known only to a login module, for PLAIN.
 */
public final class TestUsers implements Authenticator {

    private final Map<String, User> users = new ConcurrentHashMap<>();
    private final AnonymousAccess anonymous;
    /** The users a login module knows (PLAIN), with the same passwords; empty: no login module. */
    private final Set<String> loginModuleUsers;

    private TestUsers(AnonymousAccess anonymous, Set<String> loginModuleUsers) {
        this.anonymous = anonymous;
        this.loginModuleUsers = Set.copyOf(loginModuleUsers);
    }

    /** No SCRAM users and no anonymous client: these users log in with PLAIN, checked by a login module (group apps). */
    public static TestUsers loginModule(String... names) {
        return new TestUsers(AnonymousAccess.NOWHERE, Set.of(names));
    }

    /** These users (password {@code <name>-pw}, group {@code apps}), and anonymous clients from this machine. */
    public static TestUsers of(String... names) {
        return withAnonymous(AnonymousAccess.LOOPBACK, names);
    }

    /** These users, and anonymous clients from where {@code anonymous} says. */
    public static TestUsers withAnonymous(AnonymousAccess anonymous, String... names) {
        TestUsers users = new TestUsers(anonymous, Set.of());
        for (String name : names) {
            users.users.put(name, new User(ScramCredential.create(password(name).toCharArray(), 4096, new SecureRandom()),
                    Set.of("apps")));
        }
        return users;
    }

    /** The password of a test user. */
    public static String password(String name) {
        return name + "-pw";
    }

    @Override
    public User user(String name) {
        return users.get(name);
    }

    @Override
    public boolean hasUsers() {
        return !users.isEmpty();
    }

    @Override
    public boolean plainAvailable() {
        return !loginModuleUsers.isEmpty();
    }

    @Override
    public CompletionStage<Identity> verifyPlain(String user, char[] password) {
        boolean right = loginModuleUsers.contains(user) && password(user).equals(new String(password));
        return CompletableFuture.completedFuture(right ? new Identity(user, Set.of("apps"), "PLAIN") : null);
    }

    @Override
    public AnonymousAccess anonymousAccess() {
        return anonymous;
    }
}
