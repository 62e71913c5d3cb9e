package org.wharfmq.protocol.frame;

import io.netty.buffer.ByteBuf;
import org.wharfmq.protocol.message.BodyType;
import org.wharfmq.protocol.message.TransmissionHeader;
import org.wharfmq.protocol.message.WireDestination;

import java.util.List;

/**
 * One unit of exchange on a Wharf connection. On the wire every frame is
 * {@code int length | byte type | payload}, where length counts the type byte and the payload.
 *
 * <p>Requests that want an answer carry a {@code requestId} chosen by the client; the server answers with
 * {@link Ok} or {@link Error} carrying the same id. A request id of 0 means "do not answer": errors of such
 * fire-and-forget requests (an asynchronous send to a full queue, say) come back as an {@link Error} with
 * request id 0 that names the session and producer concerned.
 *
 * <p>Each record holds its frame's whole layout: {@code writePayload} writes it and the static {@code read} beside it
 * reads it back ({@link FrameDecoder} picks the record by the type byte).
 *
 * <p>{@link Send} and {@link Deliver} own one reference to their message buffer. The encoder hands that
 * reference to the channel, which releases it once written; whoever builds such a frame passes a buffer it
 * may give away (the server uses {@code retainedDuplicate()} of the stored message, so the bytes are shared,
 * never copied).
 */
public sealed interface Frame {

    /** The frame's type byte. */
    FrameType type();

    /** Writes everything after the type byte. */
    void writePayload(ByteBuf out);

    /**
     * A frame a client sends, which the server handles: each kind calls its own method of a
     * {@link ClientFrameHandler}, so a new kind of client frame does not compile until the server says what it does
     * with it. (Java 17 has no pattern-matching switch; this is the check it would give.) The frames only the server
     * sends are {@link FromServer}; PING goes both ways.
     */
    sealed interface FromClient extends Frame {
        /** Calls the method of {@code handler} for this kind of frame. */
        void handleWith(ClientFrameHandler handler);
    }

    /**
     * A frame the server sends, which the client handles: each kind calls its own method of a
     * {@link ServerFrameHandler}, the twin of {@link FromClient}, so a new kind of server frame does not compile until
     * the client says what it does with it. The frames only the client sends are not {@code FromServer}.
     */
    sealed interface FromServer extends Frame {
        /** Calls the method of {@code handler} for this kind of frame. */
        void handleWith(ServerFrameHandler handler);
    }

    // ---- connection ----

    /**
     * Client → server, first frame on a connection: the protocol version and the client's wishes. The server answers
     * {@link AuthMechanisms} (or {@link Error} UNSUPPORTED_VERSION, or AUTHENTICATION_FAILED when it accepts nothing
     * from this client, or NOT_ACTIVE from a replica of a replicated queue manager to a client that did not ask for a
     * status session).
     *
     * <p>{@code flags} is an optional trailing int, written only when not 0, so a HELLO without flags is byte for byte
     * the HELLO of clients that know none (and an older server, which refuses trailing bytes, never sees one unless
     * the client asked for something): {@link #STATUS_SESSION}. Any other bit is a malformed frame.
     */
    record Hello(short version, String clientName, int heartbeatMillis, int flags) implements FromClient {

        /**
         * The client (an administrator's tool, {@code wharf admin}) takes a status-only session should this member be
         * a replica of a replicated queue manager ({@link StatusRequest}); the active member ignores it.
         */
        public static final int STATUS_SESSION = 1;
        private static final int KNOWN_FLAGS = STATUS_SESSION;

        /** A HELLO without flags: what every application sends. */
        public Hello(short version, String clientName, int heartbeatMillis) {
            this(version, clientName, heartbeatMillis, 0);
        }

        public Hello {
            if ((flags & ~KNOWN_FLAGS) != 0) {
                throw new MalformedFrameException("HELLO flags 0x" + Integer.toHexString(flags) + " include bits this"
                        + " protocol does not define (known: 0x" + Integer.toHexString(KNOWN_FLAGS) + ")");
            }
        }

        /** Whether the client asked for a status session, should this member be a replica. */
        public boolean wantsStatusSession() {
            return (flags & STATUS_SESSION) != 0;
        }

        public FrameType type() {
            return FrameType.HELLO;
        }

        public void handleWith(ClientFrameHandler handler) {
            handler.onHello(this);
        }

        public void writePayload(ByteBuf out) {
            out.writeInt(org.wharfmq.protocol.ProtocolVersion.MAGIC);
            out.writeShort(version);
            WireStrings.write(out, clientName);
            out.writeInt(heartbeatMillis);
            if (flags != 0) {
                out.writeInt(flags);
            }
        }

        /**
         * Reads a HELLO of a version this build speaks, or of another one: of another version only the client name is
         * read (as far as it can be) and the rest skipped, so that the handshake can answer UNSUPPORTED_VERSION rather
         * than PROTOCOL_ERROR (a version 1 HELLO carried a user and a password after the name).
         */
        public static Hello read(ByteBuf in) {
            int magic = in.readInt();
            if (magic != org.wharfmq.protocol.ProtocolVersion.MAGIC) {
                throw new MalformedFrameException("not a Wharf client: HELLO magic is 0x" + Integer.toHexString(magic)
                        + ", expected 0x" + Integer.toHexString(org.wharfmq.protocol.ProtocolVersion.MAGIC));
            }
            short version = in.readShort();
            if (org.wharfmq.protocol.ProtocolVersion.speaks(version)) {
                String clientName = WireStrings.read(in);
                int heartbeatMillis = in.readInt();
                return new Hello(version, clientName, heartbeatMillis, in.isReadable() ? in.readInt() : 0);
            }
            String clientName = null;
            try {
                clientName = WireStrings.read(in);
            } catch (MalformedFrameException | IndexOutOfBoundsException e) {
                // a future layout: the name is only for the log
            }
            in.skipBytes(in.readableBytes());
            return new Hello(version, clientName, 0);
        }
    }

    /**
     * Server → client, answers HELLO: the authentication mechanisms this connection may use
     * ({@link org.wharfmq.protocol.auth.Mechanisms}), in the server's order of preference.
     */
    record AuthMechanisms(List<String> mechanisms) implements FromServer {
        public AuthMechanisms {
            mechanisms = List.copyOf(mechanisms);
        }

        public FrameType type() {
            return FrameType.AUTH_MECHANISMS;
        }

        public void handleWith(ServerFrameHandler handler) {
            handler.onAuthMechanisms(this);
        }

        public void writePayload(ByteBuf out) {
            out.writeInt(mechanisms.size());
            for (String m : mechanisms) {
                WireStrings.write(out, m);
            }
        }

        /** Reads the payload {@link #writePayload} wrote. */
        public static AuthMechanisms read(ByteBuf in) {
            return new AuthMechanisms(Codec.readStrings(in));
        }
    }

    /**
     * Client → server: the mechanism chosen and its first message (SCRAM's client-first-message; PLAIN's
     * {@code \0user\0password}; empty for ANONYMOUS and EXTERNAL). {@link #toString()} never shows the data, which
     * may hold a password.
     */
    record Auth(String mechanism, byte[] data) implements FromClient {
        public FrameType type() {
            return FrameType.AUTH;
        }

        public void handleWith(ClientFrameHandler handler) {
            handler.onAuth(this);
        }

        public void writePayload(ByteBuf out) {
            WireStrings.write(out, mechanism);
            WireBytes.write(out, data);
        }

        /** Reads the payload {@link #writePayload} wrote. */
        public static Auth read(ByteBuf in) {
            return new Auth(WireStrings.read(in), WireBytes.read(in));
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Auth a && java.util.Objects.equals(mechanism, a.mechanism) && java.util.Arrays.equals(data, a.data);
        }

        @Override
        public int hashCode() {
            return java.util.Objects.hashCode(mechanism) * 31 + java.util.Arrays.hashCode(data);
        }

        @Override
        public String toString() {
            return "Auth[" + mechanism + ", " + data.length + " bytes]";
        }
    }

    /** Server → client: the next message of a challenge-response mechanism (SCRAM's server-first-message). */
    record AuthChallenge(byte[] data) implements FromServer {
        public FrameType type() {
            return FrameType.AUTH_CHALLENGE;
        }

        public void handleWith(ServerFrameHandler handler) {
            handler.onAuthChallenge(this);
        }

        public void writePayload(ByteBuf out) {
            WireBytes.write(out, data);
        }

        /** Reads the payload {@link #writePayload} wrote. */
        public static AuthChallenge read(ByteBuf in) {
            return new AuthChallenge(WireBytes.read(in));
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof AuthChallenge a && java.util.Arrays.equals(data, a.data);
        }

        @Override
        public int hashCode() {
            return java.util.Arrays.hashCode(data);
        }

