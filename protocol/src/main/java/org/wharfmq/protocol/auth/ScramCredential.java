package org.wharfmq.protocol.auth;

import java.security.SecureRandom;
import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a server stores for a SCRAM-SHA-256 user instead of the password (RFC 5802 section 3): the salt, the
 * iteration count, StoredKey = H(HMAC(SaltedPassword, "Client Key")) and ServerKey = HMAC(SaltedPassword,
 * "Server Key"). Neither key lets anyone log in (a proof needs ClientKey, which StoredKey hashes), but both let
 * an attacker guess passwords offline, at the iteration count's cost per guess: keep the file readable only by the
 * server. Written in PostgreSQL's verifier format, {@code SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>}
 * (base64), so existing tools can produce it.
 *
 * @param iterations the PBKDF2 iteration count, at least {@link #MIN_ITERATIONS}
 * @param salt       the random salt
 * @param storedKey  H(ClientKey)
 * @param serverKey  HMAC(SaltedPassword, "Server Key")
 */
public record ScramCredential(int iterations, byte[] salt, byte[] storedKey, byte[] serverKey) {

    /** The fewest iterations accepted, stored or offered by a server: RFC 7677's minimum. */
    public static final int MIN_ITERATIONS = 4096;
    /** The most iterations a client computes for a server: beyond it a server could make a client burn CPU. */
    public static final int MAX_ITERATIONS = 10_000_000;
    /** Bytes of a new credential's random salt. */
    public static final int SALT_BYTES = 16;

    private static final String PREFIX = "SCRAM-SHA-256$";
    private static final Pattern VERIFIER = Pattern.compile(
            "SCRAM-SHA-256\\$(\\d{1,10}):([A-Za-z0-9+/=]+)\\$([A-Za-z0-9+/=]+):([A-Za-z0-9+/=]+)");
    private static final int KEY_BYTES = 32;

    /** Checks the iteration count and the key lengths. */
    public ScramCredential {
        if (iterations < MIN_ITERATIONS || iterations > MAX_ITERATIONS) {
            throw new IllegalArgumentException("iterations must be between " + MIN_ITERATIONS + " and "
                    + MAX_ITERATIONS + ", was " + iterations);
        }
        if (salt.length == 0 || storedKey.length != KEY_BYTES || serverKey.length != KEY_BYTES) {
            throw new IllegalArgumentException("a SCRAM-SHA-256 credential has a salt and two keys of " + KEY_BYTES + " bytes");
        }
        salt = salt.clone();
        storedKey = storedKey.clone();
        serverKey = serverKey.clone();
    }

    /** The credential for {@code password} with a fresh random salt of {@link #SALT_BYTES} bytes. */
    public static ScramCredential create(char[] password, int iterations, SecureRandom random) {
        byte[] salt = new byte[SALT_BYTES];
        random.nextBytes(salt);
        return derive(password, salt, iterations);
    }

    /** The credential for {@code password} with the given salt and iteration count. */
    public static ScramCredential derive(char[] password, byte[] salt, int iterations) {
        byte[] salted = ScramFunctions.saltedPassword(password, salt, iterations);
        byte[] clientKey = ScramFunctions.hmac(salted, "Client Key");
        return new ScramCredential(iterations, salt, ScramFunctions.sha256(clientKey),
                ScramFunctions.hmac(salted, "Server Key"));
    }

    /**
     * Reads a verifier in PostgreSQL's format.
     *
     * @throws IllegalArgumentException saying what is wrong, never quoting the verifier
     */
    public static ScramCredential parse(String verifier) {
        if (verifier == null || !verifier.startsWith(PREFIX)) {
            throw new IllegalArgumentException("not a SCRAM-SHA-256 verifier: it must start with '" + PREFIX
                    + "' (write it with 'bin/wharf user add'; a clear-text password is never accepted)");
        }
        Matcher m = VERIFIER.matcher(verifier);
        if (!m.matches()) {
            throw new IllegalArgumentException("a SCRAM-SHA-256 verifier has the form " + PREFIX
                    + "<iterations>:<salt>$<StoredKey>:<ServerKey> (base64)");
        }
        try {
            java.util.Base64.Decoder b64 = java.util.Base64.getDecoder();
            return new ScramCredential(Integer.parseInt(m.group(1)), b64.decode(m.group(2)), b64.decode(m.group(3)),
                    b64.decode(m.group(4)));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("the verifier's iteration count is too large");
        }
    }

    /** This credential in PostgreSQL's verifier format. */
    public String verifier() {
        return PREFIX + iterations + ":" + ScramFunctions.base64(salt) + "$" + ScramFunctions.base64(storedKey)
                + ":" + ScramFunctions.base64(serverKey);
    }

    @Override
    public byte[] salt() {
        return salt.clone();
    }

    @Override
    public byte[] storedKey() {
        return storedKey.clone();
    }

    @Override
    public byte[] serverKey() {
        return serverKey.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ScramCredential c && iterations == c.iterations && Arrays.equals(salt, c.salt)
                && Arrays.equals(storedKey, c.storedKey) && Arrays.equals(serverKey, c.serverKey);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(storedKey);
    }

    /** Never shows the keys: a credential may end up in a log line. */
    @Override
    public String toString() {
        return "ScramCredential[SCRAM-SHA-256, " + iterations + " iterations]";
    }
}
