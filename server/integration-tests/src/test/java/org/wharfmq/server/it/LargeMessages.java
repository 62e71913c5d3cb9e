package org.wharfmq.server.it;

import javax.jms.BytesMessage;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.Session;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

/**
 * Bodies of megabytes for the large-message tests: each byte a function of its position and a seed, so a body that
 * comes back shifted, truncated, or another message's, is told apart from the one sent.
 */
public final class LargeMessages {

    /** 2 MB, the RR tables' largest column. */
    public static final int TWO_MB = 2 * 1024 * 1024;
    /** 20 MB. */
    public static final int TWENTY_MB = 20 * 1024 * 1024;
    /** 100 MB (decimal: within the default maxMessageLength of 100 MiB with the headers). */
    public static final int HUNDRED_MB = 100_000_000;

    private LargeMessages() {
    }

    /** The body of {@code length} bytes for {@code seed}. */
    public static byte[] body(int length, int seed) {
        byte[] body = new byte[length];
        for (int i = 0; i < length; i++) {
            body[i] = (byte) (i * 31 + (i >>> 13) + seed);
        }
        return body;
    }

    /** A bytes message carrying {@link #body(int, int)}, its length and seed as properties. */
    public static BytesMessage message(Session session, int length, int seed) throws JMSException {
        BytesMessage m = session.createBytesMessage();
        m.writeBytes(body(length, seed));
        m.setIntProperty("length", length);
        m.setIntProperty("seed", seed);
        return m;
    }

    /** Checks that {@code m} carries, byte for byte, the body its length and seed properties name; returns its seed. */
    public static int assertIntact(Message m) throws JMSException {
        BytesMessage bytes = assertInstanceOf(BytesMessage.class, m);
        int length = m.getIntProperty("length");
        int seed = m.getIntProperty("seed");
        assertEquals(length, bytes.getBodyLength(), "body length of the message with seed " + seed);
        byte[] received = new byte[length];
        assertEquals(length, bytes.readBytes(received));
        int first = Arrays.mismatch(received, body(length, seed));
        assertEquals(-1, first, () -> "the body of " + length + " bytes (seed " + seed + ") differs first at byte " + first);
        return seed;
    }
}
