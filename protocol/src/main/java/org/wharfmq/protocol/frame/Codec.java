package org.wharfmq.protocol.frame;

import io.netty.buffer.ByteBuf;
import org.wharfmq.protocol.ProtocolVersion;
import org.wharfmq.protocol.message.WireDestination;

import java.util.ArrayList;
import java.util.List;

/** Reads frame payloads into {@link Frame} records; the writing half lives in each record's {@code writePayload}. */
final class Codec {
    /** A commit or ack names at most this many consumers; more means a corrupt frame, not a big session. */
    private static final int MAX_CONSUMED_ENTRIES = 65_536;

    private Codec() {
    }

    static void writeConsumed(ByteBuf out, List<Frame.Consumed> consumed) {
        out.writeInt(consumed.size());
        for (int i = 0; i < consumed.size(); i++) {
            Frame.Consumed c = consumed.get(i);
            out.writeInt(c.consumerId());
            out.writeLong(c.lastDeliveryId());
        }
    }

    private static List<Frame.Consumed> readConsumed(ByteBuf in) {
        int n = in.readInt();
        if (n < 0 || n > MAX_CONSUMED_ENTRIES || n * 12L > in.readableBytes()) {
            throw new MalformedFrameException("consumed-list length " + n + " does not fit the frame");
        }
        if (n == 0) {
            return List.of();
        }
        List<Frame.Consumed> list = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            list.add(new Frame.Consumed(in.readInt(), in.readLong()));
        }
        return list;
    }

    /**
     * A HELLO of this version, or of another one: of another version only the client name is read (as far as it can
     * be) and the rest skipped, so that the handshake can answer UNSUPPORTED_VERSION rather than PROTOCOL_ERROR (a
     * version 1 HELLO carried a user and a password after the name).
     */
    private static Frame.Hello hello(ByteBuf in) {
        int magic = in.readInt();
        if (magic != ProtocolVersion.MAGIC) {
            throw new MalformedFrameException("not a Wharf client: HELLO magic is 0x" + Integer.toHexString(magic)
                    + ", expected 0x" + Integer.toHexString(ProtocolVersion.MAGIC));
        }
        short version = in.readShort();
        if (version == ProtocolVersion.CURRENT) {
            return new Frame.Hello(version, WireStrings.read(in), in.readInt());
        }
        String clientName = null;
        try {
            clientName = WireStrings.read(in);
        } catch (MalformedFrameException | IndexOutOfBoundsException e) {
            // a future layout: the name is only for the log
        }
        in.skipBytes(in.readableBytes());
        return new Frame.Hello(version, clientName, 0);
    }

    private static List<String> readStrings(ByteBuf in) {
        int n = in.readInt();
        if (n < 0 || n * 4L > in.readableBytes()) {
            throw new MalformedFrameException("string-list length " + n + " does not fit the frame");
        }
        List<String> list = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            list.add(WireStrings.read(in));
        }
        return list;
    }

    private static List<WireXid> readXids(ByteBuf in) {
        int n = in.readInt();
        if (n < 0 || n * 12L > in.readableBytes()) {
            throw new MalformedFrameException("Xid-list length " + n + " does not fit the frame");
        }
        List<WireXid> list = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            list.add(WireXid.read(in));
        }
        return list;
    }

    /** A temporary destination frame must name a temporary queue or topic (kind 3 or 4). */
    private static WireDestination temporary(WireDestination destination, FrameType type) {
        if (destination == null || !destination.kind().isTemporary()) {
            throw new MalformedFrameException(type + " must name a temporary queue or topic, not " + destination);
        }
        return destination;
    }

    /**
     * Decodes one frame. {@code payload} is positioned after the type byte; for SEND and DELIVER the returned frame
     * holds a retained slice of it, so the caller still releases {@code payload} as usual.
     */
    static Frame decode(FrameType type, ByteBuf in) {
        Frame frame = switch (type) {
            case HELLO -> hello(in);
            case HELLO_OK -> new Frame.HelloOk(in.readShort(), WireStrings.read(in), WireStrings.read(in), in.readInt(),
                    in.readInt(), WireStrings.read(in), WireBytes.read(in));
            case AUTH_MECHANISMS -> new Frame.AuthMechanisms(readStrings(in));
            case AUTH -> new Frame.Auth(WireStrings.read(in), WireBytes.read(in));
            case AUTH_CHALLENGE -> new Frame.AuthChallenge(WireBytes.read(in));
            case AUTH_RESPONSE -> new Frame.AuthResponse(WireBytes.read(in));
            case PING -> Frame.Ping.INSTANCE;
            case OK -> new Frame.Ok(in.readInt());
            case ERROR -> new Frame.Error(in.readInt(), ErrorCode.of(in.readShort()), WireStrings.read(in), in.readInt(), in.readInt());
            case CLOSE -> new Frame.Close(in.readInt());
            case SET_CLIENT_ID -> new Frame.SetClientId(in.readInt(), WireStrings.read(in));
            case CLAIM_KEY -> new Frame.ClaimKey(in.readInt(), WireBytes.read(in));
            case CREATE_SESSION -> new Frame.CreateSession(in.readInt(), in.readInt(), in.readBoolean(), in.readByte());
            case CLOSE_SESSION -> new Frame.CloseSession(in.readInt(), in.readInt());
            case CREATE_PRODUCER -> new Frame.CreateProducer(in.readInt(), in.readInt(), in.readInt(), WireDestination.read(in));
            case CLOSE_PRODUCER -> new Frame.CloseProducer(in.readInt(), in.readInt(), in.readInt());
            case CREATE_CONSUMER -> new Frame.CreateConsumer(in.readInt(), in.readInt(), in.readInt(), WireDestination.read(in),
                    WireStrings.read(in), in.readInt(), in.readInt(), WireStrings.read(in));
            case CLOSE_CONSUMER -> new Frame.CloseConsumer(in.readInt(), in.readInt(), in.readInt(), in.readLong());
            case CREDIT -> new Frame.Credit(in.readInt(), in.readInt());
            case PULL -> new Frame.Pull(in.readInt(), in.readLong());
            case PULL_DONE -> new Frame.PullDone(in.readInt(), in.readLong());
            case CONSUMER_FAILED -> new Frame.ConsumerFailed(in.readInt(), ErrorCode.of(in.readShort()), WireStrings.read(in));
            case SEND -> {
                int requestId = in.readInt();
                int sessionId = in.readInt();
                int producerId = in.readInt();
                yield new Frame.Send(requestId, sessionId, producerId, in.readRetainedSlice(in.readableBytes()));
            }
            case DELIVER -> {
                int consumerId = in.readInt();
                long deliveryId = in.readLong();
                int deliveryCount = in.readInt();
                yield new Frame.Deliver(consumerId, deliveryId, deliveryCount, in.readRetainedSlice(in.readableBytes()));
            }
            case ACK -> new Frame.Ack(in.readInt(), in.readInt(), readConsumed(in));
            case COMMIT -> new Frame.Commit(in.readInt(), in.readInt(), readConsumed(in));
            case ROLLBACK -> new Frame.Rollback(in.readInt(), in.readInt(), readConsumed(in));
            case UNSUBSCRIBE -> new Frame.Unsubscribe(in.readInt(), WireStrings.read(in));
            case CREATE_TEMPORARY -> new Frame.CreateTemporary(in.readInt(), temporary(WireDestination.read(in), type));
            case DELETE_TEMPORARY -> new Frame.DeleteTemporary(in.readInt(), temporary(WireDestination.read(in), type));
            case REJECT -> new Frame.Reject(in.readInt(), in.readLong(), WireStrings.read(in));
            case XA_START -> new Frame.XaStart(in.readInt(), in.readInt(), WireXid.read(in), in.readInt(), in.readInt());
            case XA_END -> new Frame.XaEnd(in.readInt(), in.readInt(), WireXid.read(in), in.readInt(), readConsumed(in));
            case XA_PREPARE -> new Frame.XaPrepare(in.readInt(), WireXid.read(in));
            case XA_COMMIT -> new Frame.XaCommit(in.readInt(), WireXid.read(in), in.readBoolean());
            case XA_ROLLBACK -> new Frame.XaRollback(in.readInt(), WireXid.read(in));
            case XA_RECOVER -> new Frame.XaRecover(in.readInt());
            case XA_RESULT -> new Frame.XaResult(in.readInt(), in.readInt(), readXids(in));
            case PRODUCER_CREDIT -> new Frame.ProducerCredit(in.readInt(), in.readInt());
        };
        if (in.isReadable()) {
            if (frame instanceof Frame.Send s) {
                s.message().release();
            }
            throw new MalformedFrameException(type + " frame has " + in.readableBytes() + " unexpected trailing bytes");
        }
        return frame;
    }
}
