package org.wharfmq.server.security;

import org.wharfmq.protocol.auth.ScramCredential;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Logins with which the queue manager's own code (a plugin) acts for a user someone else authenticated: the flow host
 * runs an HTTP-invoked flow's sends as the HTTP caller, so the queue manager checks the caller's permissions and
 * stamps the caller as JMSXUserID. {@link #loginFor} gives a login name and password for a user; a connection over
 * the <b>in-VM listener only</b> that logs in with them (SCRAM-SHA-256) is that user, with the groups it had when the
 * login was made. Over TCP the names are unknown users.
 *
 * <p>Nothing is given away: in-process code can connect as the queue manager itself ({@link Identity#SERVER}) and do
 * everything; a login made here lets it do less, as the user. The name is random ({@code in-process-} and 32 hex
 * digits, never a user of the security file, so a user's own password logins are unaffected), the password random,
 * both in memory only and new at every start. One login per user: a user's groups changed by a security file reload
 * give a new one at the next {@link #loginFor}. Thread-safe.
 */
public final class InProcessLogins {

    /** Login names start so: a user of the security file cannot be called so by accident. */
    static final String PREFIX = "in-process-";
    private static final int ITERATIONS = ScramCredential.MIN_ITERATIONS;

    /**
     * A login.
     *
     * @param name     the login name (not the user's)
     * @param password its password
     */
    public record Login(String name, char[] password) {
    }

    private record Delegation(Identity identity, Login login, ScramCredential credential) {
    }

    private final SecureRandom random = new SecureRandom();
    private final Map<String, Delegation> byUser = new ConcurrentHashMap<>();
    private final Map<String, Delegation> byName = new ConcurrentHashMap<>();

    /**
     * The login with which an in-VM connection is {@code who}.
     *
     * @throws IllegalArgumentException for an anonymous identity (there is no user to act as)
     */
    public Login loginFor(Identity who) {
        if (who.anonymous()) {
            throw new IllegalArgumentException("no user to log in as: " + who.describe());
        }
        Delegation current = byUser.compute(who.user(), (user, had) -> {
            if (had != null && had.identity().groups().equals(who.groups())) {
                return had;
            }
            if (had != null) {
                byName.remove(had.login().name());
            }
            byte[] token = new byte[16];
            random.nextBytes(token);
            char[] password = HexFormat.of().formatHex(secret()).toCharArray();
            Login login = new Login(PREFIX + HexFormat.of().formatHex(token), password);
            Delegation made = new Delegation(new Identity(who.user(), who.groups(), "IN-PROCESS-AS-USER"), login,
                    ScramCredential.create(password, ITERATIONS, random));
            byName.put(login.name(), made);
            return made;
        });
        return new Login(current.login().name(), current.login().password().clone());
    }

    private byte[] secret() {
        byte[] secret = new byte[32];
        random.nextBytes(secret);
        return secret;
    }

    /** Whether any login was made (the in-VM listener then offers SCRAM-SHA-256 even without users). */
    public boolean any() {
        return !byName.isEmpty();
    }

    /** The credential of login {@code name}, or null when it is none of these logins. */
    public ScramCredential credential(String name) {
        Delegation d = name.startsWith(PREFIX) ? byName.get(name) : null;
        return d == null ? null : d.credential();
    }

    /** Who login {@code name} is, or null when it is none of these logins. */
    public Identity identity(String name) {
        Delegation d = name.startsWith(PREFIX) ? byName.get(name) : null;
        return d == null ? null : d.identity();
    }
}
