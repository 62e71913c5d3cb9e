package org.wharfmq.protocol.message;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * A message wrapped for a transmission queue: the header as properties, the reply-to qualified, the body copied into
 * one buffer with them when short, a slice of the original otherwise.
 */
class TransmissionHeaderTest {

    private static final UnpooledByteBufAllocator ALLOC = new UnpooledByteBufAllocator(false);
    /** The copy limit of {@link TransmissionHeader.Addressed#wrap} that copies the bodies of these tests' messages. */
    private static final int COPIED = 8 * 1024;

    @Test
    void theHeaderIsPropertiesTheReplyToNamesItsQueueManagerAndABodyPastTheCopyLimitIsTheOriginalsBytes() {
        ByteBuf message = ALLOC.heapBuffer();
        WireMessage original = request(message);

        ByteBuf wrapped = TransmissionHeader.address(message, "QM2", "ORDERS", "QM1").wrap(ALLOC, 0);
        assertWrapped(original, wrapped);
        assertSame(message, ((CompositeByteBuf) wrapped).component(1).unwrap(), "the body is a slice, not a copy");

        wrapped.release();
        assertEquals(1, message.refCnt(), "the caller's reference is its own");
        message.release();
        assertFalse(message.refCnt() > 0);
    }

    @Test
    void aBodyUpToTheCopyLimitIsCopiedIntoTheOneBufferOfTheHeader() {
        ByteBuf message = ALLOC.heapBuffer();
        WireMessage original = request(message);

        ByteBuf wrapped = TransmissionHeader.address(message, "QM2", "ORDERS", "QM1").wrap(ALLOC, COPIED);
        assertFalse(wrapped instanceof CompositeByteBuf, "one buffer, header and body");
        assertEquals(1, message.refCnt(), "the wrapped message holds no reference to the original");
        assertWrapped(original, wrapped);
        MessageHeaders read = MessageHeaders.read(wrapped);
        MessageHeaders known = TransmissionHeader.address(message, "QM2", "ORDERS", "QM1")
                .headers(MessageHeaders.read(message));
        assertEquals(read.propertiesOffset(), known.propertiesOffset());
        assertEquals(read.bodyLength(), known.bodyLength());

        wrapped.release();
        message.release();
    }

    /** A request for ORDERS.REMOTE with a reply-to temporary queue, a property and a body, encoded into {@code out}. */
    private static WireMessage request(ByteBuf out) {
        WireMessage original = new WireMessage();
        original.bodyType = BodyType.TEXT;
        original.messageId = "ID:1";
        original.correlationIdBytes = new byte[] {1, 2};
        original.destination = WireDestination.queue("ORDERS.REMOTE");
        original.replyTo = new WireDestination(WireDestination.Kind.TEMPORARY_QUEUE, "TMP.a.1");
        original.properties.put("region", "EU");
        original.body = "order 1".getBytes(StandardCharsets.UTF_8);
        original.encode(out);
        return original;
    }

    /** {@code wrapped} is {@code original} for ORDERS on QM2 from QM1, with its transmission header. */
    private static void assertWrapped(WireMessage original, ByteBuf wrapped) {
        WireMessage decoded = WireMessage.decode(wrapped.duplicate());
        assertEquals("QM2", decoded.properties.get(TransmissionHeader.QUEUE_MANAGER));
        assertEquals("ORDERS", decoded.properties.get(TransmissionHeader.QUEUE));
        assertEquals("QM1", decoded.properties.get(TransmissionHeader.SOURCE_QUEUE_MANAGER));
        assertEquals("QM1", decoded.properties.get(TransmissionHeader.REPLY_TO_QUEUE_MANAGER));
        assertEquals("EU", decoded.properties.get("region"));
        assertEquals(new WireDestination(WireDestination.Kind.TEMPORARY_QUEUE, "QM1/TMP.a.1"), decoded.replyTo);
        assertEquals(WireDestination.queue("ORDERS"), decoded.destination, "the queue it is put on there");
        assertEquals(BodyType.TEXT, decoded.bodyType);
        assertEquals("ID:1", decoded.messageId);
        assertArrayEquals(new byte[] {1, 2}, decoded.correlationIdBytes);
        assertArrayEquals(original.body, decoded.body);
    }

    @Test
    void aReplyToThatNamesAQueueManagerKeepsIt() {
        WireMessage original = new WireMessage();
        original.destination = WireDestination.queue("QM3/ORDERS");
        original.replyTo = WireDestination.queue("QM7/REPLIES");
        ByteBuf message = ALLOC.heapBuffer();
        original.encode(message);
        ByteBuf wrapped = TransmissionHeader.address(message, "QM3", "ORDERS", "QM1").wrap(ALLOC, COPIED);
        WireMessage decoded = WireMessage.decode(wrapped.duplicate());
        assertEquals(WireDestination.queue("QM7/REPLIES"), decoded.replyTo);
        assertEquals("QM7", decoded.properties.get(TransmissionHeader.REPLY_TO_QUEUE_MANAGER));
        wrapped.release();
        message.release();
    }

