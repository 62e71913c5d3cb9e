package org.wharfmq.jms.message;

import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import javax.jms.JMSException;
import javax.jms.MessageFormatException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The limits on deserialising an ObjectMessage body ({@link DeserializationLimit}): hostile bodies made only of
 * allowed classes fail at once with a MessageFormatException that names the limit and the setting, ordinary objects
 * pass, a raised limit lets a deeper object through, and any other failure of the read is a MessageFormatException
 * too.
 */
@Timeout(60)
class DeserializationLimitsTest {

    private static final DeserializationPolicy DEFAULTS = DeserializationPolicy.of(DeserializationPolicy.DEFAULT_ALLOW_LIST);

    private static byte[] serialize(Object o) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(o);
        }
        return bytes.toByteArray();
    }

    /** ArrayLists nested {@code depth} deep around a string. */
    static Serializable nestedLists(int depth) {
        Serializable value = "leaf";
        for (int i = 0; i < depth; i++) {
            value = new ArrayList<>(List.of(value));
        }
        return value;
    }

    /** A stream of {@code new long[1]} whose declared length says {@code declared}: 35 bytes, 8 of them elements. */
    private static byte[] forgedLongArray(int declared) throws IOException {
        byte[] bytes = serialize(new long[1]);
        assertEquals(35, bytes.length);
        ByteBuffer.wrap(bytes).putInt(bytes.length - 8 - 4, declared);
        return bytes;
    }

    private static MessageFormatException refused(DeserializationPolicy policy, byte[] body) {
        return assertThrows(MessageFormatException.class, () -> policy.deserialize(body));
    }

    private static void assertMentions(Exception e, String... parts) {
        for (String part : parts) {
            assertTrue(e.getMessage().contains(part), e.getMessage());
        }
    }

    @Test
    void aGraphDeeperThanTheLimitIsRefusedAtOnce() throws Exception {
        // the hash-collision bomb goes through a real server in ObjectMessageAllowListTest
        MessageFormatException e = refused(DEFAULTS, serialize(nestedLists(100)));
        assertMentions(e, "nested deeper than 20 levels", "deserializationMaxDepth", "wharf.jms.deserializationMaxDepth");
    }

    @Test
    void aFewBytesDeclaringAHugePrimitiveArrayAreRefusedBeforeTheArrayIsAllocated() throws Exception {
        // the report's 35 bytes declaring a long[2^28] (2 GiB), and one declaring 16 GiB, more than any test heap
        for (int declared : new int[]{1 << 28, Integer.MAX_VALUE - 8}) {
            MessageFormatException e = refused(DEFAULTS, forgedLongArray(declared));
            assertMentions(e, "long[" + declared + "]", "8 bytes of the body are left", "truncated or forged");
        }
        WharfObjectMessage message = new WharfObjectMessage(DEFAULTS);
        byte[] forged = forgedLongArray(1 << 28);
        message.readBody(Unpooled.wrappedBuffer(forged), forged.length);
        assertThrows(MessageFormatException.class, message::getObject, "getObject itself");
    }

    @Test
    void anArrayOfObjectsLongerThanTheLimitIsRefusedBeforeItIsAllocated() throws Exception {
        byte[] bytes = serialize(new Object[1]);
        ByteBuffer.wrap(bytes).putInt(bytes.length - 1 - 4, 1 << 28); // the length, before the one null element
        MessageFormatException e = refused(DEFAULTS, bytes);
        assertMentions(e, "268435456 elements, more than 1000000", "deserializationMaxArrayLength");

        ArrayList<Integer> list = new ArrayList<>();
        for (int i = 0; i < 2000; i++) {
            list.add(i);
        }
        DeserializationPolicy small = DEFAULTS.withLimit(DeserializationLimit.ARRAY_LENGTH, 1000);
        assertMentions(refused(small, serialize(list)), "2000 elements, more than 1000");
    }

    @Test
    void theReferenceAndByteLimitsHold() throws Exception {
        ArrayList<Long> longs = new ArrayList<>();
        for (long i = 0; i < 500; i++) {
            longs.add(i);
        }
        assertMentions(refused(DEFAULTS.withLimit(DeserializationLimit.REFERENCES, 100), serialize(longs)),
                "more than 100 objects", "deserializationMaxReferences");
        assertMentions(refused(DEFAULTS.withLimit(DeserializationLimit.BYTES, 1000), serialize(new byte[5000])),
                "longer than 1000 bytes", "deserializationMaxBytes");
    }

    @Test
    void ordinaryObjectsStillPassTheDefaults() throws Exception {
        HashMap<String, Object> map = new HashMap<>();
        for (int i = 0; i < 5000; i++) {
            map.put("key" + i, new ArrayList<>(List.of(i, "value " + i)));
        }
        assertEquals(map, DEFAULTS.deserialize(serialize(map)));
        byte[] fourMegabytes = new byte[4 << 20];
        fourMegabytes[fourMegabytes.length - 1] = 7;
        assertArrayEquals(fourMegabytes, (byte[]) DEFAULTS.deserialize(serialize(fourMegabytes)));
        Serializable nested = nestedLists(15);
        assertEquals(nested, DEFAULTS.deserialize(serialize(nested)));
    }

    @Test
    void aRaisedLimitLetsADeeperObjectThrough() throws Exception {
        byte[] body = serialize(nestedLists(30));
        assertMentions(refused(DEFAULTS, body), "nested deeper than 20 levels");
        assertEquals(nestedLists(30), DEFAULTS.withLimit(DeserializationLimit.DEPTH, 40).deserialize(body));

        String property = DeserializationLimit.DEPTH.systemProperty();
        System.setProperty(property, "40");
        try {
            assertEquals(40, DeserializationPolicy.fromSystemProperties().limit(DeserializationLimit.DEPTH));
            assertEquals(nestedLists(30), DeserializationPolicy.fromSystemProperties().deserialize(body));
            System.setProperty(property, "none");
            IllegalArgumentException bad = assertThrows(IllegalArgumentException.class, DeserializationPolicy::fromSystemProperties);
            assertMentions(bad, "wharf.jms.deserializationMaxDepth=none", ">= 1");
        } finally {
            System.clearProperty(property);
        }
    }

    /** An allowed class whose readObject fails in the ways application code can. */
    static final class Fails implements Serializable {
        private static final long serialVersionUID = 1L;
        private final String how;

        Fails(String how) {
            this.how = how;
        }

        private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
            in.defaultReadObject();
            if (how.equals("runtime")) {
                throw new IllegalArgumentException("bad state in the stream");
            }
            deeper(0);
        }

        /** Recursion without end, as a buggy readObject may do. */
        private static int deeper(int n) {
            return deeper(n + 1) + 1;
        }
    }

    @Test
    void everyOtherFailureOfTheReadIsAMessageFormatException() throws Exception {
        DeserializationPolicy allowing = DEFAULTS.withAllowList(Fails.class.getName());
        MessageFormatException runtime = refused(allowing, serialize(new Fails("runtime")));
        assertMentions(runtime, "bad state in the stream");
        assertEquals(IllegalArgumentException.class, runtime.getCause().getClass());
        MessageFormatException stack = refused(allowing, serialize(new Fails("stack")));
        assertMentions(stack, "too deeply for the thread's stack");
        assertEquals(StackOverflowError.class, stack.getCause().getClass());
        assertMentions(refused(DEFAULTS, new byte[]{1, 2, 3}), "Cannot deserialise the ObjectMessage body");
    }

    @Test
    void aClassOutsideTheAllowListIsAMessageFormatException() throws JMSException, IOException {
        MessageFormatException e = refused(DEFAULTS, serialize(new Fails("runtime")));
        assertMentions(e, Fails.class.getName(), "deserializationAllowList");
    }
}
