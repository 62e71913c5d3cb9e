package org.wharfmq.server.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.wharfmq.protocol.ProtocolVersion;
import org.wharfmq.protocol.auth.Mechanisms;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.frame.FrameType;
import org.wharfmq.protocol.message.WireMessage;
import org.wharfmq.server.FrameClient;
import org.wharfmq.server.TestMessages;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Handshake and the server's answers to frames it cannot use; a bad connection never harms another. */
class FramingTest {

    private static final int MAX_MESSAGE_LENGTH = 4096;
    private static TestServer testServer;
    private static WharfServer server;

    @BeforeAll
    static void start() throws Exception {
        testServer = TestServer.start(c -> c.name("TESTQM").maxMessageLength(MAX_MESSAGE_LENGTH).heartbeatMillis(10_000));
        server = testServer.server();
    }

    @AfterAll
    static void stop() {
        testServer.close();
    }

    @Test
    void helloIsAnsweredWithNameLimitsAndTheServersHeartbeatWhenTheClientWantsNone() throws Exception {
        try (FrameClient client = FrameClient.tcp(server)) {
            Frame.HelloOk ok = client.hello();
            assertEquals(ProtocolVersion.CURRENT, ok.version());
            assertEquals("TESTQM", ok.serverName());
            assertEquals(10_000, ok.heartbeatMillis());
            assertEquals(MAX_MESSAGE_LENGTH, ok.maxMessageLength());
        }
    }

    @Test
    void heartbeatIsTheSmallerOfTheTwo() throws Exception {
        try (FrameClient client = FrameClient.tcp(server)) {
            assertEquals(3000, client.hello("test", 3000).heartbeatMillis());
        }
    }

    @Test
    void serverPingsWhenIdleAndClosesAConnectionThatStaysSilent() throws Exception {
        try (FrameClient client = FrameClient.tcp(server)) {
            assertEquals(100, client.hello("sleepy", 100).heartbeatMillis());
            client.expect(Frame.Ping.class);
            client.awaitClosed(); // the client never pings back: dead after three intervals
        }
    }

    @Test
    void handshakeWorksOverTheInVmTransport() throws Exception {
        try (FrameClient client = FrameClient.inVm(server)) {
            assertEquals("TESTQM", client.hello().serverName());
            client.createSession(1, false);
        }
    }

    @Test
    void anyFrameBeforeHelloIsAProtocolError() throws Exception {
        try (FrameClient client = FrameClient.tcp(server)) {
            client.send(new Frame.CreateSession(1, 1, false, 1));
            Frame.Error error = client.expect(Frame.Error.class);
            assertEquals(ErrorCode.PROTOCOL_ERROR, error.code());
            assertTrue(error.message().contains("the first frame must be HELLO, not CREATE_SESSION"), error.message());
            client.awaitClosed();
        }
    }

    @Test
    void unsupportedVersionIsRefusedNamingTheSupportedOnes() throws Exception {
        try (FrameClient client = FrameClient.tcp(server)) {
            client.send(new Frame.Hello((short) 7, "future", 0));
            Frame.Error error = client.expect(Frame.Error.class);
            assertEquals(ErrorCode.UNSUPPORTED_VERSION, error.code());
            assertEquals("Protocol version 7 is not supported: this server speaks versions 2 to 3; upgrade the client"
                    + " to a Wharf client of the server's version.", error.message());
            client.awaitClosed();
        }
    }

    /** A client of protocol version 2 (before consumer windows in bytes) is served, its HELLO_OK of version 2. */
    @Test
    void aVersionTwoClientIsServedInVersionTwo() throws Exception {
        try (FrameClient client = FrameClient.tcp(server)) {
            client.send(new Frame.Hello(ProtocolVersion.OLDEST, "older", 0));
            client.expect(Frame.AuthMechanisms.class);
            client.send(new Frame.Auth(Mechanisms.ANONYMOUS, new byte[0]));
            assertEquals(2, client.expect(Frame.HelloOk.class).version());
            client.createSession(1, false);
        }
    }

    /** A version 1 client sent its user and password in HELLO: it is told to upgrade, not given a protocol error. */
    @Test
    void aVersionOneHelloIsToldToUpgrade() throws Exception {
        try (FrameClient client = FrameClient.tcp(server)) {
            io.netty.buffer.ByteBuf payload = io.netty.buffer.Unpooled.buffer();
            payload.writeInt(ProtocolVersion.MAGIC).writeShort(1);
            org.wharfmq.protocol.frame.WireStrings.write(payload, "old-client");
            org.wharfmq.protocol.frame.WireStrings.write(payload, "alice");
            org.wharfmq.protocol.frame.WireStrings.write(payload, "secret");
            payload.writeInt(0);
            io.netty.buffer.ByteBuf frame = io.netty.buffer.Unpooled.buffer();
            frame.writeInt(1 + payload.readableBytes()).writeByte(org.wharfmq.protocol.frame.FrameType.HELLO.code())
                    .writeBytes(payload);
            client.sendRaw(frame);
            Frame.Error error = client.expect(Frame.Error.class);
            assertEquals(ErrorCode.UNSUPPORTED_VERSION, error.code());
            assertTrue(error.message().contains("upgrade the client"), error.message());
            client.awaitClosed();
        }
    }