        @Override
        public String toString() {
            return "AuthChallenge[" + data.length + " bytes]";
        }
    }

    /** Client → server: the answer to an {@link AuthChallenge} (SCRAM's client-final-message, with the proof). */
    record AuthResponse(byte[] data) implements FromClient {
        public FrameType type() {
            return FrameType.AUTH_RESPONSE;
        }

        public void handleWith(ClientFrameHandler handler) {
            handler.onAuthResponse(this);
        }

        public void writePayload(ByteBuf out) {
            WireBytes.write(out, data);
        }

        /** Reads the payload {@link #writePayload} wrote. */
        public static AuthResponse read(ByteBuf in) {
            return new AuthResponse(WireBytes.read(in));
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof AuthResponse a && java.util.Arrays.equals(data, a.data);
        }

        @Override
        public int hashCode() {
            return java.util.Arrays.hashCode(data);
        }

        @Override
        public String toString() {
            return "AuthResponse[" + data.length + " bytes]";
        }
    }

    /**
     * Server → client: the client is authenticated as {@code user} ("" for anonymous) and may use the connection;
     * the limits it must respect; {@code data} is the mechanism's last message (SCRAM's server-final-message, which
     * the client checks: the server proves it knows the user's key), empty for the others. {@code flags}, an optional
     * trailing int written only when not 0 (so only to a client whose HELLO had flags): {@link #STATUS_SESSION}.
     * {@code maxConsumerWindowBytes} (protocol version 3), an optional trailing int after {@code flags} (which is then
     * written even when 0), written only when not 0: the most window in bytes the server grants a consumer or browser
     * (its maxConsumerWindowBytes), so that a client returns credit by half of the window it was granted, not of the
     * larger one it asked for; 0: not said (version 2). Negative is malformed.
     */
    record HelloOk(short version, String serverName, String serverVersion, int heartbeatMillis, int maxMessageLength,
                   String user, byte[] data, int flags, int maxConsumerWindowBytes) implements FromServer {

        /**
         * This connection is a status session: the member is a replica of a replicated queue manager, and the
         * connection takes {@link StatusRequest}, PING and CLOSE only.
         */
        public static final int STATUS_SESSION = Hello.STATUS_SESSION;

        /**
         * Offered on a version 3 connection: the server takes {@link ShareDeliveries}, and then sends a message it
         * delivers to several of the connection's consumers once ({@link DeliverKeep}, {@link DeliverSame}). A client
         * that does not know the bit ignores it.
         */
        public static final int SHARED_DELIVERIES = 2;

        /** A HELLO_OK without flags: a session of the active queue manager. */
        public HelloOk(short version, String serverName, String serverVersion, int heartbeatMillis,
                       int maxMessageLength, String user, byte[] data) {
            this(version, serverName, serverVersion, heartbeatMillis, maxMessageLength, user, data, 0);
        }

        /** A HELLO_OK that says no consumer window cap (as version 2 says none). */
        public HelloOk(short version, String serverName, String serverVersion, int heartbeatMillis,
                       int maxMessageLength, String user, byte[] data, int flags) {
            this(version, serverName, serverVersion, heartbeatMillis, maxMessageLength, user, data, flags, 0);
        }

        public HelloOk {
            if (maxConsumerWindowBytes < 0) {
                throw new MalformedFrameException("HELLO_OK maxConsumerWindowBytes " + maxConsumerWindowBytes
                        + " is negative (0: not said)");
            }
        }

        /** Whether this connection is a status session of a replica. */
        public boolean statusSession() {
            return (flags & STATUS_SESSION) != 0;
        }

        /** Whether the server takes SHARE_DELIVERIES on this connection. */
        public boolean sharedDeliveries() {
            return (flags & SHARED_DELIVERIES) != 0;
        }

        public FrameType type() {
            return FrameType.HELLO_OK;
        }

        public void handleWith(ServerFrameHandler handler) {
            handler.onHelloOk(this);
        }

        public void writePayload(ByteBuf out) {
            out.writeShort(version);
            WireStrings.write(out, serverName);
            WireStrings.write(out, serverVersion);
            out.writeInt(heartbeatMillis);
            out.writeInt(maxMessageLength);
            WireStrings.write(out, user);
            WireBytes.write(out, data);
            if (flags != 0 || maxConsumerWindowBytes != 0) {
                out.writeInt(flags);
            }
            if (maxConsumerWindowBytes != 0) {
                out.writeInt(maxConsumerWindowBytes);
            }
        }

        /** Reads the payload {@link #writePayload} wrote. */
        public static HelloOk read(ByteBuf in) {
            return new HelloOk(in.readShort(), WireStrings.read(in), WireStrings.read(in), in.readInt(), in.readInt(),
                    WireStrings.read(in), WireBytes.read(in), in.isReadable() ? in.readInt() : 0,
                    in.isReadable() ? in.readInt() : 0);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof HelloOk h && version == h.version && heartbeatMillis == h.heartbeatMillis
                    && maxMessageLength == h.maxMessageLength && flags == h.flags
                    && maxConsumerWindowBytes == h.maxConsumerWindowBytes
                    && java.util.Objects.equals(serverName, h.serverName)
                    && java.util.Objects.equals(serverVersion, h.serverVersion) && java.util.Objects.equals(user, h.user)
                    && java.util.Arrays.equals(data, h.data);
        }

        @Override
        public int hashCode() {
            return java.util.Objects.hash(version, serverName, serverVersion, heartbeatMillis, maxMessageLength, user,
                    flags, maxConsumerWindowBytes) * 31 + java.util.Arrays.hashCode(data);
        }

        @Override
        public String toString() {
            return "HelloOk[version=" + version + ", serverName=" + serverName + ", serverVersion=" + serverVersion
                    + ", heartbeatMillis=" + heartbeatMillis + ", maxMessageLength=" + maxMessageLength + ", user=" + user
                    + ", " + data.length + " bytes, flags=" + flags + "]";
        }
    }

    /** Either direction: sent when a side has written nothing for the heartbeat interval; never answered. */
    record Ping() implements FromClient, FromServer {
        /** The one instance; a ping has no fields. */
        public static final Ping INSTANCE = new Ping();

        public FrameType type() {
            return FrameType.PING;
        }

        public void handleWith(ClientFrameHandler handler) {
            handler.onPing(this);
        }

        public void handleWith(ServerFrameHandler handler) {
            handler.onPing(this);
        }

        public void writePayload(ByteBuf out) {
        }

        /** Reads the payload {@link #writePayload} wrote. */
        public static Ping read(ByteBuf in) {
            return INSTANCE;
        }
    }

    /** Server → client: the request with this id succeeded. */
    record Ok(int requestId) implements FromServer {
        public FrameType type() {
            return FrameType.OK;
        }

        public void handleWith(ServerFrameHandler handler) {
            handler.onOk(this);
        }

        public void writePayload(ByteBuf out) {
            out.writeInt(requestId);
        }

        /** Reads the payload {@link #writePayload} wrote. */
        public static Ok read(ByteBuf in) {
            return new Ok(in.readInt());
        }
    }

    /**
     * Server → client: a request failed. {@code requestId} 0 reports the failure of a fire-and-forget request
     * (sessionId/producerId say whose) or a connection-level problem.
     */
    record Error(int requestId, ErrorCode code, String message, int sessionId, int producerId) implements FromServer {
        public FrameType type() {
            return FrameType.ERROR;
        }

        public void handleWith(ServerFrameHandler handler) {
            handler.onError(this);
        }

        public void writePayload(ByteBuf out) {
            out.writeInt(requestId);
            out.writeShort(code.code());
            WireStrings.write(out, message);
            out.writeInt(sessionId);
            out.writeInt(producerId);
        }

        /** Reads the payload {@link #writePayload} wrote. */
        public static Error read(ByteBuf in) {
            return new Error(in.readInt(), ErrorCode.of(in.readShort()), WireStrings.read(in), in.readInt(), in.readInt());
        }
    }

    /** Client → server: close the connection in order; the server answers OK, then the client closes the socket. */
    record Close(int requestId) implements FromClient {
        public FrameType type() {
            return FrameType.CLOSE;
        }

        public void handleWith(ClientFrameHandler handler) {
            handler.onClose(this);
        }

        public void writePayload(ByteBuf out) {
            out.writeInt(requestId);
        }

        /** Reads the payload {@link #writePayload} wrote. */
        public static Close read(ByteBuf in) {
            return new Close(in.readInt());
        }
    }

