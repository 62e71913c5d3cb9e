package org.wharfmq.protocol.message;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.wharfmq.protocol.frame.MalformedFrameException;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The writer and every reader agree, for random messages: what the writer writes, the server's header read
 * ({@link MessageHeaders}, with the property check {@link PropertySection#skip}) and the whole decoding
 * ({@link WireMessage#decode}) read back as written; and for random damage to those bytes, the header read accepts
 * exactly what the decoding can decode, so the server never stores a message a receiver cannot read, nor refuses
 * one it could.
 */
class WriterReaderDriftTest {
    private static final int MESSAGES = 2_000;
    private static final int DAMAGED = 30_000;

    @Test
    void whatTheWriterWritesEveryReaderReadsAsWritten() {
        Random random = new Random(20);
        for (int i = 0; i < MESSAGES; i++) {
            WireMessage m = randomMessage(random);
            ByteBuf bytes = Unpooled.buffer();
            m.encode(bytes);
            String where = "message " + i + ": " + ByteBufUtil.hexDump(bytes);

            MessageHeaders h = MessageHeaders.read(bytes);
            assertEquals(m.bodyType, h.bodyType(), where);
            assertEquals(m.persistent, h.persistent(), where);
            assertEquals(m.priority, h.priority(), where);
            assertEquals(m.timestamp, h.timestamp(), where);
            assertEquals(m.expiration, h.expiration(), where);
            assertEquals(m.deliveryTime, h.deliveryTime(), where);
            assertEquals(m.messageId, h.messageId(), where);
            assertEquals(m.correlationIdBytes != null ? CorrelationIds.ofBytes(m.correlationIdBytes) : m.correlationId,
                    h.correlationId(), where);
            assertEquals(m.destination, h.destination(), where);
            assertEquals(m.type, h.type(), where);
            assertEquals(m.body == null ? -1 : m.body.length, h.bodyLength(), where);
            assertEquals(m.properties, h.readProperties(bytes), where);
            assertEquals(!m.properties.isEmpty(), h.hasProperties(bytes), where);

            int section = h.propertiesOffset();
            int bodyLengthAt = bytes.writerIndex() - 4 - (m.body == null ? 0 : m.body.length);
            assertEquals(bodyLengthAt, PropertySection.skip(bytes, section, 0, bytes.writerIndex()), where);

            WireMessage d = WireMessage.decode(bytes.duplicate());
            assertEquals(m.bodyType, d.bodyType, where);
            assertEquals(m.persistent, d.persistent, where);
            assertEquals(m.priority, d.priority, where);
            assertEquals(m.timestamp, d.timestamp, where);
            assertEquals(m.expiration, d.expiration, where);
            assertEquals(m.deliveryTime, d.deliveryTime, where);
            assertEquals(m.messageId, d.messageId, where);
            assertEquals(m.correlationIdBytes == null ? m.correlationId : null, d.correlationId, where);
            assertArrayEquals(m.correlationIdBytes, d.correlationIdBytes, where);
            assertEquals(m.destination, d.destination, where);
            assertEquals(m.replyTo, d.replyTo, where);
            assertEquals(m.type, d.type, where);
            assertEquals(m.properties, d.properties, where);
            assertArrayEquals(m.body, d.body, where);
        }
    }

    @Test
    void theHeaderReadAcceptsExactlyWhatTheDecodingDecodes() {
        Random random = new Random(2020);
        for (int i = 0; i < DAMAGED; i++) {
            ByteBuf bytes = Unpooled.buffer();
            randomMessage(random).encode(bytes);
            damage(bytes, random);
            String checked = outcome(() -> MessageHeaders.read(bytes));
            String decoded = outcome(() -> WireMessage.decode(bytes.duplicate()));
            if (!checked.equals(decoded)) {
                fail("the header read " + checked + " but the decoding " + decoded + ": " + ByteBufUtil.hexDump(bytes));
            }
        }
    }

    /** "accepted", or the refusal's words; anything but a MalformedFrameException fails the test. */
    private static String outcome(Runnable read) {
        try {
            read.run();
            return "accepted";
        } catch (MalformedFrameException e) {
            return "refused (" + e.getMessage() + ")";
        }
    }

    /** One to three bytes changed, a little or at random, or the message cut short or made longer. */
    private static void damage(ByteBuf bytes, Random random) {
        switch (random.nextInt(6)) {
            case 0 -> bytes.writerIndex(random.nextInt(bytes.writerIndex()));
            case 1 -> bytes.writeZero(1 + random.nextInt(3));
            default -> {
                for (int changes = 1 + random.nextInt(3); changes > 0; changes--) {
                    int at = random.nextInt(bytes.writerIndex());
                    int changed = random.nextBoolean() ? random.nextInt(256) : bytes.getByte(at) + random.nextInt(5) - 2;
                    bytes.setByte(at, changed);
                }
            }
        }
    }

    private static WireMessage randomMessage(Random random) {
        WireMessage m = new WireMessage();
        m.bodyType = BodyType.values()[random.nextInt(BodyType.values().length)];
        m.persistent = random.nextBoolean();
        m.priority = random.nextInt(10);
        m.timestamp = random.nextBoolean() ? 0 : random.nextLong();
        m.expiration = random.nextBoolean() ? 0 : random.nextLong();
        m.deliveryTime = random.nextBoolean() ? 0 : random.nextLong();
        m.messageId = maybe(random, "ID:drift:" + random.nextInt(1000));
        if (random.nextInt(4) == 0) {
            m.correlationIdBytes = bytes(random, random.nextInt(6));
        } else {
            m.correlationId = maybe(random, text(random));
        }
        m.destination = random.nextInt(8) == 0 ? null : destination(random);
        m.replyTo = random.nextBoolean() ? null : destination(random);
        m.type = maybe(random, text(random));
        m.properties = properties(random);
        m.body = random.nextInt(4) == 0 ? null : bytes(random, random.nextInt(12));
        return m;
    }

    private static Map<String, Object> properties(Random random) {
        Map<String, Object> p = new LinkedHashMap<>();
        for (int i = random.nextInt(5); i > 0; i--) {
            String name = "p" + p.size() + text(random);
            p.put(name, switch (random.nextInt(9)) {
                case 0 -> random.nextBoolean();
                case 1 -> (byte) random.nextInt();
                case 2 -> (short) random.nextInt();
                case 3 -> random.nextInt();
                case 4 -> random.nextLong();
                case 5 -> random.nextFloat();
                case 6 -> random.nextDouble();
                case 7 -> text(random);
                default -> null; // a String property without a value
            });
        }
        return p;
    }

    private static WireDestination destination(Random random) {
        WireDestination.Kind[] kinds = WireDestination.Kind.values();
        return new WireDestination(kinds[random.nextInt(kinds.length)], "d/" + text(random));
    }

    /** Up to four characters, some of them two or three bytes in UTF-8. */
    private static String text(Random random) {
        String alphabet = "ab/\u00e9\u20ac";
        StringBuilder s = new StringBuilder();
        for (int i = random.nextInt(5); i > 0; i--) {
            s.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return s.toString();
    }

    private static String maybe(Random random, String value) {
        return random.nextBoolean() ? null : value;
    }

    private static byte[] bytes(Random random, int length) {
        byte[] b = new byte[length];
        random.nextBytes(b);
        return b;
    }
}
