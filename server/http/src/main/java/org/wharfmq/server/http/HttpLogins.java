package org.wharfmq.server.http;

import io.netty.channel.Channel;
import org.wharfmq.protocol.auth.ScramCredential;
import org.wharfmq.server.security.AuditLog;
import org.wharfmq.server.security.Authenticator;
import org.wharfmq.server.security.Identity;
import org.wharfmq.server.security.Logins;
import org.wharfmq.server.transport.TlsPeer;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Base64;
import java.util.concurrent.TimeUnit;

/**
 * Who an HTTP request is, by the rules the wire's handshake follows: HTTP Basic with a user of the users file (the
 * password checked against the user's SCRAM-SHA-256 verifier: StoredKey derived from it with the stored salt and
 * iterations, compared in constant time), or through the login module; over HTTPS, or plain HTTP from this machine
 * only (a password crosses no network in clear, as the wire offers PLAIN over TLS only); a
 * TLS client certificate mapped to a user; anonymous where the wire allows anonymous clients (by default from this
 * machine only). A failed login is an audit line and counts into the same {@link org.wharfmq.server.security.LoginThrottle}
 * as the wire's, per user name and address, whose delay the answer then waits. Runs on the listener's worker threads (PBKDF2 takes a few ms).
 */
final class HttpLogins {

    /** The mechanism audit lines and identities name for HTTP Basic. */
    static final String BASIC = "HTTP-BASIC";
    /** The longest wait for the login module (a directory is a network round trip away), in seconds. */
    private static final long LOGIN_MODULE_TIMEOUT_SECONDS = 30;

    /**
     * The outcome of a login.
     *
     * @param who         who the request is; null when refused
     * @param status      the status of the refusal: 401 (log in), or 403 when logging in is not what is missing
     * @param refusal     why it was refused, for the caller (never whether the user exists); null when not
     * @param delayMillis how long the answer waits, for an address that failed too often lately
     */
    record Outcome(Identity who, int status, String refusal, long delayMillis) {

        Outcome(Identity who, String refusal, long delayMillis) {
            this(who, 401, refusal, delayMillis);
        }
    }

    private final Logins logins;
    private final String serverName;
    private final HostCheck hosts = new HostCheck();
    /** The salt of the decoy derivation for unknown users, so they cost what a known user costs. */
    private final byte[] decoySalt;

    HttpLogins(Logins logins, String serverName) {
        this.logins = logins;
        this.serverName = serverName;
        this.decoySalt = Arrays.copyOf(logins.decoySecret(), ScramCredential.SALT_BYTES);
    }

    /**
     * Who sent a request with headers {@code authorization} and {@code host} (null for none) over {@code channel}.
     */
    Outcome login(String authorization, String host, Channel channel) {
        InetAddress address = channel.remoteAddress() instanceof InetSocketAddress a ? a.getAddress() : null;
        Authenticator users = logins.authenticator();
        if (authorization == null) {
            Identity certificate = TlsPeer.certificate(channel)
                    .map(c -> users.certificateUser(c.getSubjectX500Principal())).orElse(null);
            if (certificate != null) {
                return new Outcome(certificate, null, delay(certificate.user(), address));
            }
            long delay = delay("", address);
            if (anonymousAllowed(users, address)) {
                if (users.anonymousAccess() == Authenticator.AnonymousAccess.LOOPBACK && !hosts.namesThisMachine(host)) {
                    return foreignHost(channel, address, host, delay);
                }
                return new Outcome(Identity.ANONYMOUS, null, delay);
            }
            return new Outcome(null, "Queue manager " + serverName + " accepts no anonymous HTTP clients from "
                    + (address == null ? channel.remoteAddress() : address.getHostAddress()) + ": log in with a user"
                    + " of its users file (HTTP Basic; bin/wharf user add).", delay);
        }
        if (!TlsPeer.isTls(channel) && (address == null || !address.isLoopbackAddress())) {
            // as on the wire, where PLAIN is offered over TLS only: a password crosses no network in clear
            long delay = delay("", address);
            AuditLog.loginFailed("", channel.remoteAddress(), BASIC, "credentials sent over plain HTTP from another "
                    + "machine (refused unread; http.tls is false)", delay);
            return new Outcome(null, "Queue manager " + serverName + " takes passwords over HTTPS only: this request"
                    + " sent one in clear over plain HTTP from " + (address == null ? channel.remoteAddress()
                    : address.getHostAddress()) + ", where anyone on the way could read it. Set http.tls: true and"
                    + " call https://, or call from this machine; change the password if the network is not trusted.",
                    delay);
        }
        if (!authorization.regionMatches(true, 0, "Basic ", 0, 6)) {
            return failed(channel, address, "", "the Authorization header is not Basic", "Authentication failed:"
                    + " log in with HTTP Basic (Authorization: Basic base64(user:password)).");
        }
        char[] credentials = decode(authorization.substring(6).trim());
        int colon = credentials == null ? -1 : indexOf(credentials, ':');
        if (colon < 0) {
            return failed(channel, address, "", "the Basic credentials are not base64 of UTF-8 user:password",
                    "Authentication failed: the Basic credentials are not base64 of user:password (UTF-8).");
        }
        String user = new String(credentials, 0, colon);
        char[] password = Arrays.copyOfRange(credentials, colon + 1, credentials.length);
        Arrays.fill(credentials, '\0');
        try {
            Identity who = verify(users, user, password, channel);
            if (who == null) {
                return failed(channel, address, user, "wrong user name or password (HTTP Basic)", null);
            }
            return new Outcome(who, null, delay(user, address));
        } catch (Exception e) {
            return failed(channel, address, user, "the login module could not be asked: " + e, null);
        } finally {
            Arrays.fill(password, '\0');
        }
    }