    /**
     * Client → server, before anything else the connection does: the connection key, {@link
     * org.wharfmq.protocol.TemporaryNames#KEY_BYTES} random bytes the client draws once per JMS connection and
     * presents on every TCP connection it makes for it (the first and each reconnection). The key gives the connection
     * its temporary namespace ({@link org.wharfmq.protocol.TemporaryNames#namespace}): CREATE_TEMPORARY names
     * nothing outside it. When a live connection of the server holds the same key (the client's previous connection,
     * which the client has left but the server has not yet found dead), the server closes that one first, as if it
     * had dropped, and hands its temporary destinations, with their messages, to this one. Answered OK once that is
     * done; ILLEGAL_STATE for a key of the wrong length or a second claim; NOT_AUTHORISED when the holder is logged in
     * as another user. {@link #toString()} never shows the key.
     */
    record ClaimKey(int requestId, byte[] key) implements FromClient {
        public FrameType type() {
            return FrameType.CLAIM_KEY;
        }

        public void handleWith(ClientFrameHandler handler) {
            handler.onClaimKey(this);
        }

        public void writePayload(ByteBuf out) {
            out.writeInt(requestId);
            WireBytes.write(out, key);
        }

        /** Reads the payload {@link #writePayload} wrote. */
        public static ClaimKey read(ByteBuf in) {
            return new ClaimKey(in.readInt(), WireBytes.read(in));
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof ClaimKey c && c.requestId == requestId && java.util.Arrays.equals(key, c.key);
        }

        @Override
        public int hashCode() {
            return requestId * 31 + java.util.Arrays.hashCode(key);
        }

        @Override
        public String toString() {
            return "ClaimKey[" + requestId + ", " + key.length + " bytes]";
        }
    }

    /**
     * Client → server: the connection's JMS client ID. Allowed only before any session exists on the connection
     * (else ILLEGAL_STATE) and only once; a client ID another connection of the server holds is refused with
     * INVALID_CLIENT_ID. Durable subscriptions are named within the client ID.
     */
    record SetClientId(int requestId, String clientId) implements FromClient {
        public FrameType type() {
            return FrameType.SET_CLIENT_ID;
        }

        public void handleWith(ClientFrameHandler handler) {
            handler.onSetClientId(this);
        }

        public void writePayload(ByteBuf out) {
            out.writeInt(requestId);
            WireStrings.write(out, clientId);
        }

        /** Reads the payload {@link #writePayload} wrote. */
        public static SetClientId read(ByteBuf in) {
            return new SetClientId(in.readInt(), WireStrings.read(in));
        }
    }

    // ---- sessions, producers, consumers (ids are chosen by the client and unique per connection) ----

    /**
     * {@link CreateSession#ackMode()} of an XA session (not a JMS constant): not transacted, acknowledging automatically
     * outside an XA transaction branch; inside one ({@link XaStart} to {@link XaEnd}) its sends belong to the branch
     * and what it consumes is handed to the branch by the XA_END.
     */
    int SESSION_XA = 64;

    /**
     * Client → server. {@code ackMode} uses the JMS Session constants, or {@link #SESSION_XA}; ignored when
     * transacted.
     */
    record CreateSession(int requestId, int sessionId, boolean transacted, int ackMode) implements FromClient {
        public FrameType type() {
            return FrameType.CREATE_SESSION;
        }

        public void handleWith(ClientFrameHandler handler) {
            handler.onCreateSession(this);
        }

        public void writePayload(ByteBuf out) {
            out.writeInt(requestId);
            out.writeInt(sessionId);
            out.writeBoolean(transacted);
            out.writeByte(ackMode);
        }

        /** Reads the payload {@link #writePayload} wrote. */
        public static CreateSession read(ByteBuf in) {
            return new CreateSession(in.readInt(), in.readInt(), in.readBoolean(), in.readByte());
        }
    }

    /** Client → server: close a session; its unacknowledged deliveries return to their queues. */
    record CloseSession(int requestId, int sessionId) implements FromClient {
        public FrameType type() {
            return FrameType.CLOSE_SESSION;
        }

        public void handleWith(ClientFrameHandler handler) {
            handler.onCloseSession(this);
        }

        public void writePayload(ByteBuf out) {
            out.writeInt(requestId);
            out.writeInt(sessionId);
        }

        /** Reads the payload {@link #writePayload} wrote. */
        public static CloseSession read(ByteBuf in) {
            return new CloseSession(in.readInt(), in.readInt());
        }
    }

    /** Client → server: a producer, so that an unknown destination is reported when it is created. Destination null = anonymous producer. */
    record CreateProducer(int requestId, int sessionId, int producerId, WireDestination destination) implements FromClient {
        public FrameType type() {
            return FrameType.CREATE_PRODUCER;
        }

        public void handleWith(ClientFrameHandler handler) {
            handler.onCreateProducer(this);
        }

        public void writePayload(ByteBuf out) {
            out.writeInt(requestId);
            out.writeInt(sessionId);
            out.writeInt(producerId);
            WireDestination.write(out, destination);
        }

        /** Reads the payload {@link #writePayload} wrote. */
        public static CreateProducer read(ByteBuf in) {
            return new CreateProducer(in.readInt(), in.readInt(), in.readInt(), WireDestination.read(in));
        }
    }

    /** Client → server: the producer is closed. */
    record CloseProducer(int requestId, int sessionId, int producerId) implements FromClient {
        public FrameType type() {
            return FrameType.CLOSE_PRODUCER;
        }

        public void handleWith(ClientFrameHandler handler) {
            handler.onCloseProducer(this);
        }

        public void writePayload(ByteBuf out) {
            out.writeInt(requestId);
            out.writeInt(sessionId);
            out.writeInt(producerId);
        }

        /** Reads the payload {@link #writePayload} wrote. */
        public static CloseProducer read(ByteBuf in) {
            return new CloseProducer(in.readInt(), in.readInt(), in.readInt());
        }
    }

    /** Bit of {@link CreateConsumer#flags()}: do not deliver messages published by this connection. */
    int CONSUMER_NO_LOCAL = 1;
    /** Bit of {@link CreateConsumer#flags()}: the subscription is durable. */
    int CONSUMER_DURABLE = 2;
    /** Bit of {@link CreateConsumer#flags()}: the subscription is shared. */
    int CONSUMER_SHARED = 4;
    /**
     * Bit of {@link CreateConsumer#flags()}: a queue browser, which sees messages without consuming them. Its
     * {@code windowBytes} bounds it as a consumer's does; the server settles it by its CREDITs' counts (the oldest
     * messages shown first), so it takes no {@code settledBytes}, and gives one that asks for none the server's cap.
     */
    int CONSUMER_BROWSER = 8;
    /**
     * Bit of {@link CreateConsumer#flags()}: the client's connection is stopped (never started yet), so the consumer
     * starts with no credit; its {@code credit} is its window all the same (what a rollback restores), and the client
     * sends it as CREDIT when the connection starts. A stopped connection's consumer so takes no message from the
     * queue's other consumers.
     */
    int CONSUMER_STOPPED = 16;

    /**
     * Client → server: start a consumer with {@code credit} messages of prefetch and, when {@code windowBytes} is not
     * 0, at most about that many bytes of messages (their encoded lengths, as DELIVER carries them) sent and not yet
     * settled by CREDIT: the server sends one more message only while the consumer holds fewer bytes, so at least one
     * whatever its size (docs/protocol.md, "Consuming"). 0: messages alone bound it. May be sent with request id 0
     * (no answer) so that a consumer used for one reply costs no round trip; errors then arrive as an ERROR
     * with request id 0 and are raised on the consumer's next receive.
     *
     * <p>{@code windowBytes} is an optional trailing int, written only when not 0, and only on a connection of
     * {@link org.wharfmq.protocol.ProtocolVersion#CONSUMER_WINDOW_BYTES} or later: without it the frame is byte for
     * byte a version 2 CREATE_CONSUMER. Negative is malformed.
     */
    record CreateConsumer(int requestId, int sessionId, int consumerId, WireDestination destination, String selector,
                          int credit, int flags, String subscriptionName, int windowBytes) implements FromClient {

        /** A CREATE_CONSUMER bounded by messages alone. */
        public CreateConsumer(int requestId, int sessionId, int consumerId, WireDestination destination,
                              String selector, int credit, int flags, String subscriptionName) {
            this(requestId, sessionId, consumerId, destination, selector, credit, flags, subscriptionName, 0);
        }

        public CreateConsumer {
            if (windowBytes < 0) {
                throw new MalformedFrameException("CREATE_CONSUMER windowBytes " + windowBytes + " is negative (0: no"
                        + " bound in bytes)");
            }
        }

        /** This frame with {@code windowBytes} in place of its own (the server's cap). */
        public CreateConsumer withWindowBytes(int windowBytes) {
            return new CreateConsumer(requestId, sessionId, consumerId, destination, selector, credit, flags,
                    subscriptionName, windowBytes);
        }

        public FrameType type() {
            return FrameType.CREATE_CONSUMER;
        }

        public void handleWith(ClientFrameHandler handler) {
            handler.onCreateConsumer(this);
        }

        public void writePayload(ByteBuf out) {
            out.writeInt(requestId);
            out.writeInt(sessionId);
            out.writeInt(consumerId);
            WireDestination.write(out, destination);
            WireStrings.write(out, selector);
            out.writeInt(credit);
            out.writeInt(flags);
            WireStrings.write(out, subscriptionName);
            if (windowBytes != 0) {
                out.writeInt(windowBytes);
            }
        }

        /** Reads the payload {@link #writePayload} wrote. */
        public static CreateConsumer read(ByteBuf in) {
            return new CreateConsumer(in.readInt(), in.readInt(), in.readInt(), WireDestination.read(in),
                    WireStrings.read(in), in.readInt(), in.readInt(), WireStrings.read(in),
                    in.isReadable() ? in.readInt() : 0);
        }
    }

