package org.wharfmq.server.security.file;

import org.wharfmq.protocol.auth.Mechanisms;
import org.wharfmq.protocol.auth.ScramCredential;
import org.wharfmq.server.config.ConfigurationException;
import org.wharfmq.server.security.AccessControl;
import org.wharfmq.server.security.AccessPolicy;
import org.wharfmq.server.security.Authenticator;
import org.wharfmq.server.security.Identity;

import javax.security.auth.x500.X500Principal;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The security file as the broker uses it: its users and certificate mapping, as the broker's {@link Authenticator},
 * and its permission rules, kept in force in the {@link AccessControl} it hands to the server
 * ({@link #accessControl()}). Answers from the file last read, and reads it again when its modification time changes
 * (checked every {@link SecurityConfiguration#RELOAD_MILLIS} on a daemon thread) or {@link #reload()} is called. A
 * file that does not parse keeps the rules in force, and the log says why. A connection's identity is fixed at its
 * handshake, so a reload affects later logins; new permission rules answer the next check (the next consumer, producer
 * or anonymous send), and new quotas the next queue, temporary queue, connection or REJECT counted (what users
 * hold stays theirs).
 */
public final class SecurityFileRealm implements Authenticator, AutoCloseable {

    private static final System.Logger LOG = System.getLogger(SecurityFileRealm.class.getName());

    private final Path file;
    private final javax.security.auth.login.Configuration jaasConfiguration;
    private final ScheduledExecutorService poller;
    private final AccessControl accessControl;
    private volatile Rules rules;
    /** The modification time of the file the rules were read from (or that was found bad): reloads look for a change. */
    private FileTime seen;

    /**
     * A reading of the file, with its login module when it names one and the iteration count of unknown users'
     * decoys ({@link #decoyIterations}).
     */
    private record Rules(SecurityFile file, JaasAuthenticator jaas, int decoyIterations) {
    }

    private SecurityFileRealm(Path file, javax.security.auth.login.Configuration jaasConfiguration, long pollMillis) {
        this.file = file;
        this.jaasConfiguration = jaasConfiguration;
        this.seen = modified();
        this.rules = read(SecurityFile.load(file));
        this.accessControl = new AccessControl(policy(rules.file()), rules.file().quotas(), source());
        log(rules.file());
        poller = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "wharf-security-reload");
            t.setDaemon(true);
            return t;
        });
        poller.scheduleWithFixedDelay(this::reloadIfChanged, pollMillis, pollMillis, TimeUnit.MILLISECONDS);
    }

    /**
     * Reads the security file and starts watching it; JAAS logins use the JVM's JAAS configuration.
     *
     * @throws ConfigurationException when the file cannot be read or is wrong: a server does not start on bad rules
     */
    public static SecurityFileRealm open(Path file) {
        return new SecurityFileRealm(file, null, SecurityConfiguration.RELOAD_MILLIS);
    }

    /** As {@link #open(Path)}, with a JAAS configuration of the caller's (tests) and a check interval. */
    static SecurityFileRealm open(Path file, javax.security.auth.login.Configuration jaas, long pollMillis) {
        return new SecurityFileRealm(file, jaas, pollMillis);
    }

    /**
     * Reads the file again now.
     *
     * @throws ConfigurationException when it is wrong; the rules in force stay
     */
    public synchronized void reload() {
        seen = modified();
        SecurityFile next = SecurityFile.load(file);
        Rules old = rules;
        rules = read(next);
        accessControl.replace(policy(next), source());
        accessControl.quotas().replace(next.quotas());
        if (old.jaas() != null) {
            old.jaas().close();
        }
        LOG.log(System.Logger.Level.INFO, "Security file " + file + " reloaded: " + next.users().size() + " users, "
                + next.certificateUsers().size() + " certificate users");
        log(next);
    }

    private synchronized void reloadIfChanged() {
        FileTime now = modified();
        if (now == null || now.equals(seen)) {
            return;
        }
        try {
            reload();
        } catch (ConfigurationException e) {
            seen = now; // once per change: the log says it once, the old rules stay
            LOG.log(System.Logger.Level.ERROR, "The changed security file is not used, the previous rules stay in force: "
                    + e.getMessage());
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, "Reloading security file " + file + " failed; the previous rules stay", e);
        }
    }

    private FileTime modified() {
        try {
            return Files.getLastModifiedTime(file);
        } catch (IOException e) {
            return null;
        }
    }

    private Rules read(SecurityFile next) {
        return new Rules(next, next.jaas() == null ? null : new JaasAuthenticator(next.jaas(), jaasConfiguration),
                mostCommonIterations(next.users().values()));
    }

    /** The iteration count most of {@code users} have, the higher of two as common; the minimum without users. */
    private static int mostCommonIterations(Collection<User> users) {
        Map<Integer, Integer> counts = new HashMap<>();
        users.forEach(user -> counts.merge(user.credential().iterations(), 1, Integer::sum));
        return counts.entrySet().stream()
                .max(Map.Entry.<Integer, Integer>comparingByValue().thenComparing(Map.Entry.comparingByKey()))
                .map(Map.Entry::getKey).orElse(ScramCredential.MIN_ITERATIONS);
    }

    /** The file's rules; none in the file (no {@code permissions:} key): every client may do everything. */
    private static AccessPolicy policy(SecurityFile f) {
        return f.permissions() != null ? f.permissions() : AccessPolicy.ALLOW_ALL;
    }

    private String source() {
        return "security file " + file;
    }

    /**
     * Who may do what, by the file's {@code permissions:}: the server checks it ({@code WharfServer.builder(config)
     * .accessControl(...)}), and a reload puts new rules in force in it.
     */
    public AccessControl accessControl() {
        return accessControl;
    }

    private void log(SecurityFile f) {
        if (f.permissions() == null) {
            LOG.log(System.Logger.Level.WARNING, "Security file " + file + " has no permissions: every client that "
                    + "logs in may do everything. Add permission rules (docs/security.md, \"Authorisation\").");
        }
        if (f.allowAnonymous()) {
            LOG.log(System.Logger.Level.WARNING, "allowAnonymous: true in " + file + ": any client that reaches the"
                    + " server may connect without a user name.");
        } else if (f.anonymousAccess() == AnonymousAccess.LOOPBACK) {
            LOG.log(System.Logger.Level.INFO, "No users configured in " + file + ": only local clients (127.0.0.1, ::1)"
                    + " may connect. Add users (bin/wharf user add) or set allowAnonymous: true.");
        }
    }

    /** The rules in force. */
    public SecurityFile rules() {
        return rules.file();
    }

    @Override
    public User user(String name) {
        return rules.file().users().get(name);
    }

    @Override
    public boolean hasUsers() {
        return !rules.file().users().isEmpty();
    }

    @Override
    public boolean plainAvailable() {
        return rules.jaas() != null;
    }

    @Override
    public CompletionStage<Identity> verifyPlain(String user, char[] password) {
        JaasAuthenticator jaas = rules.jaas();
        return jaas == null ? CompletableFuture.completedFuture(null) : jaas.verify(user, password);
    }

    @Override
    public Identity certificateUser(X500Principal subject) {
        SecurityFile f = rules.file(); // one reading: the mapping and the user's groups agree
        String name = f.certificateUsers().get(subject);
        User user = name == null ? null : f.users().get(name);
        return user == null ? null : new Identity(name, user.groups(), Mechanisms.EXTERNAL);
    }

    @Override
    public AnonymousAccess anonymousAccess() {
        return rules.file().anonymousAccess();
    }

    @Override
    public int decoyIterations() {
        return rules.decoyIterations();
    }

    /** Stops watching the file. */
    @Override
    public void close() {
        poller.shutdownNow();
        JaasAuthenticator jaas = rules.jaas();
        if (jaas != null) {
            jaas.close();
        }
    }
}