    /**
     * An anonymous caller let in for being on this machine whose request names another host: what a page of another
     * site sends from a browser on this machine once it has had its name point here (DNS rebinding), refused.
     */
    private Outcome foreignHost(Channel channel, InetAddress address, String host, long delay) {
        String shown = host.length() > 100 ? host.substring(0, 100) + "..." : host;
        AuditLog.loginFailed("", channel.remoteAddress(), "ANONYMOUS", "an anonymous HTTP request from this machine"
                + " names host '" + shown + "' (its Host header), not this machine: refused, as a page of another site"
                + " would send it from a browser here after pointing its name at this machine (DNS rebinding)", delay);
        return new Outcome(null, 403, "Queue manager " + serverName + " lets anonymous HTTP callers in from this"
                + " machine only, and this request, from " + address.getHostAddress() + ", names the host '" + shown
                + "' (its Host header), not this machine: a page of another site that pointed its name at this machine"
                + " (DNS rebinding) would send that, to use the listener through a browser here. Call it by this"
                + " machine's address (http://localhost:PORT/, http://127.0.0.1:PORT/ or its host name), or add users"
                + " (bin/wharf user add) and log in.", delay);
    }

    /** The throttle's delay for a login of {@code user} (as the caller named it) from {@code address}. */
    private long delay(String user, InetAddress address) {
        return address == null ? 0 : logins.throttle().delayMillis(user, address);
    }

    /** The user's identity when the password is right, else null. */
    private Identity verify(Authenticator users, String name, char[] password, Channel channel) throws Exception {
        Authenticator.User user = users.user(name);
        if (user != null) {
            ScramCredential stored = user.credential();
            byte[] storedKey = ScramCredential.derive(password, stored.salt(), stored.iterations()).storedKey();
            return MessageDigest.isEqual(storedKey, stored.storedKey())
                    ? new Identity(name, user.groups(), BASIC) : null;
        }
        if (users.plainAvailable() && TlsPeer.isTls(channel)) {
            return users.verifyPlain(name, password).toCompletableFuture()
                    .get(LOGIN_MODULE_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        }
        ScramCredential.derive(password, decoySalt, users.decoyIterations()); // as long as a known user takes
        return null;
    }

    private Outcome failed(Channel channel, InetAddress address, String user, String reason, String clientMessage) {
        long delay = delay(user, address);
        AuditLog.loginFailed(user, channel.remoteAddress(), BASIC, reason, delay);
        if (address != null) {
            logins.throttle().failed(user, address);
        }
        return new Outcome(null, clientMessage != null ? clientMessage
                : "Authentication failed for user '" + user + "'.", delay);
    }

    private static boolean anonymousAllowed(Authenticator users, InetAddress address) {
        return switch (users.anonymousAccess()) {
            case ANYWHERE -> true;
            case LOOPBACK -> address != null && address.isLoopbackAddress();
            case NOWHERE -> false;
        };
    }

    /** base64 of UTF-8 as characters, or null when it is neither. */
    private static char[] decode(String base64) {
        byte[] bytes;
        try {
            bytes = Base64.getDecoder().decode(base64);
        } catch (IllegalArgumentException e) {
            return null;
        }
        try {
            CharBuffer chars = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes));
            char[] out = new char[chars.remaining()];
            chars.get(out);
            Arrays.fill(chars.array(), '\0');
            return out;
        } catch (CharacterCodingException e) {
            return null;
        } finally {
            Arrays.fill(bytes, (byte) 0);
        }
    }

    private static int indexOf(char[] chars, char c) {
        for (int i = 0; i < chars.length; i++) {
            if (chars[i] == c) {
                return i;
            }
        }
        return -1;
    }
}