    /**
     * Client → server: stop a consumer. Deliveries to it with an id above {@code lastConsumedDeliveryId} never
     * reached the application and go back to the queue as they were (not marked redelivered); those at or below
     * stay with the session until acknowledged, committed or rolled back.
     */
    record CloseConsumer(int requestId, int sessionId, int consumerId, long lastConsumedDeliveryId) implements FromClient {
        public FrameType type() {
            return FrameType.CLOSE_CONSUMER;
        }

        public void handleWith(ClientFrameHandler handler) {
            handler.onCloseConsumer(this);
        }

        public void writePayload(ByteBuf out) {
            out.writeInt(requestId);
            out.writeInt(sessionId);
            out.writeInt(consumerId);
            out.writeLong(lastConsumedDeliveryId);
        }

        /** Reads the payload {@link #writePayload} wrote. */
        public static CloseConsumer read(ByteBuf in) {
            return new CloseConsumer(in.readInt(), in.readInt(), in.readInt(), in.readLong());
        }
    }

    /**
     * Client → server: the consumer may be sent {@code credit} more messages, and {@code settledBytes} bytes of the
     * messages it was sent (their encoded lengths, as DELIVER carried them) are settled: no longer held against its
     * {@link CreateConsumer#windowBytes()}. The server never counts more settled than it sent: what a client returns
     * beyond that is ignored, so its window stays within what the server allowed.
     *
     * <p>{@code settledBytes} is an optional trailing long, written only when not 0 (so only by a consumer with a
     * window in bytes, on a connection of {@link org.wharfmq.protocol.ProtocolVersion#CONSUMER_WINDOW_BYTES} or
     * later): without it the frame is byte for byte a version 2 CREDIT. Negative is malformed. A browser's CREDIT
     * needs none (its count settles the oldest messages shown) and one is ignored.
     */
    record Credit(int consumerId, int credit, long settledBytes) implements FromClient {

        /** A CREDIT of messages alone. */
        public Credit(int consumerId, int credit) {
            this(consumerId, credit, 0);
        }

        public Credit {
            if (settledBytes < 0) {
                throw new MalformedFrameException("CREDIT settledBytes " + settledBytes + " is negative");
            }
        }

        public FrameType type() {
            return FrameType.CREDIT;
        }

        public void handleWith(ClientFrameHandler handler) {
            handler.onCredit(this);
        }

        public void writePayload(ByteBuf out) {
            out.writeInt(consumerId);
            out.writeInt(credit);
            if (settledBytes != 0) {
                out.writeLong(settledBytes);
            }
        }

        /** Reads the payload {@link #writePayload} wrote. */
        public static Credit read(ByteBuf in) {
            return new Credit(in.readInt(), in.readInt(), in.isReadable() ? in.readLong() : 0);
        }
    }

    /**
     * Client → server: deliver one matching message now if the queue has one, even without credit, then answer
     * {@link PullDone}. Because a connection's frames are handled in order, a client that sees PULL_DONE before a
     * message knows the queue had none: this makes {@code receiveNoWait} exact.
     */
    record Pull(int consumerId, long pullId) implements FromClient {
        public FrameType type() {
            return FrameType.PULL;
        }

        public void handleWith(ClientFrameHandler handler) {
            handler.onPull(this);
        }

        public void writePayload(ByteBuf out) {
            out.writeInt(consumerId);
            out.writeLong(pullId);
        }

        /** Reads the payload {@link #writePayload} wrote. */
        public static Pull read(ByteBuf in) {
            return new Pull(in.readInt(), in.readLong());
        }
    }

    /** Server → client: answer to {@link Pull}, sent after any message the pull delivered. */
    record PullDone(int consumerId, long pullId) implements FromServer {
        public FrameType type() {
            return FrameType.PULL_DONE;
        }

        public void handleWith(ServerFrameHandler handler) {
            handler.onPullDone(this);
        }

        public void writePayload(ByteBuf out) {
            out.writeInt(consumerId);
            out.writeLong(pullId);
        }

        /** Reads the payload {@link #writePayload} wrote. */
        public static PullDone read(ByteBuf in) {
            return new PullDone(in.readInt(), in.readLong());
        }
    }

    /**
     * Server → client: a consumer created without waiting ({@link CreateConsumer} with request id 0) could not be
     * created (the queue no longer exists, say). The client raises the error from that consumer's next receive.
     */
    record ConsumerFailed(int consumerId, ErrorCode code, String message) implements FromServer {
        public FrameType type() {
            return FrameType.CONSUMER_FAILED;
        }

        public void handleWith(ServerFrameHandler handler) {
            handler.onConsumerFailed(this);
        }

        public void writePayload(ByteBuf out) {
            out.writeInt(consumerId);
            out.writeShort(code.code());
            WireStrings.write(out, message);
        }

        /** Reads the payload {@link #writePayload} wrote. */
        public static ConsumerFailed read(ByteBuf in) {
            return new ConsumerFailed(in.readInt(), ErrorCode.of(in.readShort()), WireStrings.read(in));
        }
    }

    /**
     * Server → client: the producers of session {@code sessionId} may send {@code bytes} more bytes of messages (the
     * encoded messages' lengths, as SEND carries them). Producer flow control: the server sends the session's first
     * window before answering CREATE_SESSION, then returns credit as it takes the session's SENDs, in batches of half
     * the window, and holds it back while a destination the session sent to is over its memory budget with the
     * policy block. A session whose credit is spent waits before its next SEND (docs/resilience.md).
     */
    record ProducerCredit(int sessionId, int bytes) implements FromServer {
        public FrameType type() {
            return FrameType.PRODUCER_CREDIT;
        }

        public void handleWith(ServerFrameHandler handler) {
            handler.onProducerCredit(this);
        }

        public void writePayload(ByteBuf out) {
            out.writeInt(sessionId);
            out.writeInt(bytes);
        }

        /** Reads the payload {@link #writePayload} wrote. */
        public static ProducerCredit read(ByteBuf in) {
            return new ProducerCredit(in.readInt(), in.readInt());
        }
    }

    // ---- messages ----

    /**
     * Client → server: a message (encoded as described in {@link org.wharfmq.protocol.message.MessageEncoding})
     * for the destination named inside it. Request id 0 sends without waiting; a non-zero id is answered once
     * the message is accepted (and, for persistent messages, safely stored). A message whose encoding is broken is
     * refused with {@link ErrorCode#MALFORMED_MESSAGE}; the connection stays open.
     */
    record Send(int requestId, int sessionId, int producerId, ByteBuf message) implements FromClient {
        public FrameType type() {
            return FrameType.SEND;
        }

        public void handleWith(ClientFrameHandler handler) {
            handler.onSend(this);
        }

        public void writePayload(ByteBuf out) {
            out.writeInt(requestId);
            out.writeInt(sessionId);
            out.writeInt(producerId);
        }

        /** Reads the payload {@link #writePayload} wrote; the message is a retained slice of {@code in}. */
        public static Send read(ByteBuf in) {
            int requestId = in.readInt();
            int sessionId = in.readInt();
            int producerId = in.readInt();
            return new Send(requestId, sessionId, producerId, in.readRetainedSlice(in.readableBytes()));
        }
    }

    /**
     * Server → client: a message for a consumer. {@code deliveryId} increases within the session and is what
     * acknowledgements name; {@code deliveryCount} is JMSXDeliveryCount (1 on first delivery; more than 1 means
     * JMSRedelivered). The message bytes are exactly those the producer sent.
     */
    record Deliver(int consumerId, long deliveryId, int deliveryCount, ByteBuf message) implements FromServer {
        public FrameType type() {
            return FrameType.DELIVER;
        }

        public void handleWith(ServerFrameHandler handler) {
            handler.onDeliver(this);
        }

