package org.wharfmq.protocol.frame;

/**
 * A frame's length prefix says more bytes than the reading end accepts from its peer at this point
 * ({@link FrameDecoder#limit}): the frame is not read, and the connection is ended. A client raises it for a server
 * that sends more than it declared it would (docs/security.md, "What a hostile server can do to a client").
 */
public final class FrameTooLongException extends RuntimeException {
    private final long length;
    private final int limit;

    /**
     * @param length the frame's length as its prefix says, type byte and payload
     * @param limit  the longest frame the reading end accepted
     */
    public FrameTooLongException(long length, int limit) {
        super("a frame of " + length + " bytes, more than the " + limit + " this end accepts");
        this.length = length;
        this.limit = limit;
    }

    /** The frame's length as its prefix says. */
    public long length() {
        return length;
    }

    /** The longest frame the reading end accepted. */
    public int limit() {
        return limit;
    }
}
