package org.wharfmq.server.security.file;

import org.wharfmq.protocol.auth.Mechanisms;
import org.wharfmq.server.security.Identity;

import javax.security.auth.Subject;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.NameCallback;
import javax.security.auth.callback.PasswordCallback;
import javax.security.auth.callback.UnsupportedCallbackException;
import javax.security.auth.login.Configuration;
import javax.security.auth.login.FailedLoginException;
import javax.security.auth.login.LoginContext;
import javax.security.auth.login.LoginException;
import java.security.Principal;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;

/**
 * Checks PLAIN logins with a JAAS login module: the {@code jaas.entry} of the JAAS configuration file
 * ({@code -Djava.security.auth.login.config}), such as the JDK's {@code com.sun.security.auth.module.LdapLoginModule}
 * against a directory (the tested configuration is in docs/security.md). The user's groups are the names of the
 * subject's principals whose class is listed in {@code jaas.groupsFrom}. A login module may block on the network, so
 * logins run on this authenticator's own threads ({@value #THREADS}), never on an event loop.
 */
public final class JaasAuthenticator implements AutoCloseable {

    /** Threads asking the login module at once; more logins wait their turn. */
    static final int THREADS = 2;

    private final SecurityFile.Jaas settings;
    private final Configuration configuration;
    private final ExecutorService threads = Executors.newFixedThreadPool(THREADS, r -> {
        Thread t = new Thread(r, "wharf-jaas");
        t.setDaemon(true);
        return t;
    });

    /**
     * @param settings      the entry and the group principal classes
     * @param configuration the JAAS configuration, or null for the JVM's ({@code java.security.auth.login.config})
     */
    public JaasAuthenticator(SecurityFile.Jaas settings, Configuration configuration) {
        this.settings = settings;
        this.configuration = configuration;
    }

    /**
     * Logs {@code user} in with {@code password} (copied; the caller may clear its array once this returns).
     *
     * @return completes with the identity, null when the module refused the user name or password, or exceptionally
     * when the module failed otherwise (a directory that cannot be reached)
     */
    public CompletionStage<Identity> verify(String user, char[] password) {
        char[] copy = password.clone();
        try {
            return CompletableFuture.supplyAsync(() -> {
                try {
                    return login(user, copy);
                } finally {
                    java.util.Arrays.fill(copy, '\0');
                }
            }, threads);
        } catch (RejectedExecutionException e) { // closed by a reload that replaced it a moment ago
            java.util.Arrays.fill(copy, '\0');
            return CompletableFuture.failedFuture(new IllegalStateException("JAAS entry '" + settings.entry()
                    + "' was replaced by a reload of the security file during this login; the client may try again"));
        }
    }

    private Identity login(String user, char[] password) {
        try {
            LoginContext context = new LoginContext(settings.entry(), new Subject(), callbacks -> {
                for (Callback callback : callbacks) {
                    if (callback instanceof NameCallback name) {
                        name.setName(user);
                    } else if (callback instanceof PasswordCallback pw) {
                        pw.setPassword(password);
                    } else {
                        throw new UnsupportedCallbackException(callback, "Wharf supplies only a name and a password");
                    }
                }
            }, configuration);
            context.login();
            Set<String> groups = new LinkedHashSet<>();
            for (Principal p : context.getSubject().getPrincipals()) {
                if (settings.groupsFrom().contains(p.getClass().getName())) {
                    groups.add(p.getName());
                }
            }
            context.logout();
            return new Identity(user, groups, Mechanisms.PLAIN);
        } catch (FailedLoginException refused) {
            return null;
        } catch (LoginException e) {
            throw new IllegalStateException("JAAS entry '" + settings.entry() + "' failed: " + e.getMessage(), e);
        }
    }

    /** Takes no more logins; those under way finish (their clients get their answers). */
    @Override
    public void close() {
        threads.shutdown();
    }
}
