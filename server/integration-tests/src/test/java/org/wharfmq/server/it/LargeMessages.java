package org.wharfmq.server.it;

import javax.jms.BytesMessage;
import javax.jms.DeliveryMode;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageProducer;
import javax.jms.Session;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

/**
 * Bodies of megabytes for the large-message tests: each byte a function of its position and a seed, so a body that
 * comes back shifted, truncated, or another message's, is told apart from the one sent; and the SHA-256 digest of the
 * body as sent travels with it, compared with the digest of the body as received. Checking a body reads it in pieces
 * of {@link #PIECE} bytes: a test holds the message, not two more copies of its body.
 */
public final class LargeMessages {

    /** 2 MB, the RR tables' largest column. */
    public static final int TWO_MB = 2 * 1024 * 1024;
    /** 20 MB. */
    public static final int TWENTY_MB = 20 * 1024 * 1024;
    /** 100 MB (decimal: within the default maxMessageLength of 100 MiB with the headers). */
    public static final int HUNDRED_MB = 100_000_000;

    /** The SHA-256 digest of the body as sent, in hex: a property of every message made here. */
    public static final String DIGEST_PROPERTY = "sha256";
    /** What a body is checked in. */
    private static final int PIECE = 1 << 20;

    private LargeMessages() {
    }

    /**
     * Puts {@code count} non-persistent messages of {@code size} bytes, seeds 0 to count - 1, on queue {@code name} of
     * {@code wharf}'s server, and returns once they are all on it.
     */
    static void put(WharfServerExtension wharf, String name, int count, int size) throws JMSException {
        Session session = wharf.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageProducer producer = session.createProducer(session.createQueue(name));
        producer.setDeliveryMode(DeliveryMode.NON_PERSISTENT);
        for (int i = 0; i < count; i++) {
            producer.send(message(session, size, i));
        }
        Send.barrier(session);
        assertEquals(count, wharf.depth(name));
    }

    /** The body of {@code length} bytes for {@code seed}. */
    public static byte[] body(int length, int seed) {
        byte[] body = new byte[length];
        fill(body, 0, length, seed);
        return body;
    }

    /** {@code piece}'s first {@code count} bytes: those of {@link #body}'s from {@code from} on. */
    private static void fill(byte[] piece, int from, int count, int seed) {
        for (int k = 0; k < count; k++) {
            int i = from + k;
            piece[k] = (byte) (i * 31 + (i >>> 13) + seed);
        }
    }

    /** A bytes message carrying {@link #body(int, int)}, its length, seed and digest as properties. */
    public static BytesMessage message(Session session, int length, int seed) throws JMSException {
        byte[] body = body(length, seed);
        BytesMessage m = session.createBytesMessage();
        m.writeBytes(body);
        m.setIntProperty("length", length);
        m.setIntProperty("seed", seed);
        m.setStringProperty(DIGEST_PROPERTY, HexFormat.of().formatHex(sha256().digest(body)));
        return m;
    }

    /**
     * Checks that {@code m} carries, byte for byte, the body its length and seed properties name, and that the body
     * received has the digest of the body sent; returns its seed.
     */
    public static int assertIntact(Message m) throws JMSException {
        BytesMessage bytes = assertInstanceOf(BytesMessage.class, m);
        int length = m.getIntProperty("length");
        int seed = m.getIntProperty("seed");
        assertEquals(length, bytes.getBodyLength(), "body length of the message with seed " + seed);
        MessageDigest digest = sha256();
        byte[] received = new byte[PIECE];
        byte[] expected = new byte[PIECE];
        for (int from = 0; from < length; from += PIECE) {
            int count = Math.min(PIECE, length - from);
            assertEquals(count, bytes.readBytes(received, count));
            digest.update(received, 0, count);
            fill(expected, from, count, seed);
            int first = Arrays.mismatch(received, 0, count, expected, 0, count);
            int at = from + first;
            assertEquals(-1, first, () -> "the body of " + length + " bytes (seed " + seed + ") differs first at byte " + at);
        }
        assertEquals(m.getStringProperty(DIGEST_PROPERTY), HexFormat.of().formatHex(digest.digest()),
                "the SHA-256 digest of the body received, against the sender's, of the message with seed " + seed);
        return seed;
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java has SHA-256", e);
        }
    }
}
