package org.wharfmq.protocol;

/**
 * The heartbeat rule both ends follow. The interval is agreed in the handshake (the client asks in {@code HELLO}, the
 * server answers the lower of its own and the client's in {@code HELLO_OK}); each end sends {@code PING} when it
 * has written nothing for one interval, and declares the other dead when nothing at all arrived for
 * {@link #MISSED_BEFORE_DEAD} intervals.
 */
public final class Heartbeat {

    /** Intervals without a frame after which a peer is declared dead: {@value}. */
    public static final int MISSED_BEFORE_DEAD = 3;

    private Heartbeat() {
    }

    /** How long a peer may stay silent before it is declared dead, for an agreed interval of {@code intervalMillis}. */
    public static long deadAfterMillis(long intervalMillis) {
        return MISSED_BEFORE_DEAD * intervalMillis;
    }
}
