package org.wharfmq.server.session;

import org.wharfmq.server.queue.LocalQueue;
import org.wharfmq.server.queue.MemoryBudget;

import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

/**
 * One session's producer flow control, the server's side (docs/protocol.md, "Producer flow control"): the bytes its
 * producers may send. The session's first window goes out as it opens; then every SEND it handles is due back, and
 * goes back in batches of half the window ({@code PRODUCER_CREDIT}), unless what the SEND went to is over its memory
 * budget with the policy block (or is a paging queue whose write-behind is past its bound): then its bytes are held
 * back until that destination is under its budget again, and while the server's budget is spent every batch is held
 * back until it is not, but for the bytes sent to paging queues, which page what they are sent. A producer is so slowed, never
 * refused, and a destination over budget receives at most one window more from each session.
 *
 * <p>A publication is work in proportion to the subscriptions it reaches, and a publisher faster than the server's
 * fan-out keeps its whole window waiting in front of the server, each publication behind the window's others: at 100
 * subscribers a 256 KiB window of 2 KB publications is 60 ms of the server's work (docs/performance-log.md, "Pub/sub
 * delivery latency"). So a session whose last publication reached {@code reach} subscriptions has its window narrowed
 * to {@code fanOutWindowBytes / reach} (at most the window, at least two publications): the server keeps the difference
 * back ({@link #narrowedBy}, returned as soon as the session sends to fewer subscriptions or to a queue) and returns
 * the rest in batches of half the narrowed window. The server's work waiting for a publisher is so about the same
 * whatever its fan-out.
 *
 * <p>While nothing is over budget and the session's sends reach one destination each, this costs a SEND an addition
 * and two comparisons; a publication to several subscriptions one division more; nothing is allocated. Owned by the
 * session's owner (its event loop, or the thread of an {@link InProcessProducer}); the destinations' wake-ups come
 * from any thread and hop back to it.
 */
final class ProducerWindow {

    private final int sessionId;
    /** Where the credit goes: the session's connection. */
    private final Replies replies;
    /** Runs tasks where the window is owned: the session's event loop, or its owning thread's tasks. */
    private final Executor owner;
    private final MemoryBudget budget;
    private final int windowBytes;
    private final int batchBytes;
    private final long fanOutWindowBytes;
    /** Bytes of handled SENDs not yet returned. */
    private long due;
    /**
     * Of {@link #due}, the bytes of SENDs to queues whose policy is page: while the server's budget is spent those
     * queues page what they are sent, so the spent budget does not hold these back (a paging queue's own write-behind
     * does: {@link LocalQueue#blocksProducers}).
     */
    private long duePaging;
    /** Bytes of handled SENDs kept back to narrow the window of a session that publishes to many subscriptions. */
    private long narrowedBy;
    /** What the window is narrowed to: {@link #windowBytes} unless the last publication reached several subscriptions. */
    private long narrowedWindow;
    /** Bytes held back, by what holds them: a queue over its budget, or the server's budget. */
    private final Map<Object, Held> heldBack = new HashMap<>(4);
    /** The queues this session's sends found over budget (policy block) and that have not been seen under it since. */
    private final Set<LocalQueue> blocking = new LinkedHashSet<>(4);
    /** Written by the owner; read also by the thread that wakes a held-back window (see {@link #holdBack}). */
    private volatile boolean closed;

    /**
     * @param windowBytes       the bytes a session may send before credit comes back (setting producerWindowBytes)
     * @param fanOutWindowBytes the bytes times subscriptions reached a publishing session's window amounts to (setting
     *                          fanOutWindowBytes)
     * @param budget            the server's memory budget
     */
    ProducerWindow(int sessionId, Replies replies, Executor owner, int windowBytes, long fanOutWindowBytes,
                   MemoryBudget budget) {
        this.sessionId = sessionId;
        this.replies = replies;
        this.owner = owner;
        this.budget = budget;
        this.windowBytes = windowBytes;
        this.batchBytes = Math.max(1, windowBytes / 2);
        this.fanOutWindowBytes = fanOutWindowBytes;
        this.narrowedWindow = windowBytes;
    }

