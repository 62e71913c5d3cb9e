package org.wharfmq.protocol.frame;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.TooLongFrameException;
import org.junit.jupiter.api.Test;
import org.wharfmq.protocol.ProtocolVersion;
import org.wharfmq.protocol.message.WireDestination;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** Every frame survives encode → decode, and broken input is reported, not misread. */
class FrameCodecTest {

    private static final WireXid XID = new WireXid(0x1234, "global-1".getBytes(StandardCharsets.UTF_8), new byte[]{1, 2});

    private static Frame roundTrip(Frame frame) {
        EmbeddedChannel out = new EmbeddedChannel(FrameEncoder.INSTANCE);
        assertTrue(out.writeOutbound(frame));
        EmbeddedChannel in = new EmbeddedChannel(new FrameDecoder(1 << 20));
        ByteBuf chunk;
        while ((chunk = out.readOutbound()) != null) {
            in.writeInbound(chunk);
        }
        Frame decoded = in.readInbound();
        assertNotNull(decoded, "no frame decoded for " + frame);
        assertNull(in.readInbound(), "extra frame decoded");
        return decoded;
    }

    @Test
    void controlFramesRoundTrip() {
        List<Frame> frames = List.of(
                new Frame.Hello(ProtocolVersion.CURRENT, "client-1", 5000),
                new Frame.AuthMechanisms(List.of("SCRAM-SHA-256", "ANONYMOUS")),
                new Frame.Auth("SCRAM-SHA-256", "n,,n=alice,r=abc".getBytes(StandardCharsets.UTF_8)),
                new Frame.Auth("ANONYMOUS", new byte[0]),
                new Frame.AuthChallenge("r=abcdef,s=c2FsdA==,i=4096".getBytes(StandardCharsets.UTF_8)),
                new Frame.AuthResponse("c=biws,r=abcdef,p=AAAA".getBytes(StandardCharsets.UTF_8)),
                new Frame.HelloOk(ProtocolVersion.CURRENT, "WHARF", "0.1.0", 10000, 100 << 20, "alice", "v=AAAA".getBytes(StandardCharsets.UTF_8)),
                Frame.Ping.INSTANCE,
                new Frame.Ok(42),
                new Frame.Error(7, ErrorCode.QUEUE_FULL, "Queue 'A' is full", 3, 9),
                new Frame.Close(8),
                new Frame.SetClientId(5, "orders-app"),
                new Frame.ClaimKey(0, new byte[32]),
                new Frame.Unsubscribe(6, "prices"),
                new Frame.CreateConsumer(4, 2, 12, WireDestination.topic("prices/fx/#"), null, 100,
                        Frame.CONSUMER_DURABLE | Frame.CONSUMER_SHARED, "fx"),
                new Frame.CreateSession(1, 2, true, 0),
                new Frame.CloseSession(1, 2),
                new Frame.CreateProducer(3, 2, 5, WireDestination.queue("REQUEST")),
                new Frame.CreateProducer(3, 2, 6, null),
                new Frame.CloseProducer(3, 2, 5),
                new Frame.CreateConsumer(4, 2, 11, WireDestination.queue("REPLY"), "JMSCorrelationID = 'ID:x:1'", 1000,
                        Frame.CONSUMER_NO_LOCAL, null),
                new Frame.CloseConsumer(0, 2, 11, 12345678901L),
                new Frame.Credit(11, 500),
                new Frame.Credit(11, 500, 12_345_678_901L),
                new Frame.CreateConsumer(0, 2, 13, WireDestination.queue("LARGE"), null, 1000, 0, null, 8 << 20),
                new Frame.Hello(ProtocolVersion.OLDEST, "version-2-client", 5000),
                new Frame.Pull(11, 77),
                new Frame.PullDone(11, 77),
                new Frame.ProducerCredit(3, 131_072),
                new Frame.ConsumerFailed(12, ErrorCode.UNKNOWN_DESTINATION, "Queue 'Q' does not exist."),
                new Frame.Ack(0, 2, List.of(new Frame.Consumed(11, 5))),
                new Frame.Commit(9, 2, List.of(new Frame.Consumed(11, 5), new Frame.Consumed(12, 6))),
                new Frame.Rollback(10, 2, List.of()),
                new Frame.CreateTemporary(12, new WireDestination(WireDestination.Kind.TEMPORARY_QUEUE, "TMP.abc.1")),
                new Frame.DeleteTemporary(13, new WireDestination(WireDestination.Kind.TEMPORARY_TOPIC, "TMP.abc.2")),
                new Frame.Reject(11, 6, "map entry count 99 does not fit a body of 4 bytes"),
                new Frame.XaStart(14, 2, XID, Frame.XA_JOIN, 60),
                new Frame.XaEnd(15, 2, XID, Frame.XA_SUSPEND, List.of(new Frame.Consumed(11, 7))),
                new Frame.XaPrepare(16, XID),
                new Frame.XaCommit(17, XID, true),
                new Frame.XaRollback(18, XID),
                new Frame.XaRecover(19),
                new Frame.XaResult(19, Frame.XA_OK, List.of(XID, new WireXid(-7, new byte[64], new byte[0]))),
                new Frame.XaResult(16, Frame.XA_RDONLY, List.of()),
                new Frame.ChannelOpen(20, "TO.QM2", "QM1", true, Frame.ChannelOpen.NO_RESET),
                new Frame.ChannelOpen(20, "TO.QM2", "QM1", false, Frame.ChannelOpen.NO_RESET),
                new Frame.ChannelOpen(21, "TO.QM2", "QM1", true, 0),
                new Frame.ChannelOpen(22, "TO.QM2", "QM1", false, 1_000_000_000_000L),
                new Frame.ChannelStatus(20, 1_234_567_890_123L, 42, true),
                new Frame.ChannelStatus(20, 1_234_567_890_123L, 42, false),
                new Frame.ChannelEndBatch(21, 50, 1),
                new Frame.ChannelFastConfirm(23),
                new Frame.Hello(ProtocolVersion.CURRENT, "wharf admin", 5000, Frame.Hello.STATUS_SESSION),
                new Frame.HelloOk(ProtocolVersion.CURRENT, "WHARF", "0.1.0", 10000, 100 << 20, "ops", new byte[0],
                        Frame.HelloOk.STATUS_SESSION),
                new Frame.StatusRequest(23, "display-server"),
                new Frame.StatusReply(23, "{\"command\":\"display-server\",\"ok\":true,\"result\":{}}"));
        for (Frame f : frames) {
            assertEquals(f, roundTrip(f));
        }
    }