        public void writePayload(ByteBuf out) {
            writePayload(out, consumerId, deliveryId, deliveryCount);
        }

        private static void writePayload(ByteBuf out, int consumerId, long deliveryId, int deliveryCount) {
            out.writeInt(consumerId);
            out.writeLong(deliveryId);
            out.writeInt(deliveryCount);
        }

        /**
         * Appends a whole DELIVER frame to {@code out} without making one: the bytes the encoder writes for
         * {@code new Deliver(consumerId, deliveryId, deliveryCount, message)}, the message's readable bytes copied
         * (neither read nor released).
         */
        public static void writeFrame(ByteBuf out, int consumerId, long deliveryId, int deliveryCount, ByteBuf message) {
            int length = message.readableBytes();
            out.writeInt(frameLength(length) - 4); // the length field counts what follows it
            out.writeByte(FrameType.DELIVER.code());
            writePayload(out, consumerId, deliveryId, deliveryCount);
            out.writeBytes(message, message.readerIndex(), length);
        }

        /** Bytes {@link #writeFrame} appends for a message of {@code messageLength} bytes. */
        public static int frameLength(int messageLength) {
            return 4 + 1 + 4 + 8 + 4 + messageLength;
        }

        /**
         * Reads the payload {@link #writePayload} wrote; the message is a slice of {@code in} that counts on
         * {@code in}'s references (retained once for it, released with it). Not {@code readRetainedSlice}: of a pooled
         * buffer that is a pooled slice of its own, taken from the reading thread's recycler and given back by the
         * thread that consumes the message, a client's application thread (a sixth of a PS-N subscriber's CPU).
         */
        public static Deliver read(ByteBuf in) {
            int consumerId = in.readInt();
            long deliveryId = in.readLong();
            int deliveryCount = in.readInt();
            return new Deliver(consumerId, deliveryId, deliveryCount, in.readSlice(in.readableBytes()).retain());
        }

        /** Bytes of a DELIVER frame before its message: the type byte, consumer id, delivery id and count. */
        private static final int MESSAGE_OFFSET = 1 + 4 + 8 + 4;

        /**
         * The frame of {@code length} bytes (type byte and payload) at {@code start} of {@code in} when it is a DELIVER
         * of a BytesMessage, its message copied into an array of its own ({@link FrameArray}) that its body can stay in
         * once decoded; else null. {@code in} is left as it was.
         *
         * <p>Why: a message sliced from a client's read buffer holds that buffer (a count on it, taken by the reading
         * thread and given back by the consuming one) until it is decoded, and the decoding copies the body out again.
         * A consumer that falls behind its link's reads keeps every read buffer it has messages in from being reused:
         * the link moved on to a fresh 64 KiB pooled buffer each time (docs/performance-log.md, session 32). A copy of
         * its own is the one copy of the message, held by nothing else, and which stays readable for as long as the
         * application keeps the message (after its acknowledgement and the close of its session or connection, as JMS
         * allows), with no buffer to give back.
         */
        public static Deliver readIntoOwnArray(ByteBuf in, int start, int length) {
            if (length <= MESSAGE_OFFSET || in.getByte(start) != FrameType.DELIVER.code()
                    || in.getByte(start + MESSAGE_OFFSET) != BodyType.BYTES.code()) {
                return null;
            }
            return new Deliver(in.getInt(start + 1), in.getLong(start + 5), in.getInt(start + 13),
                    FrameArray.copyOf(in, start + MESSAGE_OFFSET, length - MESSAGE_OFFSET));
        }
    }

    /**
     * Server → client, on a connection whose client keeps messages ({@link ShareDeliveries}): a DELIVER whose message
     * the client also keeps in {@code slot} (0 to the client's count less one), replacing what the slot held, for the
     * {@link DeliverSame} frames after it that name the slot. The client hands it on as the {@link Deliver} it stands
     * for. The server sends one for a short BytesMessage it may deliver to more of the connection's consumers
     * (docs/protocol.md, "Shared deliveries").
     */
    record DeliverKeep(int consumerId, long deliveryId, int deliveryCount, int slot, ByteBuf message)
            implements FromServer {
        /** Bytes of a DELIVER_KEEP frame before its message: the type byte, consumer id, delivery id, count and slot. */
        private static final int MESSAGE_OFFSET = 1 + 4 + 8 + 4 + 1;

        public DeliverKeep {
            checkSlot(slot);
        }

        public FrameType type() {
            return FrameType.DELIVER_KEEP;
        }

        /** Handled as the DELIVER it stands for (a link that keeps messages reads it with {@link #readKept}). */
        public void handleWith(ServerFrameHandler handler) {
            handler.onDeliver(new Deliver(consumerId, deliveryId, deliveryCount, message));
        }

        public void writePayload(ByteBuf out) {
            Deliver.writePayload(out, consumerId, deliveryId, deliveryCount);
            out.writeByte(slot);
        }

        /** Appends a whole DELIVER_KEEP frame to {@code out}, the message's readable bytes copied (not released). */
        public static void writeFrame(ByteBuf out, int consumerId, long deliveryId, int deliveryCount, int slot,
                                      ByteBuf message) {
            int length = message.readableBytes();
            out.writeInt(frameLength(length) - 4);
            out.writeByte(FrameType.DELIVER_KEEP.code());
            Deliver.writePayload(out, consumerId, deliveryId, deliveryCount);
            out.writeByte(slot);
            out.writeBytes(message, message.readerIndex(), length);
        }

        /** Bytes {@link #writeFrame} appends for a message of {@code messageLength} bytes. */
        public static int frameLength(int messageLength) {
            return 4 + MESSAGE_OFFSET + messageLength;
        }

        /** Reads the payload {@link #writePayload} wrote; the message a retained slice of {@code in}, as DELIVER's. */
        public static DeliverKeep read(ByteBuf in) {
            return new DeliverKeep(in.readInt(), in.readLong(), in.readInt(), in.readUnsignedByte(),
                    in.readSlice(in.readableBytes()).retain());
        }

        /**
         * The DELIVER_KEEP frame of {@code length} bytes (type byte and payload) at {@code start} of {@code in} as the
         * DELIVER it stands for, its message copied into an array of its own ({@link FrameArray}, which nothing writes
         * again), which {@code kept} then holds in the frame's slot. {@code in} is left as it was.
         *
         * @throws MalformedFrameException when the frame is shorter than its fields or names a slot past {@code kept}
         */
        public static Deliver readKept(ByteBuf in, int start, int length, byte[][] kept) {
            if (length < MESSAGE_OFFSET) {
                throw new MalformedFrameException("DELIVER_KEEP frame is truncated: " + length + " bytes, its fields"
                        + " take " + MESSAGE_OFFSET);
            }
            int slot = in.getUnsignedByte(start + MESSAGE_OFFSET - 1);
            if (slot >= kept.length) {
                throw new MalformedFrameException("DELIVER_KEEP names slot " + slot + ", but this client keeps "
                        + kept.length + " messages (its SHARE_DELIVERIES)");
            }
            ByteBuf message = FrameArray.copyOf(in, start + MESSAGE_OFFSET, length - MESSAGE_OFFSET);
            kept[slot] = message.array();
            return new Deliver(in.getInt(start + 1), in.getLong(start + 5), in.getInt(start + 13), message);
        }
    }

    /**
     * Server → client, on a connection whose client keeps messages ({@link ShareDeliveries}): a DELIVER of the message
     * the last {@link DeliverKeep} naming {@code slot} carried, which the server does not send again. The client hands
     * it on as the {@link Deliver} it stands for.
     */
    record DeliverSame(int consumerId, long deliveryId, int deliveryCount, int slot) implements FromServer {
        /** Bytes of a whole DELIVER_SAME frame, its length field included. */
        public static final int FRAME_BYTES = 4 + 1 + 4 + 8 + 4 + 1;

        public DeliverSame {
            checkSlot(slot);
        }

        public FrameType type() {
            return FrameType.DELIVER_SAME;
        }

        /** Never handed on as it is: only a link that keeps messages can read it ({@link #readKept}). */
        public void handleWith(ServerFrameHandler handler) {
            throw new MalformedFrameException("DELIVER_SAME names kept slot " + slot + ", but this link keeps no"
                    + " messages: it never sent SHARE_DELIVERIES");
        }

        public void writePayload(ByteBuf out) {
            Deliver.writePayload(out, consumerId, deliveryId, deliveryCount);
            out.writeByte(slot);
        }

        /** Appends a whole DELIVER_SAME frame to {@code out}. */
        public static void writeFrame(ByteBuf out, int consumerId, long deliveryId, int deliveryCount, int slot) {
            out.writeInt(FRAME_BYTES - 4);
            out.writeByte(FrameType.DELIVER_SAME.code());
            Deliver.writePayload(out, consumerId, deliveryId, deliveryCount);
            out.writeByte(slot);
        }

