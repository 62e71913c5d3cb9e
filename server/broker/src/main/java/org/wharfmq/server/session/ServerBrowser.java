package org.wharfmq.server.session;

import io.netty.channel.Channel;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.server.queue.BrowseCursor;
import org.wharfmq.server.queue.LocalQueue;

import java.util.ArrayList;
import java.util.List;

/**
 * A QueueBrowser's enumeration on the server (CREATE_CONSUMER with flag 8 browser): walks a {@link BrowseCursor}
 * over its queue and sends what it shows as DELIVERs with delivery id 0, which record no delivery: the messages stay
 * on the queue, unlocked, for any consumer.
 *
 * <p>Paged by credit, like a consumer: at most {@code credit} DELIVERs ahead of the client, which returns credit
 * (CREDIT) as the application enumerates. A PULL shows one more message whatever the credit and is then answered
 * PULL_DONE; a PULL_DONE with no DELIVER before it tells the client the browse is over.
 *
 * <p>Owned by the session it was created in, which closes it with itself. Threading: driven only by its
 * connection's frames, so it lives on the connection's event loop and writes there;
 * the queue's lock is taken only inside {@link LocalQueue#browse(BrowseCursor, int, LocalQueue.BrowseSink)}.
 */
public final class ServerBrowser {

    private final int id;
    private final int sessionId;
    private final LocalQueue queue;
    private final BrowseCursor cursor;
    private final Channel channel;
    private final List<Frame.Deliver> page = new ArrayList<>();
    private int credit;

    /**
     * Starts a browse of the messages waiting on {@code queue} now; nothing is sent before {@link #addCredit}.
     * {@code queue} is attached ({@link LocalQueue#attach}) for the browser, which detaches it in {@link #close}.
     */
    ServerBrowser(int id, int sessionId, LocalQueue queue, org.wharfmq.protocol.selector.Selector selector,
                         Channel channel) {
        this.id = id;
        this.sessionId = sessionId;
        this.queue = queue;
        this.cursor = queue.browse(selector);
        this.channel = channel;
    }

    /** The consumer id the client chose. */
    public int id() {
        return id;
    }

    /** Credit from CREATE_CONSUMER or CREDIT: sends the next messages the window allows. */
    void addCredit(int more) {
        credit += more;
        if (credit > 0 && !cursor.finished()) {
            credit -= show(credit);
        }
    }

    /** PULL: one more message if there is one, credit or not (the window may go below zero, as for consumers). */
    void pull() {
        if (!cursor.finished()) {
            credit -= show(1);
        }
    }

    private int show(int max) {
        int shown = queue.browse(cursor, max, (content, deliveryCount) ->
                page.add(new Frame.Deliver(id, 0, deliveryCount, content)));
        for (int i = 0; i < page.size(); i++) {
            channel.write(page.get(i), channel.voidPromise());
        }
        page.clear();
        if (shown > 0) {
            channel.flush();
        }
        return shown;
    }

    /**
     * The browse is over (closed, or its session or connection closed): detaches from the queue it was attached to
     * when created.
     */
    void close() {
        queue.detach();
    }

    @Override
    public String toString() {
        return "browser " + id + " of session " + sessionId + " on " + queue.name();
    }
}