    @Test
    void aMessageWrappedAgainOnItsWayToAThirdQueueManagerCarriesOneHeaderTheNewOne() {
        WireMessage original = new WireMessage();
        original.persistent = false;
        original.priority = 7;
        original.expiration = 1234;
        original.correlationId = "C1";
        original.type = "order";
        original.destination = WireDestination.queue("QM3/ORDERS");
        original.properties.put("first", 1);
        original.properties.put(TransmissionHeader.QUEUE_MANAGER, "QM2");
        original.properties.put("middle", true);
        original.properties.put(TransmissionHeader.QUEUE, "QM3/ORDERS");
        original.properties.put(TransmissionHeader.SOURCE_QUEUE_MANAGER, "QM1");
        original.properties.put(TransmissionHeader.REPLY_TO_QUEUE_MANAGER, "QM1");
        original.properties.put("last", "x");
        original.body = new byte[] {9, 8, 7};
        ByteBuf message = ALLOC.heapBuffer();
        original.encode(message);

        ByteBuf wrapped = TransmissionHeader.address(message, "QM3", "TMP.a.1", "QM2").wrap(ALLOC, COPIED);
        MessageHeaders read = MessageHeaders.read(wrapped); // the layout holds
        MessageHeaders known = TransmissionHeader.address(message, "QM3", "TMP.a.1", "QM2")
                .headers(MessageHeaders.read(message));
        assertEquals(read.propertiesOffset(), known.propertiesOffset());
        assertEquals(read.destination(), known.destination());
        assertEquals(read.bodyLength(), known.bodyLength());
        assertEquals(read.correlationId(), known.correlationId());
        assertEquals(read.priority(), known.priority());
        assertEquals(read.persistent(), known.persistent());
        WireMessage decoded = WireMessage.decode(wrapped.duplicate());
        assertEquals(List.of("first", "middle", "last", TransmissionHeader.QUEUE_MANAGER,
                TransmissionHeader.QUEUE, TransmissionHeader.SOURCE_QUEUE_MANAGER), List.copyOf(
                decoded.properties.keySet()), "the old header's properties dropped, the others kept in order");
        assertEquals(1, decoded.properties.get("first"));
        assertEquals(true, decoded.properties.get("middle"));
        assertEquals("x", decoded.properties.get("last"));
        assertEquals("QM3", decoded.properties.get(TransmissionHeader.QUEUE_MANAGER));
        assertEquals("TMP.a.1", decoded.properties.get(TransmissionHeader.QUEUE));
        assertEquals("QM2", decoded.properties.get(TransmissionHeader.SOURCE_QUEUE_MANAGER));
        assertEquals(new WireDestination(WireDestination.Kind.TEMPORARY_QUEUE, "TMP.a.1"), decoded.destination);
        assertEquals(null, decoded.replyTo);
        assertFalse(decoded.persistent);
        assertEquals(7, decoded.priority);
        assertEquals(1234, decoded.expiration);
        assertEquals("C1", decoded.correlationId);
        assertEquals("order", decoded.type);
        assertArrayEquals(original.body, decoded.body);
        wrapped.release();
        message.release();
    }

    /**
     * What a sender channel writes into its frame run for a message it takes as it is put: the head
     * ({@link TransmissionHeader.Addressed#writeHead}) then the body as it is, the very bytes of the wrapped message,
     * of the length measured before anything is written; for each shape of header the wrap writes.
     */
    @Test
    void theHeadThenTheBodyAreTheWrappedMessagesBytesOfTheLengthMeasured() {
        WireMessage plain = new WireMessage();
        plain.destination = WireDestination.queue("ORDERS.REMOTE");
        plain.body = new byte[] {1, 2, 3};
        WireMessage rewrapped = new WireMessage(); // on its way to a third queue manager, its old header replaced
        rewrapped.destination = WireDestination.queue("QM3/ORDERS");
        rewrapped.replyTo = WireDestination.queue("QM7/REPLIES");
        rewrapped.properties.put(TransmissionHeader.QUEUE_MANAGER, "QM2");
        rewrapped.properties.put("kept", 5L);
        rewrapped.properties.put(TransmissionHeader.QUEUE, "QM3/ORDERS");
        rewrapped.body = new byte[3000];
        WireMessage unicode = new WireMessage(); // names of more UTF-8 bytes than characters
        unicode.destination = WireDestination.queue("Bestellungen");
        unicode.replyTo = WireDestination.queue("Antwort.\u00e4");
        unicode.properties.put("r\u00e9gion", "\u00e9t\u00e9");
        List<WireMessage> messages = List.of(plain, rewrapped, unicode);
        List<String[]> addresses = List.of(new String[] {"QM2", "ORDERS", "QM1"},
                new String[] {"QM3", "ORDERS", "QM2"}, new String[] {"QM\u00c9", "B\u00e4stellungen", "Q\u00fc1"});
        for (int i = 0; i < messages.size(); i++) {
            ByteBuf message = ALLOC.heapBuffer();
            messages.get(i).encode(message);
            String[] to = addresses.get(i);
            TransmissionHeader.Addressed addressed = TransmissionHeader.address(message, to[0], to[1], to[2]);
            ByteBuf wrapped = addressed.wrap(ALLOC, COPIED);
            ByteBuf written = ALLOC.heapBuffer();
            addressed.writeHead(written);
            assertEquals(addressed.headLength(), written.readableBytes(), "message " + i + ": the head measured");
            written.writeBytes(message, addressed.bodyIndex(), addressed.bodyLength());
            assertEquals(addressed.length(), written.readableBytes(), "message " + i + ": the length measured");
            assertArrayEquals(ByteBufUtil.getBytes(wrapped), ByteBufUtil.getBytes(written), "message " + i);
            MessageHeaders read = MessageHeaders.read(written);
            MessageHeaders known = addressed.headers(MessageHeaders.read(message));
            assertEquals(read.propertiesOffset(), known.propertiesOffset(), "message " + i);
            assertEquals(read.destination(), known.destination(), "message " + i);
            assertEquals(1, message.refCnt(), "message " + i + ": no reference taken");
            wrapped.release();
            written.release();
            message.release();
        }
    }

