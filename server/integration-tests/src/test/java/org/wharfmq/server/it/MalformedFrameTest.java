package org.wharfmq.server.it;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.wharfmq.protocol.ProtocolVersion;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.frame.FrameType;
import org.wharfmq.protocol.frame.WireStrings;

import javax.jms.Connection;
import javax.jms.JMSException;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bytes that are not valid frames cost only the connection that sent them: the server answers PROTOCOL_ERROR
 * where it can and closes that one connection, while a JMS client connected before goes on sending and
 * receiving. A frame that is merely too long is skipped and answered, and its connection stays up.
 */
@Timeout(60)
class MalformedFrameTest {

    private static final int MAX_MESSAGE_LENGTH = 1024;

    @RegisterExtension
    static final WharfServerExtension WHARF = WharfServerExtension.configured(c -> c.maxMessageLength(MAX_MESSAGE_LENGTH));

    private RawFrameClient raw;
    private Session bystanderSession;
    private MessageProducer bystanderProducer;
    private MessageConsumer bystanderConsumer;
    private final CompletableFuture<JMSException> bystanderError = new CompletableFuture<>();

    @BeforeEach
    void connectBystanderAndRawSocket() throws Exception {
        Connection bystander = WHARF.connect(Transport.TCP);
        bystander.setExceptionListener(bystanderError::complete);
        bystanderSession = bystander.createSession(false, Session.AUTO_ACKNOWLEDGE);
        String queueName = WHARF.queueName("bystander");
        bystanderProducer = bystanderSession.createProducer(bystanderSession.createQueue(queueName));
        bystanderConsumer = bystanderSession.createConsumer(bystanderSession.createQueue(queueName));
        assertBystanderWorks("before");
        raw = RawFrameClient.connect(WHARF.server().tcpPort());
    }

    @AfterEach
    void bystanderStillWorks() throws Exception {
        raw.close();
        assertBystanderWorks("after");
        assertFalse(bystanderError.isDone(), () -> "bystander connection failed: " + bystanderError.join());
    }

    @Test
    void unknownFrameTypeAfterHandshake() throws Exception {
        raw.handshake();
        raw.sendRaw(new byte[]{0, 0, 0, 3, 99, 1, 2});
        raw.expectErrorAndClose(ErrorCode.PROTOCOL_ERROR);
    }

    @Test
    void zeroLengthFrameAfterHandshake() throws Exception {
        raw.handshake();
        raw.sendRaw(new byte[]{0, 0, 0, 0});
        raw.expectErrorAndClose(ErrorCode.PROTOCOL_ERROR);
    }

    @Test
    void payloadShorterThanItsLayout() throws Exception {
        raw.handshake();
        // CREATE_SESSION needs 10 payload bytes; the frame is complete but holds only 2
        raw.sendRaw(new byte[]{0, 0, 0, 3, FrameType.CREATE_SESSION.code(), 0, 7});
        raw.expectErrorAndClose(ErrorCode.PROTOCOL_ERROR);
    }

    @Test
    void frameCutShortThenHalfClosed() throws Exception {
        raw.handshake();
        byte[] truncated = new byte[4 + 1 + 10];
        truncated[3] = 100; // declares 100 bytes, only 11 follow
        truncated[4] = FrameType.SEND.code();
        raw.sendRaw(truncated);
        raw.shutdownOutput();
        Frame answer = raw.nextFrame();
        if (answer != null) {
            // nothing decodable arrived, so an answer is optional; if there is one it must say why
            assertEquals(ErrorCode.PROTOCOL_ERROR, assertInstanceOf(Frame.Error.class, answer).code());
            raw.expectClosed();
        }
    }

    @Test
    void wellFormedFrameBeforeHello() throws Exception {
        raw.send(new Frame.CreateSession(1, 1, false, Session.AUTO_ACKNOWLEDGE));
        raw.expectErrorAndClose(ErrorCode.PROTOCOL_ERROR);
    }

    @Test
    void garbageOfUnknownTypeInsteadOfHello() throws Exception {
        raw.sendRaw(new byte[]{0, 0, 0, 5, 0x7F, 'j', 'u', 'n', 'k'});
        raw.expectErrorAndClose(ErrorCode.PROTOCOL_ERROR);
    }

    @Test
    void httpRequestInsteadOfHello() throws Exception {
        // "GET " read as a length is ~1.2 GB: the server must reject the stray client, not wait for the bytes
        raw.sendRaw("GET / HTTP/1.1\r\nHost: wharf\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        raw.expectErrorAndClose(ErrorCode.PROTOCOL_ERROR);
    }

    @Test
    void helloWithWrongMagic() throws Exception {
        ByteBuf hello = Unpooled.buffer();
        hello.writeInt(0);
        hello.writeByte(FrameType.HELLO.code());
        hello.writeInt(0xCAFEBABE);
        hello.writeShort(ProtocolVersion.CURRENT);
        WireStrings.write(hello, "raw");
        WireStrings.write(hello, null);
        WireStrings.write(hello, null);
        hello.writeInt(0);
        hello.setInt(0, hello.readableBytes() - 4);
        byte[] bytes = new byte[hello.readableBytes()];
        hello.readBytes(bytes);
        hello.release();
        raw.sendRaw(bytes);
        raw.expectErrorAndClose(ErrorCode.PROTOCOL_ERROR);
    }

    @Test
    void helloWithUnsupportedVersion() throws Exception {
        raw.send(new Frame.Hello((short) 99, "raw", 0));
        Frame.Error error = raw.expectErrorAndClose(ErrorCode.UNSUPPORTED_VERSION);
        assertTrue(error.message().contains(String.valueOf(ProtocolVersion.CURRENT)),
                () -> "error names the versions the server speaks: " + error.message());
    }

    @Test
    void oversizeFrameIsSkippedAndTheConnectionStaysUp() throws Exception {
        Frame.HelloOk hello = raw.handshake();
        assertEquals(MAX_MESSAGE_LENGTH, hello.maxMessageLength());
        int payload = MAX_MESSAGE_LENGTH + 64 * 1024 + 100_000;
        ByteBuf oversize = Unpooled.buffer(5 + payload);
        oversize.writeInt(1 + payload);
        oversize.writeByte(FrameType.SEND.code());
        oversize.writeZero(payload);
        byte[] bytes = new byte[oversize.readableBytes()];
        oversize.readBytes(bytes);
        oversize.release();
        raw.sendRaw(bytes);

        Frame.Error error = raw.expectError(ErrorCode.MESSAGE_TOO_LARGE);
        assertEquals(0, error.requestId());
        raw.send(new Frame.CreateSession(7, 1, false, Session.AUTO_ACKNOWLEDGE));
        assertEquals(new Frame.Ok(7), raw.nextFrame(), "the connection still answers requests");
    }

    private void assertBystanderWorks(String when) throws JMSException {
        String text = "bystander " + when;
        bystanderProducer.send(bystanderSession.createTextMessage(text));
        assertEquals(text, Receive.nextText(bystanderConsumer).getText());
    }
}