    @Test
    void anyFrameButAuthAfterHelloIsAProtocolErrorAndAuthAfterTheHandshakeToo() throws Exception {
        try (FrameClient client = FrameClient.tcp(server)) {
            client.send(new Frame.Hello(ProtocolVersion.CURRENT, "eager", 0));
            client.expect(Frame.AuthMechanisms.class);
            client.send(new Frame.CreateSession(1, 1, false, 1));
            Frame.Error error = client.expect(Frame.Error.class);
            assertEquals(ErrorCode.PROTOCOL_ERROR, error.code());
            assertTrue(error.message().contains("expects AUTH after HELLO, not CREATE_SESSION"), error.message());
            client.awaitClosed();
        }
        try (FrameClient client = FrameClient.tcp(server)) {
            client.hello();
            client.send(new Frame.Auth("ANONYMOUS", new byte[0]));
            assertEquals(ErrorCode.PROTOCOL_ERROR, client.expect(Frame.Error.class).code());
            client.awaitClosed();
        }
    }

    @Test
    void aMechanismNotOfferedIsRefused() throws Exception {
        try (FrameClient client = FrameClient.tcp(server)) {
            client.send(new Frame.Hello(ProtocolVersion.CURRENT, "sneaky", 0));
            assertEquals(java.util.List.of("ANONYMOUS"), client.expect(Frame.AuthMechanisms.class).mechanisms(),
                    "no users configured: a local client may only be anonymous");
            client.send(new Frame.Auth("PLAIN", "\0alice\0pw".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
            Frame.Error error = client.expect(Frame.Error.class);
            assertEquals(ErrorCode.AUTHENTICATION_FAILED, error.code());
            assertTrue(error.message().contains("mechanism 'PLAIN' is not offered"), error.message());
            client.awaitClosed();
        }
    }

    @Test
    void httpRequestIsRecognisedAsNotAWharfClient() throws Exception {
        try (FrameClient client = FrameClient.tcp(server)) {
            client.sendRaw(Unpooled.copiedBuffer("GET / HTTP/1.1\r\nHost: x\r\n\r\n", StandardCharsets.US_ASCII));
            Frame.Error error = client.expect(Frame.Error.class);
            assertEquals(ErrorCode.PROTOCOL_ERROR, error.code());
            assertTrue(error.message().contains("not a Wharf HELLO"), error.message());
            client.awaitClosed();
        }
    }

    @Test
    void unknownFrameTypeClosesOnlyThatConnection() throws Exception {
        try (FrameClient bystander = FrameClient.connect(server); FrameClient broken = FrameClient.connect(server)) {
            bystander.createSession(1, false);
            broken.sendRaw(frame(99, new byte[]{1, 2, 3}));
            Frame.Error error = broken.expect(Frame.Error.class);
            assertEquals(0, error.requestId());
            assertEquals(ErrorCode.PROTOCOL_ERROR, error.code());
            assertEquals("Protocol error: unknown frame type 99. The connection is closed.", error.message());
            broken.awaitClosed();
            assertStillWorks(bystander);
        }
    }

    @Test
    void truncatedPayloadClosesOnlyThatConnection() throws Exception {
        try (FrameClient bystander = FrameClient.connect(server); FrameClient broken = FrameClient.connect(server)) {
            bystander.createSession(1, false);
            // CREATE_SESSION needs 10 payload bytes; send 4
            broken.sendRaw(frame(FrameType.CREATE_SESSION.code(), new byte[]{0, 0, 0, 1}));
            Frame.Error error = broken.expect(Frame.Error.class);
            assertEquals(ErrorCode.PROTOCOL_ERROR, error.code());
            assertTrue(error.message().startsWith("Protocol error: CREATE_SESSION frame is truncated"), error.message());
            broken.awaitClosed();
            assertStillWorks(bystander);
        }
    }

    @Test
    void garbageBytesCloseOnlyThatConnection() throws Exception {
        try (FrameClient bystander = FrameClient.connect(server); FrameClient broken = FrameClient.connect(server)) {
            bystander.createSession(1, false);
            // starts like a negative int32 length: must be a protocol error, not an "oversize" frame to skip
            broken.sendRaw(Unpooled.wrappedBuffer(new byte[]{(byte) 0xff, (byte) 0xee, 0, 0, 0x13, 0x37, 0x42}));
            Frame.Error error = broken.expect(Frame.Error.class);
            assertEquals(ErrorCode.PROTOCOL_ERROR, error.code());
            assertTrue(error.message().contains("is not a valid length"), error.message());
            broken.awaitClosed();
            assertStillWorks(bystander);
        }
    }

    @Test
    void brokenMessageInsideAWellFormedSendIsRefusedAndTheConnectionStaysUp() throws Exception {
        try (FrameClient client = FrameClient.connect(server)) {
            client.createSession(1, false);
            ByteBuf message = TestMessages.encode(TestMessages.text("Q", "x"));
            message.setByte(2, 12); // priority 12
            Frame.Error error = client.requestFails(id -> new Frame.Send(id, 1, 1, message), ErrorCode.MALFORMED_MESSAGE);
            assertTrue(error.message().startsWith("The message was refused and not stored: priority 12 is outside 0-9"),
                    error.message());
            assertStillWorks(client);
        }
    }

    @Test
    void serverFramesFromAClientAreAProtocolError() throws Exception {
        try (FrameClient client = FrameClient.connect(server)) {
            client.send(new Frame.Ok(5));
            Frame.Error error = client.expect(Frame.Error.class);
            assertEquals(ErrorCode.PROTOCOL_ERROR, error.code());
            assertTrue(error.message().contains("OK is sent by the server, never by a client"), error.message());
            client.awaitClosed();
        }
    }

    @Test
    void oversizeFrameIsSkippedAndReportedAndTheConnectionStaysUp() throws Exception {
        try (FrameClient client = FrameClient.connect(server)) {
            client.createSession(1, false);
            byte[] payload = new byte[MAX_MESSAGE_LENGTH + 70_000];
            client.sendRaw(frame(FrameType.SEND.code(), payload));
            Frame.Error error = client.expect(Frame.Error.class);
            assertEquals(0, error.requestId());
            assertEquals(ErrorCode.MESSAGE_TOO_LARGE, error.code());
            assertTrue(error.message().contains("maximum message length is " + MAX_MESSAGE_LENGTH + " bytes (setting maxMessageLength)"),
                    error.message());
            assertStillWorks(client);
        }
    }

    /**
     * maxMessageLength counts the encoded message (headers, properties and body): one of exactly the limit is stored,
     * one a byte longer is refused naming its length, the limit, the setting and the fix.
     */
    @Test
    void aSendOneByteOverTheLimitIsRefusedNamingTheLimitTheSettingAndTheFixAndOneAtTheLimitIsStored() throws Exception {
        try (FrameClient client = FrameClient.connect(server)) {
            client.createSession(1, false);
            WireMessage big = TestMessages.text("BIG", "");
            int headers = TestMessages.encode(big).readableBytes();
            big.body = new byte[MAX_MESSAGE_LENGTH + 1 - headers];
            assertEquals(MAX_MESSAGE_LENGTH + 1, TestMessages.encode(big).readableBytes());
            Frame.Error error = client.requestFails(id -> new Frame.Send(id, 1, 3, TestMessages.encode(big)),
                    ErrorCode.MESSAGE_TOO_LARGE);
            assertEquals("The message is " + (MAX_MESSAGE_LENGTH + 1) + " bytes long (encoded: headers, properties and"
                    + " body), more than queue manager TESTQM's maximum message length of " + MAX_MESSAGE_LENGTH
                    + " bytes (setting maxMessageLength); it was not stored. Send a smaller message, or raise"
                    + " maxMessageLength in queue manager TESTQM's configuration.", error.message());
            assertEquals(1, error.sessionId());
            assertEquals(3, error.producerId());

            big.body = new byte[MAX_MESSAGE_LENGTH - headers];
            client.request(id -> new Frame.Send(id, 1, 3, TestMessages.encode(big)));
            assertEquals(1, server.management().queue("BIG").depth(), "the one at the limit stored, the one over it not");
            assertStillWorks(client);
        }
    }

    /** A round trip on a fresh queue: session, consumer, send, deliver. */
    private static void assertStillWorks(FrameClient client) throws InterruptedException {
        String queue = "STILL.WORKS." + System.nanoTime();
        client.createSession(50, false);
        client.createConsumer(50, 51, queue, null, 10);
        int requestId = client.requestId();
        client.send(new Frame.Send(requestId, 50, 1, TestMessages.encode(TestMessages.text(queue, "alive"))));
        // the consumer is on this connection, so its DELIVER is written before the OK of the SEND
        Frame.Deliver deliver = client.expect(Frame.Deliver.class);
        assertEquals("alive", TestMessages.body(deliver.message()));
        assertEquals(new Frame.Ok(requestId), client.next());
    }

    private static ByteBuf frame(int type, byte[] payload) {
        ByteBuf buf = Unpooled.buffer(5 + payload.length);
        buf.writeInt(1 + payload.length);
        buf.writeByte(type);
        buf.writeBytes(payload);
        return buf;
    }
}