    /** Sends the session's first window; before the OK to CREATE_SESSION, so the client can send at once. */
    void open() {
        grant(windowBytes);
    }

    /**
     * A SEND of {@code bytes} (its message's length) has been handled: accepted, refused or dropped.
     *
     * @param overBudget the queue it went to when that is over its budget with the policy block (its bytes wait until
     *                   it is under it again); null when it is not
     * @param pages      whether that queue's policy is page: then the server's spent budget does not hold its bytes
     *                   back, since the queue pages what it is sent while the budget is spent
     */
    void handled(int bytes, LocalQueue overBudget, boolean pages) {
        if (narrowedBy == 0 && overBudget == null) {
            due += bytes;
            if (pages) {
                duePaging += bytes;
            }
            if (due >= batchBytes) {
                returnDue();
            }
            return;
        }
        handled(bytes, 1, overBudget);
    }

    /**
     * A publication of {@code bytes} has been handled; {@code reach}: the subscriptions it went to; {@code overBudget}:
     * those of their queues that are over their budget with the policy block (empty most often). Its bytes wait until
     * every one is under it.
     */
    void published(int bytes, int reach, List<LocalQueue> overBudget) {
        if (overBudget.isEmpty()) {
            handled(bytes, reach, null);
            return;
        }
        blocking.addAll(overBudget);
        handled(bytes, reach, overBudget.get(0));
    }

    /** The window narrowed for a SEND that reached {@code reach} destinations, then its bytes due or held back. */
    private void handled(int bytes, int reach, LocalQueue overBudget) {
        long free = narrow(reach, bytes);
        if (overBudget != null) {
            blocking.add(overBudget);
            holdBack(overBudget, free, overBudget::whenUnderBudget);
            free = 0;
        }
        due += free;
        if (due >= Math.min(batchBytes, Math.max(1, narrowedWindow / 2))) {
            returnDue();
        }
    }

    /**
     * Narrows the window to {@code fanOutWindowBytes / reach}, but not below two publications of {@code bytes}
     * (widens it back for a lower reach), keeping back part of the {@code bytes} just handled, or giving back what
     * was kept beyond the new narrowing. Two publications: one being routed while the next arrives, so a wide fan-out
     * never leaves the server waiting for its publisher's next SEND.
     *
     * @return the bytes that are not kept back: those handled and any no longer kept
     */
    private long narrow(int reach, int bytes) {
        narrowedWindow = reach <= 1 ? windowBytes
                : Math.max(1, Math.min(windowBytes, Math.max(2L * bytes, fanOutWindowBytes / reach)));
        long keep = windowBytes - narrowedWindow;
        if (narrowedBy < keep) {
            long kept = Math.min(bytes, keep - narrowedBy);
            narrowedBy += kept;
            return bytes - kept;
        }
        long freed = narrowedBy - keep;
        narrowedBy = keep;
        return bytes + freed;
    }

    /** The session has closed: nothing more is returned (its connection may be gone). */
    void close() {
        closed = true;
        narrowedBy = 0;
        heldBack.clear();
        blocking.clear();
    }

    /**
     * Returns what is due, but while the server's budget is spent only the bytes sent to paging queues: the rest waits
     * for the budget. A consumer that forwards what it takes to a paging queue, settling in batches larger than its
     * window, so settles while a queue that keeps its messages in memory and the paging queues' messages in memory
     * spend the budget between them; held back, it could not settle, and the queue it takes from could not drain
     * (BlockQueueForwardingTest).
     */
    private void returnDue() {
        long bytes = due;
        long paging = Math.min(duePaging, bytes);
        due = 0;
        duePaging = 0;
        if (budget.spent()) {
            if (bytes > paging) {
                holdBack(budget, bytes - paging, budget::whenAvailable);
            }
            if (paging > 0) {
                grant(paging);
            }
        } else {
            grant(bytes);
        }
    }