    /** A version 1 client's HELLO (user and password after the name) decodes, for the server to refuse by version. */
    @Test
    void aVersionOneHelloDecodesAsAHelloOfVersionOne() {
        ByteBuf payload = Unpooled.buffer();
        payload.writeInt(ProtocolVersion.MAGIC).writeShort(1);
        WireStrings.write(payload, "old-client");
        WireStrings.write(payload, "alice");
        WireStrings.write(payload, "secret");
        payload.writeInt(5000);
        ByteBuf frame = Unpooled.buffer();
        frame.writeInt(1 + payload.readableBytes()).writeByte(FrameType.HELLO.code()).writeBytes(payload);
        EmbeddedChannel in = new EmbeddedChannel(new FrameDecoder(1 << 20));
        in.writeInbound(frame);
        Frame.Hello hello = in.readInbound();
        assertEquals(1, hello.version());
        assertEquals("old-client", hello.clientName());
    }

    @Test
    void authFramesHideTheirDataWhenPrinted() {
        assertFalse(new Frame.Auth("PLAIN", "\0alice\0secret".getBytes(StandardCharsets.UTF_8)).toString().contains("secret"));
    }

    @Test
    void sendDeliverAndChannelMessageCarryTheMessageBytesUnchanged() {
        byte[] message = "any bytes at all \u0000\u00ff".getBytes(StandardCharsets.ISO_8859_1);
        Frame.Send send = (Frame.Send) roundTrip(new Frame.Send(5, 2, 3, Unpooled.wrappedBuffer(message)));
        assertEquals(5, send.requestId());
        assertEquals(2, send.sessionId());
        assertEquals(3, send.producerId());
        assertArrayEquals(message, bytes(send.message()));
        send.message().release();

        Frame.Deliver deliver = (Frame.Deliver) roundTrip(new Frame.Deliver(11, 99L, 2, Unpooled.wrappedBuffer(message)));
        assertEquals(11, deliver.consumerId());
        assertEquals(99L, deliver.deliveryId());
        assertEquals(2, deliver.deliveryCount());
        assertArrayEquals(message, bytes(deliver.message()));
        deliver.message().release();

        Frame.ChannelMessage carried = (Frame.ChannelMessage) roundTrip(
                new Frame.ChannelMessage(Unpooled.wrappedBuffer(message)));
        assertArrayEquals(message, bytes(carried.message()));
        carried.message().release();

        Frame.ChannelFastMessage fast = (Frame.ChannelFastMessage) roundTrip(
                new Frame.ChannelFastMessage(Unpooled.wrappedBuffer(message)));
        assertArrayEquals(message, bytes(fast.message()));
        fast.message().release();
    }

