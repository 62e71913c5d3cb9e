package org.wharfmq.perf.relay;

import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.codec.LengthFieldPrepender;

/**
 * The relay's wire format, shared by {@link RelayServer} and its clients ({@code org.wharfmq.perf.driver.RelayClients}, {@code -pc Relay}): frames of a 4-byte length and
 * the bytes. A connection's first frame is one byte saying what it is; a requester's frame is an 8-byte sequence
 * number and the body; the relay puts a 4-byte requester index before it on the way to the responder, who sends
 * the frame back unchanged, and takes it off on the way back.
 */
public final class RelayFrames {

    public static final byte REQUESTER = 1;
    public static final byte RESPONDER = 2;
    /** Frames up to 16 MiB, beyond the largest size the harness sends (2 MB). */
    public static final int MAX_FRAME = 16 << 20;
    public static final LengthFieldPrepender PREPENDER = new LengthFieldPrepender(4);

    private RelayFrames() {
    }

    public static LengthFieldBasedFrameDecoder decoder() {
        return new LengthFieldBasedFrameDecoder(MAX_FRAME, 0, 4, 0, 4);
    }
}
