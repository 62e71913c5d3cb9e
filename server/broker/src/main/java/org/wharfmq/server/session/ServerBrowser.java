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
 * <p>Once the messages in memory are shown, the queue's paged ones follow, read from its page files on the paging
 * thread ({@link LocalQueue#browsePaged}); meanwhile the browser shows nothing more, and a PULL's PULL_DONE waits for
 * that read.
 *
 * <p>Owned by the session it was created in, which closes it with itself. Threading: driven only by its
 * connection's frames, so it lives on the connection's event loop and writes there (what the paging thread reads is
 * handed back to it); the queue's lock is taken only inside
 * {@link LocalQueue#browse(BrowseCursor, int, LocalQueue.BrowseSink)}.
 */
public final class ServerBrowser {

    private final int id;
    private final int sessionId;
    private final LocalQueue queue;
    private final BrowseCursor cursor;
    private final Channel channel;
    private final List<Frame.Deliver> page = new ArrayList<>();
    private int credit;
    /** Paged messages are being read for this browser on the paging thread; until then it shows nothing more. */
    private boolean reading;
    /** The PULLs (their ids) whose PULL_DONE waits for that read. */
    private final List<Long> pullsWaiting = new ArrayList<>(0);

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
        showMore();
    }

    /** Shows what the credit allows: from memory, then the paged messages (read on the paging thread). */
    private void showMore() {
        if (reading || credit <= 0 || cursor.finished()) {
            return;
        }
        if (!cursor.inMemoryFinished()) {
            credit -= show(credit);
        }
        if (credit > 0 && cursor.inMemoryFinished() && !cursor.finished()) {
            readPaged(credit);
        }
    }

    /**
     * PULL: one more message if there is one, credit or not (the window may go below zero, as for consumers).
     *
     * @return whether the PULL_DONE is due now; false when the next message is paged: this browser writes it once
     *         that has been read
     */
    boolean pull(long pullId) {
        if (reading) {
            pullsWaiting.add(pullId); // the read under way shows more, or finds the end
            return false;
        }
        if (!cursor.inMemoryFinished()) {
            int shown = show(1);
            credit -= shown;
            if (shown > 0) {
                return true;
            }
        }
        if (cursor.finished()) {
            return true;
        }
        pullsWaiting.add(pullId);
        readPaged(1);
        return false;
    }

    /**
     * Has the queue read up to {@code max} paged messages for this browse on the paging thread, and writes them here
     * on the event loop once read, then whatever waited for them.
     */
    private void readPaged(int max) {
        reading = true;
        List<Frame.Deliver> read = new ArrayList<>();
        queue.browsePaged(cursor, max, (content, deliveryCount) -> read.add(new Frame.Deliver(id, 0, deliveryCount,
                content)), channel.eventLoop(), shown -> {
                    reading = false;
                    for (int i = 0; i < read.size(); i++) {
                        channel.write(read.get(i), channel.voidPromise());
                    }
                    for (int i = 0; i < pullsWaiting.size(); i++) {
                        channel.write(new Frame.PullDone(id, pullsWaiting.get(i)), channel.voidPromise());
                    }
                    pullsWaiting.clear();
                    channel.flush();
                    credit -= shown;
                    showMore();
                });
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