    @Test
    void encoderDoesNotCopyTheMessageBuffer() {
        ByteBuf message = Unpooled.directBuffer(16).writeLong(1).writeLong(2);
        EmbeddedChannel out = new EmbeddedChannel(FrameEncoder.INSTANCE);
        out.writeOutbound(new Frame.Deliver(1, 1, 1, message));
        ByteBuf header = out.readOutbound();
        ByteBuf body = out.readOutbound();
        assertSame(message, body, "the message buffer itself must go to the channel");
        assertEquals(4 + 1 + 16 + 16, header.readableBytes() + body.readableBytes());
        assertEquals(1 + 16 + 16, header.getInt(0), "length counts type byte, header fields and message");
        header.release();
        body.release();
    }

    @Test
    void framesSplitAcrossReadsAreReassembled() {
        EmbeddedChannel out = new EmbeddedChannel(FrameEncoder.INSTANCE);
        out.writeOutbound(new Frame.Commit(9, 2, List.of(new Frame.Consumed(1, 2))));
        ByteBuf encoded = out.readOutbound();
        EmbeddedChannel in = new EmbeddedChannel(new FrameDecoder(1024));
        while (encoded.isReadable()) {
            in.writeInbound(encoded.readRetainedSlice(1));
        }
        encoded.release();
        assertEquals(new Frame.Commit(9, 2, List.of(new Frame.Consumed(1, 2))), in.readInbound());
    }

    @Test
    void temporaryFramesMustNameATemporaryDestination() {
        EmbeddedChannel out = new EmbeddedChannel(FrameEncoder.INSTANCE);
        out.writeOutbound(new Frame.CreateTemporary(1, WireDestination.queue("NOT.TEMPORARY")));
        EmbeddedChannel in = new EmbeddedChannel(new FrameDecoder(1024));
        DecoderException e = assertThrows(DecoderException.class, () -> {
            ByteBuf c;
            while ((c = out.readOutbound()) != null) {
                in.writeInbound(c);
            }
        });
        assertInstanceOf(MalformedFrameException.class, e.getCause());
        assertTrue(e.getCause().getMessage().contains("temporary"), e.getCause().getMessage());
    }

    /** XA allows at most 64 bytes of gtrid and of bqual, and a gtrid of at least one: more is a broken frame. */
    @Test
    void anXidPastXasLimitsIsMalformed() {
        ByteBuf frame = Unpooled.buffer();
        frame.writeByte(FrameType.XA_PREPARE.code()).writeInt(1).writeInt(0);
        WireBytes.write(frame, new byte[65]);
        WireBytes.write(frame, new byte[0]);
        MalformedFrameException e = assertThrows(MalformedFrameException.class, () -> FrameDecoder.decodeFrame(frame));
        assertTrue(e.getMessage().contains("1 to 64 bytes, not 65"), e.getMessage());
        assertThrows(MalformedFrameException.class, () -> new WireXid(0, new byte[0], new byte[0]));
        assertThrows(MalformedFrameException.class, () -> new WireXid(0, new byte[1], new byte[65]));
    }

