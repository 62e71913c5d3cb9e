package org.wharfmq.protocol;

import org.junit.jupiter.api.Test;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.message.MessageEncoding;
import org.wharfmq.protocol.message.MessageReader;
import org.wharfmq.protocol.message.MessageWriter;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.wharfmq.protocol.message.BodyType;
import org.wharfmq.protocol.message.WireDestination;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The temporary namespace both ends derive from a connection key, and the resent flag of a message. */
class TemporaryNamesTest {

    @Test
    void theNamespaceIsTheKeysHashAndOnlyItsNamesLieInIt() {
        byte[] key = new byte[TemporaryNames.KEY_BYTES];
        Arrays.fill(key, (byte) 7);
        String namespace = TemporaryNames.namespace(key);
        // SHA-256 of 32 bytes of 7, first 16 bytes in hex: the same on both ends, whoever computes it
        assertEquals("TMP.", namespace.substring(0, 4));
        assertEquals(4 + 2 * TemporaryNames.NAMESPACE_BYTES + 1, namespace.length());
        assertTrue(namespace.endsWith("."));
        assertEquals(namespace, TemporaryNames.namespace(key.clone()));
        key[0] = 8;
        assertNotEquals(namespace, TemporaryNames.namespace(key), "another key, another namespace");

        assertTrue(TemporaryNames.inNamespace(namespace + "1", namespace));
        assertFalse(TemporaryNames.inNamespace(namespace, namespace), "the namespace alone names nothing");
        assertFalse(TemporaryNames.inNamespace("TMP.other.1", namespace));
        assertThrows(IllegalArgumentException.class, () -> TemporaryNames.namespace(new byte[16]));
    }

    @Test
    void theKeyNeverShowsInTheFrame() {
        byte[] key = new byte[TemporaryNames.KEY_BYTES];
        Arrays.fill(key, (byte) 0x41);
        assertEquals("ClaimKey[3, 32 bytes]", new Frame.ClaimKey(3, key).toString());
    }

    @Test
    void aMessageMarkedResentSaysSoAndNothingElseChanges() {
        ByteBuf out = Unpooled.buffer();
        MessageWriter.writeHeaders(out, BodyType.TEXT, true, 4, 1, 0, 0, "ID:1", null, null, WireDestination.queue("Q"),
                null, null);
        MessageWriter.writeProperties(out, null);
        MessageWriter.writeNoBody(out);
        ByteBuf copy = out.copy();
        MessageWriter.markResent(out);
        int flags = out.getByte(MessageEncoding.FLAGS_OFFSET);
        assertTrue(MessageReader.resent(flags));
        assertTrue(MessageReader.persistent(flags), "the other flags are kept");
        assertFalse(MessageReader.resent(copy.getByte(MessageEncoding.FLAGS_OFFSET)));
        out.setByte(MessageEncoding.FLAGS_OFFSET, copy.getByte(MessageEncoding.FLAGS_OFFSET));
        assertEquals(copy, out, "only the flag differs");
    }
}