        /** Reads the payload {@link #writePayload} wrote. */
        public static DeliverSame read(ByteBuf in) {
            return new DeliverSame(in.readInt(), in.readLong(), in.readInt(), in.readUnsignedByte());
        }

        /**
         * The DELIVER_SAME frame of {@code length} bytes (type byte and payload) at {@code start} of {@code in} as the
         * DELIVER it stands for: its message the array {@code kept} holds in the frame's slot, shared, not copied (no
         * one writes it: {@link FrameArray}). {@code in} is left as it was.
         *
         * @throws MalformedFrameException when the frame is not as long as its fields or names a slot no
         *                                 {@link DeliverKeep} filled
         */
        public static Deliver readKept(ByteBuf in, int start, int length, byte[][] kept) {
            if (length != FRAME_BYTES - 4) {
                throw new MalformedFrameException("DELIVER_SAME frame has " + length + " bytes; its fields take "
                        + (FRAME_BYTES - 4));
            }
            int slot = in.getUnsignedByte(start + FRAME_BYTES - 5);
            byte[] message = slot < kept.length ? kept[slot] : null;
            if (message == null) {
                throw new MalformedFrameException("DELIVER_SAME names slot " + slot + ", which no DELIVER_KEEP filled");
            }
            return new Deliver(in.getInt(start + 1), in.getLong(start + 5), in.getInt(start + 13), FrameArray.of(message));
        }
    }

    /**
     * Client → server, on a version 3 connection whose HELLO_OK offered it ({@link HelloOk#SHARED_DELIVERIES}): the
     * client keeps the messages of the last DELIVER_KEEP frames, one per slot, {@code slots} of them
     * (1 to {@link #MAX_SLOTS}), so the server may send a message delivered to several of its consumers once
     * ({@link DeliverKeep}, {@link DeliverSame}). Fire-and-forget; sent before any consumer is created.
     */
    record ShareDeliveries(int slots) implements FromClient {
        /** The most slots a client may keep. */
        public static final int MAX_SLOTS = 64;

        public FrameType type() {
            return FrameType.SHARE_DELIVERIES;
        }

        public void handleWith(ClientFrameHandler handler) {
            handler.onShareDeliveries(this);
        }

        public void writePayload(ByteBuf out) {
            out.writeInt(slots);
        }

        /** Reads the payload {@link #writePayload} wrote. */
        public static ShareDeliveries read(ByteBuf in) {
            return new ShareDeliveries(in.readInt());
        }
    }

    /** A kept-message slot fits its byte and the most a client keeps. */
    private static void checkSlot(int slot) {
        if (slot < 0 || slot >= ShareDeliveries.MAX_SLOTS) {
            throw new MalformedFrameException("kept-message slot " + slot + " is outside 0 to "
                    + (ShareDeliveries.MAX_SLOTS - 1));
        }
    }

    /**
     * Client → server: the client cannot decode this delivery, so it cannot hand it to the application. The server
     * takes it from the consumer's unacknowledged deliveries and moves it to the dead-letter queue with
     * {@code reason}; later acknowledgements that cover its delivery id leave it there. Fire-and-forget.
     */
    record Reject(int consumerId, long deliveryId, String reason) implements FromClient {
        public FrameType type() {
            return FrameType.REJECT;
        }

        public void handleWith(ClientFrameHandler handler) {
            handler.onReject(this);
        }

        public void writePayload(ByteBuf out) {
            out.writeInt(consumerId);
            out.writeLong(deliveryId);
            WireStrings.write(out, reason);
        }

        /** Reads the payload {@link #writePayload} wrote. */
        public static Reject read(ByteBuf in) {
            return new Reject(in.readInt(), in.readLong(), WireStrings.read(in));
        }
    }

    /** How far the application has consumed from one consumer: all its deliveries up to and including the id. */
    record Consumed(int consumerId, long lastDeliveryId) {
    }

    /** Client → server: acknowledge, for each listed consumer, every delivery up to the given id. */
    record Ack(int requestId, int sessionId, List<Consumed> consumed) implements FromClient {
        public FrameType type() {
            return FrameType.ACK;
        }

        public void handleWith(ClientFrameHandler handler) {
            handler.onAck(this);
        }

        public void writePayload(ByteBuf out) {
            out.writeInt(requestId);
            out.writeInt(sessionId);
            Codec.writeConsumed(out, consumed);
        }

        /** Reads the payload {@link #writePayload} wrote. */
        public static Ack read(ByteBuf in) {
            return new Ack(in.readInt(), in.readInt(), Codec.readConsumed(in));
        }
    }

    /**
     * Client → server: commit the session's transaction: its sends become visible and the listed consumed
     * deliveries are acknowledged. Deliveries prefetched but not consumed stay with the session.
     */
    record Commit(int requestId, int sessionId, List<Consumed> consumed) implements FromClient {
        public FrameType type() {
            return FrameType.COMMIT;
        }

        public void handleWith(ClientFrameHandler handler) {
            handler.onCommit(this);
        }

        public void writePayload(ByteBuf out) {
            out.writeInt(requestId);
            out.writeInt(sessionId);
            Codec.writeConsumed(out, consumed);
        }

        /** Reads the payload {@link #writePayload} wrote. */
        public static Commit read(ByteBuf in) {
            return new Commit(in.readInt(), in.readInt(), Codec.readConsumed(in));
        }
    }

    /**
     * Client → server: roll back a transaction, or recover a non-transacted session. Pending sends are dropped and
     * every unacknowledged delivery of the session goes back to its queue in order; the listed consumed ones come
     * back with their delivery count increased. The consumers' credit restarts at their initial window, and the
     * client discards any delivery for the session that arrives before the OK.
     */
    record Rollback(int requestId, int sessionId, List<Consumed> consumed) implements FromClient {
        public FrameType type() {
            return FrameType.ROLLBACK;
        }

        public void handleWith(ClientFrameHandler handler) {
            handler.onRollback(this);
        }

        public void writePayload(ByteBuf out) {
            out.writeInt(requestId);
            out.writeInt(sessionId);
            Codec.writeConsumed(out, consumed);
        }

        /** Reads the payload {@link #writePayload} wrote. */
        public static Rollback read(ByteBuf in) {
            return new Rollback(in.readInt(), in.readInt(), Codec.readConsumed(in));
        }
    }

    /**
     * Client → server: delete the durable subscription {@code subscriptionName} of this connection's client ID
     * (none when unset) and the messages it holds. UNKNOWN_DESTINATION when there is no such durable subscription,
     * ILLEGAL_STATE while a consumer is open on it.
     */
    record Unsubscribe(int requestId, String subscriptionName) implements FromClient {
        public FrameType type() {
            return FrameType.UNSUBSCRIBE;
        }

        public void handleWith(ClientFrameHandler handler) {
            handler.onUnsubscribe(this);
        }

        public void writePayload(ByteBuf out) {
            out.writeInt(requestId);
            WireStrings.write(out, subscriptionName);
        }

        /** Reads the payload {@link #writePayload} wrote. */
        public static Unsubscribe read(ByteBuf in) {
            return new Unsubscribe(in.readInt(), WireStrings.read(in));
        }
    }

    // ---- temporary destinations ----

    /**
     * Client → server: create a temporary queue or topic (kind 3 or 4) under the name the client chose, inside the
     * connection's temporary namespace ({@code TMP.<namespace of its key>.<n>}, see {@link ClaimKey}). It belongs to
     * this connection: only its consumers may read it, and it is deleted with the connection. Answered OK (also when
     * the connection already has it, handed over by CLAIM_KEY), NOT_AUTHORISED for a name outside the namespace or
     * before CLAIM_KEY, or ILLEGAL_STATE when another connection has the name.
     */
    record CreateTemporary(int requestId, WireDestination destination) implements FromClient {
        public FrameType type() {
            return FrameType.CREATE_TEMPORARY;
        }

        public void handleWith(ClientFrameHandler handler) {
            handler.onCreateTemporary(this);
        }

        public void writePayload(ByteBuf out) {
            out.writeInt(requestId);
            WireDestination.write(out, destination);
        }

        /** Reads the payload {@link #writePayload} wrote. */
        public static CreateTemporary read(ByteBuf in) {
            return new CreateTemporary(in.readInt(), Codec.temporary(WireDestination.read(in), FrameType.CREATE_TEMPORARY));
        }
    }

    /**
     * Client → server: delete a temporary destination of this connection. Answered OK, or ILLEGAL_STATE when it
     * still has consumers or belongs to another connection, or UNKNOWN_DESTINATION when it no longer exists.
     */
    record DeleteTemporary(int requestId, WireDestination destination) implements FromClient {
        public FrameType type() {
            return FrameType.DELETE_TEMPORARY;
        }

