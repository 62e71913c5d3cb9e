package org.wharfmq.server.http;

import io.netty.channel.Channel;

/**
 * Who holds an HTTP connection's reading: it reads while nobody does. {@link CallerCheck} holds it while a caller's
 * login runs, {@link HttpRequestHandler} while a request is answered; once a caller is refused the connection reads
 * (and drops) whatever still arrives until it closes ({@link #drain}). On the connection's event loop.
 */
final class ReadHolds {

    private final Channel channel;
    private int holds;
    private boolean draining;

    ReadHolds(Channel channel) {
        this.channel = channel;
    }

    /** Stops reading until every hold is released. */
    void hold() {
        if (holds++ == 0 && !draining) {
            channel.config().setAutoRead(false);
        }
    }

    /** Releases one hold; reads again when it was the last. */
    void release() {
        if (--holds == 0 && !draining) {
            channel.config().setAutoRead(true);
        }
    }

    /** Reads from now on, whatever holds remain: what arrives is dropped, and the connection is closing. */
    void drain() {
        draining = true;
        channel.config().setAutoRead(true);
    }
}
