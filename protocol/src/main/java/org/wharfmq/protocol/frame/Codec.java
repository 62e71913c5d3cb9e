package org.wharfmq.protocol.frame;

import io.netty.buffer.ByteBuf;
import org.wharfmq.protocol.message.WireDestination;

import java.util.ArrayList;
import java.util.List;

/**
 * Picks the {@link Frame} record that reads a frame's payload, by its type; each record's layout (its
 * {@code writePayload} and its static {@code read}) is in the record. Also the list fields several frames share.
 */
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

    static List<Frame.Consumed> readConsumed(ByteBuf in) {
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

    static List<String> readStrings(ByteBuf in) {
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

    static List<WireXid> readXids(ByteBuf in) {
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
    static WireDestination temporary(WireDestination destination, FrameType type) {
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
            case HELLO -> Frame.Hello.read(in);
            case HELLO_OK -> Frame.HelloOk.read(in);
            case AUTH_MECHANISMS -> Frame.AuthMechanisms.read(in);
            case AUTH -> Frame.Auth.read(in);
            case AUTH_CHALLENGE -> Frame.AuthChallenge.read(in);
            case AUTH_RESPONSE -> Frame.AuthResponse.read(in);
            case PING -> Frame.Ping.read(in);
            case OK -> Frame.Ok.read(in);
            case ERROR -> Frame.Error.read(in);
            case CLOSE -> Frame.Close.read(in);
            case SET_CLIENT_ID -> Frame.SetClientId.read(in);
            case CLAIM_KEY -> Frame.ClaimKey.read(in);
            case CREATE_SESSION -> Frame.CreateSession.read(in);
            case CLOSE_SESSION -> Frame.CloseSession.read(in);
            case CREATE_PRODUCER -> Frame.CreateProducer.read(in);
            case CLOSE_PRODUCER -> Frame.CloseProducer.read(in);
            case CREATE_CONSUMER -> Frame.CreateConsumer.read(in);
            case CLOSE_CONSUMER -> Frame.CloseConsumer.read(in);
            case CREDIT -> Frame.Credit.read(in);
            case PULL -> Frame.Pull.read(in);
            case PULL_DONE -> Frame.PullDone.read(in);
            case CONSUMER_FAILED -> Frame.ConsumerFailed.read(in);
            case SEND -> Frame.Send.read(in);
            case DELIVER -> Frame.Deliver.read(in);
            case ACK -> Frame.Ack.read(in);
            case COMMIT -> Frame.Commit.read(in);
            case ROLLBACK -> Frame.Rollback.read(in);
            case UNSUBSCRIBE -> Frame.Unsubscribe.read(in);
            case CREATE_TEMPORARY -> Frame.CreateTemporary.read(in);
            case DELETE_TEMPORARY -> Frame.DeleteTemporary.read(in);
            case REJECT -> Frame.Reject.read(in);
            case XA_START -> Frame.XaStart.read(in);
            case XA_END -> Frame.XaEnd.read(in);
            case XA_PREPARE -> Frame.XaPrepare.read(in);
            case XA_COMMIT -> Frame.XaCommit.read(in);
            case XA_ROLLBACK -> Frame.XaRollback.read(in);
            case XA_RECOVER -> Frame.XaRecover.read(in);
            case XA_RESULT -> Frame.XaResult.read(in);
            case PRODUCER_CREDIT -> Frame.ProducerCredit.read(in);
            case CHANNEL_OPEN -> Frame.ChannelOpen.read(in);
            case CHANNEL_STATUS -> Frame.ChannelStatus.read(in);
            case CHANNEL_MESSAGE -> Frame.ChannelMessage.read(in);
            case CHANNEL_END_BATCH -> Frame.ChannelEndBatch.read(in);
            case CHANNEL_FAST_MESSAGE -> Frame.ChannelFastMessage.read(in);
            case STATUS_REQUEST -> Frame.StatusRequest.read(in);
            case STATUS_REPLY -> Frame.StatusReply.read(in);
            case CHANNEL_FAST_CONFIRM -> Frame.ChannelFastConfirm.read(in);
            case DELIVER_KEEP -> Frame.DeliverKeep.read(in);
            case DELIVER_SAME -> Frame.DeliverSame.read(in);
            case SHARE_DELIVERIES -> Frame.ShareDeliveries.read(in);
        };
        if (in.isReadable()) {
            ByteBuf message = FrameEncoder.messageOf(frame);
            if (message != null) {
                message.release();
            }
            throw new MalformedFrameException(type + " frame has " + in.readableBytes() + " unexpected trailing bytes");
        }
        return frame;
    }
}
