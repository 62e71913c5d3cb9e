package org.wharfmq.server.session;

import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.server.queue.LocalQueue;
import org.wharfmq.server.queue.MemoryBudget;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * One session's producer flow control, the server's side (docs/protocol.md, "Producer flow control"): the bytes its
 * producers may send. The session's first window goes out as it opens; then every SEND it handles is due back, and
 * goes back in batches of half the window ({@code PRODUCER_CREDIT}), unless what the SEND went to is over its memory
 * budget with the policy block: then its bytes are held back until that destination is under its budget again, and
 * while the server's budget is spent every batch is held back until it is not. A producer is so slowed, never
 * refused, and a destination over budget receives at most one window more from each session.
 *
 * <p>While nothing is over budget this costs a SEND an addition and a comparison; nothing is allocated. Owned by the
 * session's event loop; the destinations' wake-ups come from any thread and hop back to it.
 */
final class ProducerWindow {

    private final int sessionId;
    private final Channel channel;
    private final EventLoop eventLoop;
    private final MemoryBudget budget;
    private final int windowBytes;
    private final int batchBytes;
    /** Bytes of handled SENDs not yet returned. */
    private long due;
    /** Bytes held back, by what holds them: a queue over its budget, or the server's budget. */
    private final Map<Object, Long> heldBack = new HashMap<>(4);
    private boolean closed;

    /**
     * @param windowBytes the bytes a session may send before credit comes back (setting producerWindowBytes)
     * @param budget      the server's memory budget
     */
    ProducerWindow(int sessionId, Channel channel, int windowBytes, MemoryBudget budget) {
        this.sessionId = sessionId;
        this.channel = channel;
        this.eventLoop = channel.eventLoop();
        this.budget = budget;
        this.windowBytes = windowBytes;
        this.batchBytes = Math.max(1, windowBytes / 2);
    }

    /** Sends the session's first window; before the OK to CREATE_SESSION, so the client can send at once. */
    void open() {
        grant(windowBytes);
    }

    /**
     * A SEND of {@code bytes} (its message's length) has been handled: accepted, refused or dropped.
     *
     * @param overBudget the queue it went to that is over its budget with the policy block (for a publication, the
     *                   first such subscription's), whose bytes wait for it; null when none is
     */
    void handled(int bytes, LocalQueue overBudget) {
        if (overBudget != null) {
            holdBack(overBudget, bytes, overBudget::whenUnderBudget);
            return;
        }
        due += bytes;
        if (due >= batchBytes) {
            returnDue();
        }
    }

    /** The session has closed: nothing more is returned (its connection may be gone). */
    void close() {
        closed = true;
        heldBack.clear();
    }

    private void returnDue() {
        long bytes = due;
        due = 0;
        if (budget.spent()) {
            holdBack(budget, bytes, budget::whenAvailable);
        } else {
            grant(bytes);
        }
    }

    /** Holds {@code bytes} back for {@code holder}; the first bytes it holds ask it to wake this window when it can. */
    private void holdBack(Object holder, long bytes, Consumer<Runnable> whenFree) {
        Long before = heldBack.get(holder);
        heldBack.put(holder, before == null ? bytes : before + bytes);
        if (before == null) {
            whenFree.accept(() -> eventLoop.execute(() -> release(holder)));
        }
    }

    /** {@code holder} has room again: what it held back is due, and returned now (the server's budget permitting). */
    private void release(Object holder) {
        Long bytes = heldBack.remove(holder);
        if (closed || bytes == null) {
            return;
        }
        due += bytes;
        returnDue();
    }

    private void grant(long bytes) {
        if (closed) {
            return;
        }
        for (long left = bytes; left > 0; left -= Integer.MAX_VALUE) {
            channel.writeAndFlush(new Frame.ProducerCredit(sessionId, (int) Math.min(left, Integer.MAX_VALUE)),
                    channel.voidPromise());
        }
    }
}