    /**
     * Holds {@code bytes} back for {@code holder}; the first bytes it holds ask it to wake this window when it can (its
     * turn), those it holds while this window waits for that wake-up are held {@linkplain Held#since since}.
     */
    private void holdBack(Object holder, long bytes, Consumer<Runnable> whenFree) {
        Held held = heldBack.get(holder);
        if (held != null) {
            held.since += bytes;
            return;
        }
        heldBack.put(holder, new Held(bytes));
        // the wake of a closed session's window is dropped where it runs: it may be the server's close emptying the
        // queues after the event loops have ended (every session is closed by then)
        whenFree.accept(() -> {
            if (!closed) {
                owner.execute(() -> release(holder));
            }
        });
    }

    /**
     * {@code holder} has room again. Its turn (what it held as this window asked it for the wake-up) goes on waiting for
     * another queue this session sent to that is still over its budget, else it is due and returned now: the server's
     * budget permitting, unless the server's budget is the holder. So a publisher is held until all its blocking
     * subscriptions are under their budgets, not only the first that drains. A window the server's budget woke returns
     * its turn without looking at the budget again: its wait is over ({@link MemoryBudget#whenAvailable} wakes the
     * windows in the order they were held back), and one that looked again could find the room taken, each time, by a
     * window woken with it whose event loop ran first.
     *
     * <p>What {@code holder} held {@linkplain Held#since since} looks at it again, as a SEND just handled would: the
     * wake-up hops to this window's owner, which may meanwhile handle SENDs of the credit the producer had when the room
     * came back. Returned with the turn, they let the producer send a whole window on top of them, and the holder go
     * past its budget by up to two windows (BudgetWakeOrderTest).
     */
    private void release(Object holder) {
        Held held = heldBack.remove(holder);
        blocking.remove(holder);
        if (closed || held == null) {
            return;
        }
        LocalQueue queue = holder == budget ? null : (LocalQueue) holder;
        boolean queueOverAgain = queue != null && held.since > 0 && queue.blocksProducers();
        long bytes = held.turn + (queue != null && !queueOverAgain ? held.since : 0);
        if (!heldForAnotherQueue(bytes)) {
            if (queue == null) {
                grant(bytes); // its turn, not a race with the windows woken with it for the room
            } else {
                due += bytes;
            }
        }
        if (queueOverAgain) {
            blocking.add(queue);
            holdBack(queue, held.since, queue::whenUnderBudget);
        } else if (queue == null) {
            due += held.since; // looks at the budget again
        }
        if (due > 0) {
            returnDue();
        }
    }

    /** Holds {@code bytes} back for the first queue this session's sends found over budget that still is. */
    private boolean heldForAnotherQueue(long bytes) {
        for (Iterator<LocalQueue> i = blocking.iterator(); i.hasNext(); ) {
            LocalQueue next = i.next();
            if (next.blocksProducers()) {
                holdBack(next, bytes, next::whenUnderBudget);
                return true;
            }
            i.remove();
        }
        return false;
    }

    /** What one holder holds back of this window's bytes; owned by the window's owner. */
    private static final class Held {
        /** The bytes it held as the window asked it for the wake-up: returned once that comes. */
        final long turn;
        /**
         * The bytes held for it since: of SENDs handled before the wake-up reached the window, which may be after the
         * holder had room again; they look at it again.
         */
        long since;

        Held(long turn) {
            this.turn = turn;
        }
    }

    private void grant(long bytes) {
        if (closed) {
            return;
        }
        for (long left = bytes; left > 0; left -= Integer.MAX_VALUE) {
            replies.producerCredit(sessionId, (int) Math.min(left, Integer.MAX_VALUE));
        }
    }
}