        public void handleWith(ClientFrameHandler handler) {
            handler.onDeleteTemporary(this);
        }

        public void writePayload(ByteBuf out) {
            out.writeInt(requestId);
            WireDestination.write(out, destination);
        }

        /** Reads the payload {@link #writePayload} wrote. */
        public static DeleteTemporary read(ByteBuf in) {
            return new DeleteTemporary(in.readInt(), Codec.temporary(WireDestination.read(in), FrameType.DELETE_TEMPORARY));
        }
    }

    // ---- XA transaction branches (docs/protocol.md, "XA") ----

    /** {@link XaStart#flags()}: a new branch. The values are {@code javax.transaction.xa.XAResource}'s. */
    int XA_NOFLAGS = 0;
    /** {@link XaStart#flags()}: join a branch that exists (another session's, perhaps on another connection). */
    int XA_JOIN = 0x200000;
    /** {@link XaStart#flags()}: resume the association this session suspended. */
    int XA_RESUME = 0x8000000;
    /** {@link XaEnd#flags()}: the work is done, and may be committed. */
    int XA_SUCCESS = 0x4000000;
    /** {@link XaEnd#flags()}: the work failed: the branch is rollback-only. */
    int XA_FAIL = 0x20000000;
    /** {@link XaEnd#flags()}: suspend the association, to be resumed by this session. */
    int XA_SUSPEND = 0x2000000;
    /** {@link XaResult#result()}: a prepare that must be followed by commit or rollback; every other answer. */
    int XA_OK = 0;
    /** {@link XaResult#result()}: a prepare of a branch that did nothing: it is over, and forgotten. */
    int XA_RDONLY = 3;

    /**
     * Client → server: associate XA session {@code sessionId} with branch {@code xid}: a new one ({@link #XA_NOFLAGS}),
     * one that exists ({@link #XA_JOIN}) or the one it suspended ({@link #XA_RESUME}). Until its XA_END the session's
     * sends belong to the branch. {@code timeoutSeconds} is the branch's transaction timeout (0: the server's default),
     * after which a branch not yet prepared is rolled back. Answered OK, or ERROR with an XA code (XAER_DUPID, XAER_NOTA,
     * XAER_PROTO, XAER_INVAL).
     */
    record XaStart(int requestId, int sessionId, WireXid xid, int flags, int timeoutSeconds) implements FromClient {
        public FrameType type() {
            return FrameType.XA_START;
        }

        public void handleWith(ClientFrameHandler handler) {
            handler.onXaStart(this);
        }

        public void writePayload(ByteBuf out) {
            out.writeInt(requestId);
            out.writeInt(sessionId);
            xid.write(out);
            out.writeInt(flags);
            out.writeInt(timeoutSeconds);
        }

        /** Reads the payload {@link #writePayload} wrote. */
        public static XaStart read(ByteBuf in) {
            return new XaStart(in.readInt(), in.readInt(), WireXid.read(in), in.readInt(), in.readInt());
        }
    }

    /**
     * Client → server: end ({@link #XA_SUCCESS}, {@link #XA_FAIL}) or suspend ({@link #XA_SUSPEND}) the session's
     * association with branch {@code xid}. The listed consumed deliveries leave the session for the branch: its commit
     * acknowledges them, its rollback returns them. Answered OK, or ERROR with an XA code (XA_RBROLLBACK and XA_RBTIMEOUT
     * when the branch is or was rolled back: the association has ended all the same).
     */
    record XaEnd(int requestId, int sessionId, WireXid xid, int flags, List<Consumed> consumed) implements FromClient {
        public FrameType type() {
            return FrameType.XA_END;
        }

        public void handleWith(ClientFrameHandler handler) {
            handler.onXaEnd(this);
        }

        public void writePayload(ByteBuf out) {
            out.writeInt(requestId);
            out.writeInt(sessionId);
            xid.write(out);
            out.writeInt(flags);
            Codec.writeConsumed(out, consumed);
        }

        /** Reads the payload {@link #writePayload} wrote. */
        public static XaEnd read(ByteBuf in) {
            return new XaEnd(in.readInt(), in.readInt(), WireXid.read(in), in.readInt(), Codec.readConsumed(in));
        }
    }

    /**
     * Client → server: prepare branch {@code xid}, from any connection. Answered {@link XaResult} {@link #XA_OK} once
     * the branch's records and its PREPARE record are durable, {@link #XA_RDONLY} for a branch that did nothing, or
     * ERROR with an XA code (XA_RBROLLBACK: rolled back instead, and why).
     */
    record XaPrepare(int requestId, WireXid xid) implements FromClient {
        public FrameType type() {
            return FrameType.XA_PREPARE;
        }

        public void handleWith(ClientFrameHandler handler) {
            handler.onXaPrepare(this);
        }

        public void writePayload(ByteBuf out) {
            out.writeInt(requestId);
            xid.write(out);
        }

        /** Reads the payload {@link #writePayload} wrote. */
        public static XaPrepare read(ByteBuf in) {
            return new XaPrepare(in.readInt(), WireXid.read(in));
        }
    }

    /**
     * Client → server: commit branch {@code xid}, from any connection: a prepared one, or with {@code onePhase} one
     * that is ended and not prepared. Answered OK once the commit is durable, or ERROR with an XA code.
     */
    record XaCommit(int requestId, WireXid xid, boolean onePhase) implements FromClient {
        public FrameType type() {
            return FrameType.XA_COMMIT;
        }

        public void handleWith(ClientFrameHandler handler) {
            handler.onXaCommit(this);
        }

        public void writePayload(ByteBuf out) {
            out.writeInt(requestId);
            xid.write(out);
            out.writeBoolean(onePhase);
        }

        /** Reads the payload {@link #writePayload} wrote. */
        public static XaCommit read(ByteBuf in) {
            return new XaCommit(in.readInt(), WireXid.read(in), in.readBoolean());
        }
    }

    /** Client → server: roll back branch {@code xid}, from any connection. Answered OK, or ERROR with an XA code. */
    record XaRollback(int requestId, WireXid xid) implements FromClient {
        public FrameType type() {
            return FrameType.XA_ROLLBACK;
        }

        public void handleWith(ClientFrameHandler handler) {
            handler.onXaRollback(this);
        }

        public void writePayload(ByteBuf out) {
            out.writeInt(requestId);
            xid.write(out);
        }

        /** Reads the payload {@link #writePayload} wrote. */
        public static XaRollback read(ByteBuf in) {
            return new XaRollback(in.readInt(), WireXid.read(in));
        }
    }

    /** Client → server: list the prepared branches (in doubt); answered {@link XaResult} with their Xids. */
    record XaRecover(int requestId) implements FromClient {
        public FrameType type() {
            return FrameType.XA_RECOVER;
        }

        public void handleWith(ClientFrameHandler handler) {
            handler.onXaRecover(this);
        }

        public void writePayload(ByteBuf out) {
            out.writeInt(requestId);
        }

        /** Reads the payload {@link #writePayload} wrote. */
        public static XaRecover read(ByteBuf in) {
            return new XaRecover(in.readInt());
        }
    }

    /**
     * Server → client: the answer to an {@link XaPrepare} ({@code result} {@link #XA_OK} or {@link #XA_RDONLY}, no
     * Xids) or to an {@link XaRecover} ({@link #XA_OK} and the prepared branches' Xids).
     */
    record XaResult(int requestId, int result, List<WireXid> xids) implements FromServer {
        public XaResult {
            xids = List.copyOf(xids);
        }

        public FrameType type() {
            return FrameType.XA_RESULT;
        }

        public void handleWith(ServerFrameHandler handler) {
            handler.onXaResult(this);
        }

        public void writePayload(ByteBuf out) {
            out.writeInt(requestId);
            out.writeInt(result);
            out.writeInt(xids.size());
            for (int i = 0; i < xids.size(); i++) {
                xids.get(i).write(out);
            }
        }

        /** Reads the payload {@link #writePayload} wrote. */
        public static XaResult read(ByteBuf in) {
            return new XaResult(in.readInt(), in.readInt(), Codec.readXids(in));
        }
    }

    // ---- channels between queue managers (docs/distributed.md) ----

