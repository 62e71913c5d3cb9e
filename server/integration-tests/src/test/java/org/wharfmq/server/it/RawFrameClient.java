package org.wharfmq.server.it;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import org.wharfmq.protocol.ProtocolVersion;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.frame.FrameDecoder;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * A blocking socket that speaks frames, for tests that must send what no real client would: raw bytes, frames
 * cut short, frames of unknown type. Incoming bytes go through the protocol's own {@link FrameDecoder} (in an
 * embedded channel), so the test reads exactly what a client would decode.
 */
final class RawFrameClient implements AutoCloseable {

    /** Bounds a hang only: an answer the test waits for may take long on a loaded machine. */
    private static final int READ_TIMEOUT_MS = 30_000;
    private static final int MAX_INCOMING_FRAME = 16 * 1024 * 1024;

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final EmbeddedChannel decoder = new EmbeddedChannel(new FrameDecoder(MAX_INCOMING_FRAME));
    private final byte[] readBuffer = new byte[8192];
    private boolean endOfStream;

    private RawFrameClient(Socket socket) throws IOException {
        this.socket = socket;
        this.in = socket.getInputStream();
        this.out = socket.getOutputStream();
    }

    static RawFrameClient connect(int port) throws IOException {
        return connect("127.0.0.1", port);
    }

    /**
     * Connects to the server on 127.0.0.1 from the local address {@code from}: another loopback address (127.0.0.2 on
     * Linux) is another client address to the server.
     */
    static RawFrameClient connect(String from, int port) throws IOException {
        Socket socket = new Socket();
        try {
            socket.bind(new InetSocketAddress(from, 0));
            socket.connect(new InetSocketAddress("127.0.0.1", port), READ_TIMEOUT_MS);
            socket.setSoTimeout(READ_TIMEOUT_MS);
            socket.setTcpNoDelay(true);
        } catch (IOException e) {
            socket.close();
            throw e;
        }
        return new RawFrameClient(socket);
    }

    /** Sends HELLO (no heartbeat) and asserts HELLO_OK comes back. */
    Frame.HelloOk handshake() throws IOException {
        return handshake(ProtocolVersion.CURRENT);
    }

    /** Sends HELLO of protocol {@code version} (no heartbeat), anonymously, and asserts HELLO_OK comes back. */
    Frame.HelloOk handshake(short version) throws IOException {
        send(new Frame.Hello(version, "raw-frame-it", 0));
        assertInstanceOf(Frame.AuthMechanisms.class, nextFrame(), "answer to HELLO");
        send(new Frame.Auth(org.wharfmq.protocol.auth.Mechanisms.ANONYMOUS, new byte[0]));
        return assertInstanceOf(Frame.HelloOk.class, nextFrame(), "answer to AUTH");
    }

    /** Sends HELLO (no heartbeat), logs in as {@code user} with SCRAM-SHA-256 and asserts HELLO_OK comes back. */
    Frame.HelloOk handshake(String user, String password) throws IOException {
        send(new Frame.Hello(ProtocolVersion.CURRENT, "raw-frame-it", 0));
        assertInstanceOf(Frame.AuthMechanisms.class, nextFrame(), "answer to HELLO");
        org.wharfmq.protocol.auth.ScramClient scram = new org.wharfmq.protocol.auth.ScramClient(user, password.toCharArray());
        send(new Frame.Auth(org.wharfmq.protocol.auth.Mechanisms.SCRAM_SHA_256, scram.clientFirst()));
        Frame.AuthChallenge challenge = assertInstanceOf(Frame.AuthChallenge.class, nextFrame(), "answer to AUTH");
        try {
            send(new Frame.AuthResponse(scram.clientFinal(challenge.data())));
        } catch (org.wharfmq.protocol.auth.ScramException e) {
            throw new AssertionError("the server's SCRAM challenge: " + e.getMessage(), e);
        }
        return assertInstanceOf(Frame.HelloOk.class, nextFrame(), "answer to AUTH_RESPONSE");
    }

    /** Writes one well-formed frame; a SEND's message follows its payload, as the encoder writes it (and is released). */
    void send(Frame frame) throws IOException {
        sendRaw(encode(frame));
    }

    /** A frame's bytes on the wire, length prefix first; a SEND's message follows its payload (and is released). */
    static byte[] encode(Frame frame) {
        ByteBuf buf = Unpooled.buffer();
        try {
            buf.writeInt(0);
            buf.writeByte(frame.type().code());
            frame.writePayload(buf);
            if (frame instanceof Frame.Send s) {
                buf.writeBytes(s.message());
                s.message().release();
            }
            buf.setInt(0, buf.readableBytes() - Integer.BYTES);
            byte[] bytes = new byte[buf.readableBytes()];
            buf.readBytes(bytes);
            return bytes;
        } finally {
            buf.release();
        }
    }

    /** Writes bytes exactly as given. */
    void sendRaw(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** The client's end of the socket, as the server names its peer: {@code /127.0.0.1:54321}. */
    java.net.SocketAddress localAddress() {
        return socket.getLocalSocketAddress();
    }

    /** Half-closes: the server sees end of stream, this side can still read. */
    void shutdownOutput() throws IOException {
        socket.shutdownOutput();
    }

    /**
     * The next frame other than PING and PRODUCER_CREDIT (producer flow control's, which these tests do not look at),
     * or null once the server has closed the connection (orderly or by reset). Fails with
     * {@link java.net.SocketTimeoutException} when the server neither sends nor closes in time.
     */
    Frame nextFrame() throws IOException {
        while (true) {
            Object decoded = decoder.readInbound();
            if (decoded instanceof Frame.Ping || decoded instanceof Frame.ProducerCredit) {
                continue;
            }
            if (decoded != null) {
                return (Frame) decoded;
            }
            if (endOfStream) {
                return null;
            }
            int n;
            try {
                n = in.read(readBuffer);
            } catch (SocketException reset) {
                n = -1;
            }
            if (n < 0) {
                endOfStream = true;
            } else {
                // copied: the decoder may keep the buffer as its cumulation while readBuffer is reused
                decoder.writeInbound(Unpooled.copiedBuffer(readBuffer, 0, n));
            }
        }
    }

    /** Asserts the next frame is an ERROR with {@code code} and then that the server closes the connection. */
    Frame.Error expectErrorAndClose(ErrorCode code) throws IOException {
        Frame.Error error = expectError(code);
        expectClosed();
        return error;
    }

    /** Asserts the next frame is an ERROR with {@code code}. */
    Frame.Error expectError(ErrorCode code) throws IOException {
        Frame frame = nextFrame();
        Frame.Error error = assertInstanceOf(Frame.Error.class, frame, "expected ERROR " + code + ", got " + frame);
        assertEquals(code, error.code(), () -> "error code, message: " + error.message());
        return error;
    }

    /** Asserts the server closes the connection with nothing more to say. */
    void expectClosed() throws IOException {
        Frame extra = nextFrame();
        ReferenceCountUtil.release(extra);
        assertNull(extra, "server sent a frame instead of closing the connection");
    }

    @Override
    public void close() throws IOException {
        decoder.finishAndReleaseAll();
        socket.close();
    }
}