    /**
     * A HELLO and a HELLO_OK without flags are byte for byte what clients and servers that know no flags write and
     * read (the flags are a trailing int written only when not 0); a HELLO with a bit no flag defines is malformed.
     */
    @Test
    void helloFlagsTrailOnlyWhenSetSoFramesWithoutThemAreUnchanged() {
        ByteBuf old = Unpooled.buffer();
        old.writeInt(ProtocolVersion.MAGIC).writeShort(ProtocolVersion.CURRENT);
        WireStrings.write(old, "app");
        old.writeInt(5000);
        assertArrayEquals(bytes(old), payload(new Frame.Hello(ProtocolVersion.CURRENT, "app", 5000)));
        Frame.Hello decoded = (Frame.Hello) roundTrip(new Frame.Hello(ProtocolVersion.CURRENT, "app", 5000));
        assertFalse(decoded.wantsStatusSession());
        byte[] flagged = payload(new Frame.Hello(ProtocolVersion.CURRENT, "app", 5000, Frame.Hello.STATUS_SESSION));
        assertEquals(old.readableBytes() + 4, flagged.length);
        assertTrue(((Frame.Hello) roundTrip(new Frame.Hello(ProtocolVersion.CURRENT, "app", 5000,
                Frame.Hello.STATUS_SESSION))).wantsStatusSession());

        Frame.HelloOk plain = new Frame.HelloOk(ProtocolVersion.CURRENT, "QM", "1", 0, 1024, "u", new byte[]{1});
        ByteBuf oldOk = Unpooled.buffer();
        oldOk.writeShort(ProtocolVersion.CURRENT);
        WireStrings.write(oldOk, "QM");
        WireStrings.write(oldOk, "1");
        oldOk.writeInt(0).writeInt(1024);
        WireStrings.write(oldOk, "u");
        WireBytes.write(oldOk, new byte[]{1});
        assertArrayEquals(bytes(oldOk), payload(plain));
        assertFalse(((Frame.HelloOk) roundTrip(plain)).statusSession());

        ByteBuf unknown = Unpooled.buffer();
        unknown.writeBytes(old.duplicate()).writeInt(2);
        ByteBuf frame = Unpooled.buffer().writeInt(1 + unknown.readableBytes()).writeByte(FrameType.HELLO.code())
                .writeBytes(unknown);
        DecoderException e = assertThrows(DecoderException.class,
                () -> new EmbeddedChannel(new FrameDecoder(1024)).writeInbound(frame));
        assertTrue(e.getCause().getMessage().contains("HELLO flags 0x2"), e.getCause().getMessage());
    }

    /**
     * HELLO_OK's maxConsumerWindowBytes (protocol version 3) trails the flags, written (with the flags, 0 or not) only
     * when not 0, so a HELLO_OK without it writes what version 2 wrote; a negative one is malformed.
     */
    @Test
    void helloOkMaxConsumerWindowBytesTrailsOnlyWhenNotZero() {
        Frame.HelloOk plain = new Frame.HelloOk(ProtocolVersion.OLDEST, "QM", "1", 0, 1024, "u", new byte[]{1});
        Frame.HelloOk none = new Frame.HelloOk(ProtocolVersion.OLDEST, "QM", "1", 0, 1024, "u", new byte[]{1}, 0, 0);
        assertArrayEquals(payload(plain), payload(none));
        Frame.HelloOk capped = new Frame.HelloOk(ProtocolVersion.CURRENT, "QM", "1", 0, 1024, "u", new byte[]{1}, 0,
                1 << 20);
        assertEquals(payload(plain).length + 8, payload(capped).length, "the flags (0) and the cap");
        assertEquals(capped, roundTrip(capped));
        Frame.HelloOk both = new Frame.HelloOk(ProtocolVersion.CURRENT, "QM", "1", 0, 1024, "u", new byte[]{1},
                Frame.HelloOk.STATUS_SESSION, 1 << 20);
        assertEquals(both, roundTrip(both));
        MalformedFrameException e = assertThrows(MalformedFrameException.class,
                () -> new Frame.HelloOk(ProtocolVersion.CURRENT, "QM", "1", 0, 1024, "u", new byte[0], 0, -1));
        assertTrue(e.getMessage().contains("maxConsumerWindowBytes -1"), e.getMessage());
    }

    /**
     * CREATE_CONSUMER's windowBytes and CREDIT's settledBytes (protocol version 3) trail only when not 0, so a consumer
     * without a window in bytes writes what version 2 wrote; negative ones are malformed, naming the field.
     */
    @Test
    void consumerWindowFieldsTrailOnlyWhenSetSoFramesWithoutThemAreVersionTwos() {
        Frame.CreateConsumer countOnly = new Frame.CreateConsumer(4, 2, 11, WireDestination.queue("Q"), null, 1000, 0,
                null);
        ByteBuf versionTwo = Unpooled.buffer().writeInt(4).writeInt(2).writeInt(11);
        WireDestination.write(versionTwo, WireDestination.queue("Q"));
        WireStrings.write(versionTwo, null);
        versionTwo.writeInt(1000).writeInt(0);
        WireStrings.write(versionTwo, null);
        assertArrayEquals(bytes(versionTwo), payload(countOnly));
        assertEquals(0, ((Frame.CreateConsumer) roundTrip(countOnly)).windowBytes());
        byte[] windowed = payload(countOnly.withWindowBytes(1 << 20));
        assertEquals(payload(countOnly).length + 4, windowed.length);
        assertEquals(1 << 20, ((Frame.CreateConsumer) roundTrip(countOnly.withWindowBytes(1 << 20))).windowBytes());

        assertArrayEquals(bytes(Unpooled.buffer().writeInt(11).writeInt(500)), payload(new Frame.Credit(11, 500)));
        assertEquals(16, payload(new Frame.Credit(11, 500, 1)).length);

        MalformedFrameException window = assertThrows(MalformedFrameException.class,
                () -> countOnly.withWindowBytes(-1));
        assertTrue(window.getMessage().contains("windowBytes -1"), window.getMessage());
        ByteBuf credit = Unpooled.buffer().writeInt(1 + 16).writeByte(FrameType.CREDIT.code()).writeInt(11).writeInt(1)
                .writeLong(-5);
        DecoderException e = assertThrows(DecoderException.class,
                () -> new EmbeddedChannel(new FrameDecoder(1024)).writeInbound(credit));
        assertTrue(e.getCause().getMessage().contains("settledBytes -5"), e.getCause().getMessage());
    }