    /**
     * Client → server: this connection is a channel's, from the sending queue manager {@code queueManager}, for the
     * channel {@code channel} the server defines as a receiver. Needs the {@code channel} permission. Answered
     * {@link ChannelStatus} with the receiver's last committed batch, or {@link Error} (NOT_AUTHORISED, or
     * UNKNOWN_DESTINATION for a channel the server has no receiver of). After it the connection carries the channel's
     * {@link ChannelMessage}, {@link ChannelFastMessage}, {@link ChannelFastConfirm} and {@link ChannelEndBatch}
     * frames only.
     *
     * <p>{@code fastNonPersistent} is the sender's NPMSPEED: whether it would send non-persistent messages outside the
     * batches ({@link ChannelFastMessage}); the answer says whether the receiver agrees. {@code resetSequence}, when
     * not {@link #NO_RESET}, is the sequence number an operator set on the sender ({@code reset channel}): the
     * receiver takes it, keeping its last batch id, before it answers.
     */
    record ChannelOpen(int requestId, String channel, String queueManager, boolean fastNonPersistent,
                       long resetSequence) implements FromClient {
        /** {@link #resetSequence} of an open that resets nothing. */
        public static final long NO_RESET = -1;

        public FrameType type() {
            return FrameType.CHANNEL_OPEN;
        }

        public void handleWith(ClientFrameHandler handler) {
            handler.onChannelOpen(this);
        }

        public void writePayload(ByteBuf out) {
            out.writeInt(requestId);
            WireStrings.write(out, channel);
            WireStrings.write(out, queueManager);
            out.writeBoolean(fastNonPersistent);
            out.writeLong(resetSequence);
        }

        /** Reads the payload {@link #writePayload} wrote. */
        public static ChannelOpen read(ByteBuf in) {
            return new ChannelOpen(in.readInt(), WireStrings.read(in), WireStrings.read(in), in.readBoolean(),
                    in.readLong());
        }
    }

    /**
     * Server → client: the answer to {@link ChannelOpen}: the channel's sequence number (messages committed on it
     * since it was first used), the id of the last batch the receiver committed (0: none), which the sender
     * compares with its own in-doubt batch, and whether non-persistent messages travel outside the batches
     * ({@code fastNonPersistent}: true only when the sender asked for it and the receiver's NPMSPEED is FAST too).
     */
    record ChannelStatus(int requestId, long sequence, long lastBatchId, boolean fastNonPersistent)
            implements FromServer {
        public FrameType type() {
            return FrameType.CHANNEL_STATUS;
        }

        public void handleWith(ServerFrameHandler handler) {
            handler.onChannelStatus(this);
        }

        public void writePayload(ByteBuf out) {
            out.writeInt(requestId);
            out.writeLong(sequence);
            out.writeLong(lastBatchId);
            out.writeBoolean(fastNonPersistent);
        }

        /** Reads the payload {@link #writePayload} wrote. */
        public static ChannelStatus read(ByteBuf in) {
            return new ChannelStatus(in.readInt(), in.readLong(), in.readLong(), in.readBoolean());
        }
    }

    /**
     * Client → server, on an open channel: one message of the current batch, its bytes as they are stored on the
     * sender's transmission queue (with its transmission header), not answered. Owns one reference to its buffer, as
     * {@link Send} does.
     */
    record ChannelMessage(ByteBuf message) implements FromClient {
        public FrameType type() {
            return FrameType.CHANNEL_MESSAGE;
        }

        public void handleWith(ClientFrameHandler handler) {
            handler.onChannelMessage(this);
        }

        public void writePayload(ByteBuf out) {
            // the message bytes follow (FrameEncoder#messageOf)
        }

        /** Reads the payload; the message is a retained slice of {@code in}. */
        public static ChannelMessage read(ByteBuf in) {
            return new ChannelMessage(in.readRetainedSlice(in.readableBytes()));
        }
    }

    /**
     * Client → server, on a channel opened with {@code fastNonPersistent} agreed: a non-persistent message outside any
     * batch (IBM MQ's NPMSPEED FAST), its bytes as they are stored on the sender's transmission queue, not answered.
     * The sender removed it from its transmission queue without a unit of work; the receiver puts it at once, without
     * one, and it counts in no batch's sequence number. Owns one reference to its buffer, as {@link Send} does.
     *
     * <p>A message the sender takes as it is put, past its transmission queue, is sent with {@code addressed}: the
     * message as put ({@code message}) and the transmission header it carries on the wire, written straight into the
     * frame's bytes ({@link FrameEncoder#addressedOf}); null for one sent as stored. The receiver reads the same
     * bytes either way.
     */
    record ChannelFastMessage(ByteBuf message, TransmissionHeader.Addressed addressed) implements FromClient {
        /** A message as stored on the transmission queue. */
        public ChannelFastMessage(ByteBuf message) {
            this(message, null);
        }

        /** A message as put, its transmission header written as the frame is ({@link TransmissionHeader#address}). */
        public ChannelFastMessage(TransmissionHeader.Addressed addressed) {
            this(addressed.message(), addressed);
        }

        public FrameType type() {
            return FrameType.CHANNEL_FAST_MESSAGE;
        }

        public void handleWith(ClientFrameHandler handler) {
            handler.onChannelFastMessage(this);
        }

        public void writePayload(ByteBuf out) {
            // the message bytes follow (FrameEncoder#messageOf)
        }

        /** Reads the payload; the message is a retained slice of {@code in}. */
        public static ChannelFastMessage read(ByteBuf in) {
            return new ChannelFastMessage(in.readRetainedSlice(in.readableBytes()));
        }
    }

    /**
     * Client → server, on an open channel: the batch of the {@link ChannelMessage}s since the last one ends; the
     * receiver commits their puts with {@code sequence} (the channel's sequence number after them) and
     * {@code batchId} in one transaction, then answers {@link Ok} (or {@link Error}, and nothing of the batch is
     * committed).
     */
    record ChannelEndBatch(int requestId, long sequence, long batchId) implements FromClient {
        public FrameType type() {
            return FrameType.CHANNEL_END_BATCH;
        }

        public void handleWith(ClientFrameHandler handler) {
            handler.onChannelEndBatch(this);
        }

        public void writePayload(ByteBuf out) {
            out.writeInt(requestId);
            out.writeLong(sequence);
            out.writeLong(batchId);
        }

        /** Reads the payload {@link #writePayload} wrote. */
        public static ChannelEndBatch read(ByteBuf in) {
            return new ChannelEndBatch(in.readInt(), in.readLong(), in.readLong());
        }
    }

    /**
     * Client → server, on a channel opened with {@code fastNonPersistent} agreed: answered {@link Ok} once the receiver
     * has read every {@link ChannelFastMessage} before it (it puts each as it reads it). The sender takes those
     * messages off its transmission queue only then, so that what a connection lost unnoticed swallows is bounded by
     * the messages the sender may have on their way unconfirmed (docs/distributed.md, "What nonPersistentSpeed fast
     * gives up").
     */
    record ChannelFastConfirm(int requestId) implements FromClient {
        public FrameType type() {
            return FrameType.CHANNEL_FAST_CONFIRM;
        }

        public void handleWith(ClientFrameHandler handler) {
            handler.onChannelFastConfirm(this);
        }

        public void writePayload(ByteBuf out) {
            out.writeInt(requestId);
        }

        /** Reads the payload {@link #writePayload} wrote. */
        public static ChannelFastConfirm read(ByteBuf in) {
            return new ChannelFastConfirm(in.readInt());
        }
    }

    // ---- status session (a replica's, docs/protocol.md "Status sessions") ----

    /**
     * Client → server, in a status session only: run the read-only admin command {@code command} (its admin protocol
     * name, {@code display-server}) and answer {@link StatusReply}, or {@link Error} (NOT_AUTHORISED without the
     * monitor permission; NOT_ACTIVE for a command a replica does not run, naming the active member).
     */
    record StatusRequest(int requestId, String command) implements FromClient {
        public FrameType type() {
            return FrameType.STATUS_REQUEST;
        }

        public void handleWith(ClientFrameHandler handler) {
            handler.onStatusRequest(this);
        }

        public void writePayload(ByteBuf out) {
            out.writeInt(requestId);
            WireStrings.write(out, command);
        }

        /** Reads the payload {@link #writePayload} wrote. */
        public static StatusRequest read(ByteBuf in) {
            return new StatusRequest(in.readInt(), WireStrings.read(in));
        }
    }

    /**
     * Server → client, answers a {@link StatusRequest}: the admin command's answer, the JSON the admin reply queue
     * carries ({@code {"command": ..., "ok": true, "result": {...}}}).
     */
    record StatusReply(int requestId, String json) implements FromServer {
        public FrameType type() {
            return FrameType.STATUS_REPLY;
        }

        public void handleWith(ServerFrameHandler handler) {
            handler.onStatusReply(this);
        }

        public void writePayload(ByteBuf out) {
            out.writeInt(requestId);
            WireStrings.write(out, json);
        }

        /** Reads the payload {@link #writePayload} wrote. */
        public static StatusReply read(ByteBuf in) {
            return new StatusReply(in.readInt(), WireStrings.read(in));
        }
    }
}