    /**
     * One route ({@link TransmissionHeader#route}) serves message after message of every shape: each reads as the
     * message for the route's queue on its queue manager, its reply-to qualified, its own fields and properties kept,
     * and the route's prepared bytes are not changed by any of them.
     */
    @Test
    void oneRouteAddressesMessageAfterMessageOfEveryShape() {
        TransmissionHeader.Route route = TransmissionHeader.route("QM\u00c9", "ORDERS", "Q\u00fc1");
        WireMessage noReplyTo = new WireMessage();
        noReplyTo.destination = WireDestination.queue("ORDERS.REMOTE");
        noReplyTo.body = new byte[] {1};
        WireMessage qualified = new WireMessage();
        qualified.destination = WireDestination.queue("ORDERS.REMOTE");
        qualified.replyTo = WireDestination.queue("QM7/REPLIES");
        qualified.properties.put(TransmissionHeader.QUEUE, "OLD");
        qualified.properties.put("kept", 5L);
        qualified.body = new byte[100];
        WireMessage plain = new WireMessage();
        plain.destination = WireDestination.queue("ORDERS.REMOTE");
        plain.replyTo = new WireDestination(WireDestination.Kind.TEMPORARY_QUEUE, "TMP.a.1");
        plain.correlationId = "C1";
        plain.body = new byte[] {2};
        for (int round = 0; round < 2; round++) {
            for (WireMessage original : List.of(noReplyTo, qualified, plain)) {
                ByteBuf message = ALLOC.heapBuffer();
                original.encode(message);
                TransmissionHeader.Addressed addressed = TransmissionHeader.address(message, route);
                ByteBuf written = ALLOC.heapBuffer();
                addressed.writeHead(written);
                written.writeBytes(message, addressed.bodyIndex(), addressed.bodyLength());
                assertEquals(addressed.length(), written.readableBytes());
                WireMessage decoded = WireMessage.decode(written.duplicate());
                assertEquals(WireDestination.queue("ORDERS"), decoded.destination);
                assertEquals("QM\u00c9", decoded.properties.get(TransmissionHeader.QUEUE_MANAGER));
                assertEquals("ORDERS", decoded.properties.get(TransmissionHeader.QUEUE));
                assertEquals("Q\u00fc1", decoded.properties.get(TransmissionHeader.SOURCE_QUEUE_MANAGER));
                if (original.replyTo == null) {
                    assertEquals(null, decoded.replyTo);
                    assertFalse(decoded.properties.containsKey(TransmissionHeader.REPLY_TO_QUEUE_MANAGER));
                } else if (original.replyTo.name().startsWith("QM7/")) {
                    assertEquals(original.replyTo, decoded.replyTo);
                    assertEquals("QM7", decoded.properties.get(TransmissionHeader.REPLY_TO_QUEUE_MANAGER));
                    assertEquals(5L, decoded.properties.get("kept"));
                } else {
                    assertEquals(new WireDestination(original.replyTo.kind(), "Q\u00fc1/" + original.replyTo.name()),
                            decoded.replyTo);
                    assertEquals("Q\u00fc1", decoded.properties.get(TransmissionHeader.REPLY_TO_QUEUE_MANAGER));
                }
                assertEquals(original.correlationId, decoded.correlationId);
                assertArrayEquals(original.body, decoded.body);
                written.release();
                message.release();
            }
        }
    }
}