    private static byte[] payload(Frame frame) {
        ByteBuf out = Unpooled.buffer();
        frame.writePayload(out);
        return bytes(out);
    }

    @Test
    void unknownTypeIsMalformed() {
        EmbeddedChannel in = new EmbeddedChannel(new FrameDecoder(1024));
        DecoderException e = assertThrows(DecoderException.class,
                () -> in.writeInbound(Unpooled.buffer().writeInt(1).writeByte(99)));
        assertInstanceOf(MalformedFrameException.class, e.getCause());
        assertTrue(e.getCause().getMessage().contains("unknown frame type 99"), e.getCause().getMessage());
    }

    @Test
    void truncatedPayloadIsMalformed() {
        // An OK frame needs 4 bytes of request id; this one declares and carries only 2.
        EmbeddedChannel in = new EmbeddedChannel(new FrameDecoder(1024));
        DecoderException e = assertThrows(DecoderException.class,
                () -> in.writeInbound(Unpooled.buffer().writeInt(3).writeByte(FrameType.OK.code()).writeShort(1)));
        assertTrue(e.getCause().getMessage().contains("truncated"), e.getCause().getMessage());
    }

    @Test
    void trailingBytesAreMalformed() {
        EmbeddedChannel in = new EmbeddedChannel(new FrameDecoder(1024));
        DecoderException e = assertThrows(DecoderException.class,
                () -> in.writeInbound(Unpooled.buffer().writeInt(6).writeByte(FrameType.OK.code()).writeInt(1).writeByte(0)));
        assertTrue(e.getCause().getMessage().contains("trailing"), e.getCause().getMessage());
    }

    @Test
    void zeroLengthIsMalformed() {
        EmbeddedChannel in = new EmbeddedChannel(new FrameDecoder(1024));
        assertThrows(DecoderException.class, () -> in.writeInbound(Unpooled.buffer().writeInt(0)));
    }

    @Test
    void negativeLengthIsMalformedNotOversize() {
        EmbeddedChannel in = new EmbeddedChannel(new FrameDecoder(1024));
        DecoderException e = assertThrows(DecoderException.class,
                () -> in.writeInbound(Unpooled.buffer().writeInt(0xFFFFFF00).writeByte(1)));
        assertInstanceOf(MalformedFrameException.class, e.getCause());
    }

    @Test
    void wrongMagicIsRejected() {
        EmbeddedChannel in = new EmbeddedChannel(new FrameDecoder(1024));
        ByteBuf b = Unpooled.buffer().writeInt(0).writeByte(FrameType.HELLO.code()).writeBytes("GET / HTTP/1.1".getBytes(StandardCharsets.US_ASCII));
        b.setInt(0, b.readableBytes() - 4);
        DecoderException e = assertThrows(DecoderException.class, () -> in.writeInbound(b));
        assertTrue(e.getCause().getMessage().contains("not a Wharf client"), e.getCause().getMessage());
    }

    @Test
    void tooLongFrameIsSkippedAndTheNextFrameStillDecodes() {
        EmbeddedChannel in = new EmbeddedChannel(new FrameDecoder(64));
        ByteBuf big = Unpooled.buffer().writeInt(1000).writeByte(FrameType.SEND.code()).writeZero(999);
        assertThrows(TooLongFrameException.class, () -> in.writeInbound(big));
        in.writeInbound(Unpooled.buffer().writeInt(5).writeByte(FrameType.OK.code()).writeInt(3));
        assertEquals(new Frame.Ok(3), in.readInbound());
    }

    private static byte[] bytes(ByteBuf b) {
        byte[] a = new byte[b.readableBytes()];
        b.getBytes(b.readerIndex(), a);
        return a;
    }
}
