package org.wharfmq.protocol;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The temporary namespace of a connection, derived from its connection key (CLAIM_KEY, {@code docs/protocol.md}),
 * the same way on both ends: {@code TMP.} followed by the first {@value #NAMESPACE_BYTES} bytes of the key's SHA-256 in
 * lowercase hex and a dot. A connection may create temporary destinations only under its own namespace.
 *
 * <p>Why a hash of a secret: a temporary queue's name is public (it travels in every JMSReplyTo), and a client that
 * reconnects creates its temporary queues again under the same names so that replies to requests sent before the
 * failure still reach it. Were names free, any connection that had seen a JMSReplyTo could take the name in the moments
 * between a failure and the reconnection, or after a server restart, and read the replies. Bound to the hash of a key
 * only the owning client knows, the name can be created only by whoever holds the key, and the server needs to remember
 * nothing across a restart to check it.
 */
public final class TemporaryNames {
    /** Length of a connection key: {@value} random bytes. */
    public static final int KEY_BYTES = 32;
    /** Bytes of the key's SHA-256 the namespace shows: {@value} (128 bits, so no two keys share one in practice). */
    public static final int NAMESPACE_BYTES = 16;
    /** What every temporary destination's name starts with. */
    public static final String PREFIX = "TMP.";

    private TemporaryNames() {
    }

    /**
     * The namespace of {@code key}: {@code TMP.<hex>.}; every temporary destination of a connection with this key is
     * named this followed by something of the client's choosing.
     *
     * @throws IllegalArgumentException when the key is not {@value #KEY_BYTES} bytes
     */
    public static String namespace(byte[] key) {
        if (key == null || key.length != KEY_BYTES) {
            throw new IllegalArgumentException("a connection key is " + KEY_BYTES + " bytes, not "
                    + (key == null ? "absent" : key.length));
        }
        return PREFIX + HexFormat.of().formatHex(sha256(key), 0, NAMESPACE_BYTES) + ".";
    }

    /** The SHA-256 of {@code key}: what the server keeps of a key, and compares. */
    public static byte[] sha256(byte[] key) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(key);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }

    /** Whether {@code name} lies in {@code namespace} (and names something in it, not the namespace alone). */
    public static boolean inNamespace(String name, String namespace) {
        return name.length() > namespace.length() && name.startsWith(namespace);
    }
}
