package org.wharfmq.server.session;

import io.netty.buffer.ByteBuf;
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
 * (CREDIT) as the application enumerates; and by bytes ({@link BrowseWindow}): one more only while the messages shown
 * and not yet settled by those CREDITs come to fewer bytes than its window (CREATE_CONSUMER's windowBytes, capped by
 * maxConsumerWindowBytes, which is also the window of a browser that asks for none). A PULL shows one more message
 * whatever the credit and the window and is then answered PULL_DONE; a PULL_DONE with no DELIVER before it tells the
 * client the browse is over.
 *
 * <p>Once the messages in memory are shown, the queue's paged ones follow, read from its page files on the paging
 * thread ({@link LocalQueue#browsePaged}); meanwhile the browser shows nothing more, and a PULL's PULL_DONE waits for
 * that read. The copies so read are counted against the server's memory budget ({@link LocalQueue#holdBrowsed}) from
 * their read until a CREDIT settles them or the browse ends, so a browse holds at most its window of them.
 *
 * <p>Owned by the session it was created in, which closes it with itself. Threading: driven only by its
 * connection's frames, so it lives on the connection's event loop and writes there (what the paging thread reads is
 * handed back to it); the queue's lock is taken only inside
 * {@link LocalQueue#browse(BrowseCursor, int, long, LocalQueue.BrowseSink)}.
 */
public final class ServerBrowser {

    private final int id;
    private final int sessionId;
    private final LocalQueue queue;
    private final BrowseCursor cursor;
    private final Channel channel;
    private final List<Frame.Deliver> page = new ArrayList<>();
    private int credit;
    /** What it was shown and has not settled, in bytes, and the most it may be. */
    private final BrowseWindow window;
    /** Paged messages are being read for this browser on the paging thread; until then it shows nothing more. */
    private boolean reading;
    /** The PULLs (their ids) whose PULL_DONE waits for that read. */
    private final List<Long> pullsWaiting = new ArrayList<>(0);
    /** The browse has ended: a read that comes back now is released, not shown. */
    private boolean closed;

    /**
     * Starts a browse of the messages waiting on {@code queue} now; nothing is sent before {@link #start}.
     * {@code queue} is attached ({@link LocalQueue#attach}) for the browser, which detaches it in {@link #close}.
     *
     * @param windowBytes the bytes of messages it may be shown and not settle (its window, already capped); 0: no
     *                    bound in bytes
     */
    ServerBrowser(int id, int sessionId, LocalQueue queue, org.wharfmq.protocol.selector.Selector selector,
                  Channel channel, int windowBytes) {
        this.id = id;
        this.sessionId = sessionId;
        this.queue = queue;
        this.cursor = queue.browse(selector);
        this.channel = channel;
        this.window = new BrowseWindow(windowBytes > 0 ? windowBytes : BrowseWindow.UNBOUNDED);
    }

    /** The consumer id the client chose. */
    public int id() {
        return id;
    }

    /** CREATE_CONSUMER's credit: sends the first messages the window allows. */
    void start(int initialCredit) {
        credit += initialCredit;
        showMore();
    }

    /**
     * CREDIT: {@code more} messages may be sent, and as many of the oldest shown are settled (a browse is read in
     * order), with their bytes; then sends the next messages the window allows.
     */
    void addCredit(int more) {
        long paged = window.settle(more);
        if (paged > 0) {
            queue.releaseBrowsed(paged);
        }
        credit += more;
        showMore();
    }

    /** Shows what the credit and the window allow: from memory, then the paged messages (read on the paging thread). */
    private void showMore() {
        if (closed || reading || credit <= 0 || window.full() || cursor.finished()) {
            return;
        }
        if (!cursor.inMemoryFinished()) {
            credit -= show(credit, window.room());
        }
        if (credit > 0 && !window.full() && cursor.inMemoryFinished() && !cursor.finished()) {
            readPaged(credit, window.room());
        }
    }

    /**
     * PULL: one more message if there is one, credit or not, window or not (the credit may go below zero, as for
     * consumers; the message counts in the window until settled).
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
            int shown = show(1, BrowseWindow.UNBOUNDED);
            credit -= shown;
            if (shown > 0) {
                return true;
            }
        }
        if (cursor.finished()) {
            return true;
        }
        pullsWaiting.add(pullId);
        readPaged(1, BrowseWindow.UNBOUNDED);
        return false;
    }

    /**
     * Has the queue read up to {@code max} paged messages, and none more once they reach {@code maxBytes}, for this
     * browse on the paging thread (each counted against the server's memory budget as it is read), and writes them
     * here on the event loop once read, then whatever waited for them.
     */
    private void readPaged(int max, long maxBytes) {
        reading = true;
        List<Frame.Deliver> read = new ArrayList<>();
        queue.browsePaged(cursor, max, maxBytes, (content, deliveryCount) -> {
            queue.holdBrowsed(content.readableBytes());
            read.add(new Frame.Deliver(id, 0, deliveryCount, content));
        }, channel.eventLoop(), shown -> {
            reading = false;
            if (closed) {
                for (int i = 0; i < read.size(); i++) {
                    ByteBuf content = read.get(i).message();
                    queue.releaseBrowsed(content.readableBytes());
                    content.release();
                }
                return;
            }
            for (int i = 0; i < read.size(); i++) {
                Frame.Deliver d = read.get(i);
                window.shown(d.message().readableBytes(), true);
                channel.write(d, channel.voidPromise());
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

    /** Shows up to {@code max} messages from memory, none more once they reach {@code maxBytes}; how many. */
    private int show(int max, long maxBytes) {
        int shown = queue.browse(cursor, max, maxBytes, (content, deliveryCount) ->
                page.add(new Frame.Deliver(id, 0, deliveryCount, content)));
        for (int i = 0; i < page.size(); i++) {
            Frame.Deliver d = page.get(i);
            window.shown(d.message().readableBytes(), false);
            channel.write(d, channel.voidPromise());
        }
        page.clear();
        if (shown > 0) {
            channel.flush();
        }
        return shown;
    }

    /**
     * The browse is over (closed, or its session or connection closed): gives back to the server's memory budget the
     * paged copies it held unsettled, and detaches from the queue it was attached to when created. A read under way
     * is released when it comes back.
     */
    void close() {
        closed = true;
        long paged = window.settle(Integer.MAX_VALUE);
        if (paged > 0) {
            queue.releaseBrowsed(paged);
        }
        queue.detach();
    }

    @Override
    public String toString() {
        return "browser " + id + " of session " + sessionId + " on " + queue.name();
    }
}
