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
 * anonymous clients allowed as the test chooses (from this machine, as the secure default, unless said otherwise).
 */
public final class TestUsers implements Authenticator {

    private final Map<String, User> users = new ConcurrentHashMap<>();
    private final AnonymousAccess anonymous;

    private TestUsers(AnonymousAccess anonymous) {
        this.anonymous = anonymous;
    }

    /** These users (password {@code <name>-pw}, group {@code apps}), and anonymous clients from this machine. */
    public static TestUsers of(String... names) {
        return withAnonymous(AnonymousAccess.LOOPBACK, names);
    }

    /** These users, and anonymous clients from where {@code anonymous} says. */
    public static TestUsers withAnonymous(AnonymousAccess anonymous, String... names) {
        TestUsers users = new TestUsers(anonymous);
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
        return false;
    }

    @Override
    public CompletionStage<Identity> verifyPlain(String user, char[] password) {
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public AnonymousAccess anonymousAccess() {
        return anonymous;
    }
}
