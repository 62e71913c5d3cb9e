package org.wharfmq.client.core;

import org.wharfmq.client.core.transport.FrameLink;
import org.wharfmq.client.core.transport.FrameWait;

import java.util.concurrent.atomic.AtomicLong;

/**
 * One session's producer credit, the client's side of producer flow control (docs/protocol.md, "Producer flow
 * control"): the bytes of messages its producers may still send. The server grants it ({@code PRODUCER_CREDIT}) as the
 * session opens and as it handles the session's SENDs, and holds it back while a destination they went to is over its
 * memory budget with the policy block. A send spends its encoded message's length; with nothing left it waits, as any
 * wait for a frame does ({@link FrameWait}: reading the socket itself while nobody else does), until credit comes, the
 * session closes or the connection is lost.
 *
 * <h2>Credit belongs to a link</h2>
 * The server counts a session's window per link: a reconnection creates the session again and it grants a fresh
 * window there. So the client's credit is kept per link ({@link Window}, by the link's generation), and a message is
 * charged to the window of the link it is written on, once per copy the server gets: a synchronous send sent again
 * after a reconnection spends again on the new link (the server counts the copy and returns its bytes), and a send
 * that was waiting for credit when its link was lost is not charged to the new link's window for a frame the dead
 * link swallows: {@link #spend} says its link is gone, and the send is encoded and charged again for the new one.
 * Charging the old window (then dropped) or nothing would let the client's count drift from the server's with each
 * reconnection: a leak lets a producer run further ahead than its window, a double charge leaves it waiting for
 * credit the server never owes.
 *
 * <p>While credit lasts a send pays a volatile read and one atomic addition. Granted by whichever thread reads the
 * connection; spent by the session's one sending thread.
 */
public final class ProducerCredit extends FrameWait {

    /** What the credit asks of its session, on the sending thread (and {@link #stopped} on any). */
    public interface Session {
        /** The connection's current link: a reconnection puts a new one in place while a send waits. */
        FrameLink link();

        /**
         * Sends the frames written to go with the next one, and settles what the connection's owner holds elsewhere
         * ({@code CoreConnection.beforeCreditWait}): the server may need them before it grants credit.
         */
        void flushSoonFrames();

        /** Whether the session closes or its connection is lost for good: a waiting send stops waiting. */
        boolean stopped();

        /** Throws why the session cannot send once {@link #stopped}. */
        void checkOpen() throws ClientException;
    }

    /** The credit of one link: what the server granted on it less what was spent for it. Replaced, never reset. */
    private static final class Window {
        /** The link's generation ({@link ConnectedLink#generation}); 0 before the session's first grant. */
        final int generation;
        /** Whether the link is lost: nothing more is granted or spent here. */
        final boolean lost;
        final AtomicLong bytes = new AtomicLong();

        Window(int generation, boolean lost) {
            this.generation = generation;
            this.lost = lost;
        }
    }

    private final Session session;
    private volatile Window window = new Window(0, false);
    /** The window a send waits on, and its link's generation: see {@link #isOver}. */
    private volatile Window awaited;
    private volatile int awaitedGeneration;

    public ProducerCredit(Session session) {
        super(null);
        this.session = session;
    }

    /** The connection's current link: a reconnection puts a new one in place while a send waits. */
    @Override
    protected FrameLink link() {
        return session.link();
    }

    /**
     * The session's link was lost: the credit it had is gone with it. The server grants a fresh window as the
     * reconnection creates the session again; a send waiting meanwhile learns that its link is gone.
     */
    public synchronized void linkLost() {
        window = new Window(window.generation, true);
        wake();
    }

    /**
     * The server granted {@code granted} more bytes on the link of generation {@code generation} (on the connection's
     * reading thread). The first grant on a newer link starts its window; a grant read from a lost link is dropped.
     */
    public synchronized void granted(int generation, int granted) {
        Window w = window;
        if (generation > w.generation) {
            w = new Window(generation, false);
            window = w;
        } else if (generation < w.generation || w.lost) {
            return;
        }
        w.bytes.addAndGet(granted);
        wake();
    }

    /**
     * Spends a message's {@code length} on {@code on}'s window, first waiting while nothing is left (what is left may
     * be less than the message: it may then go below zero, so any message fits a window).
     *
     * @return true when spent; false when {@code on} is lost (before or while this waited): nothing was spent, and
     * the message must be encoded and spent again for the link the reconnection makes
     * @throws ClientException when the session closes or the connection is lost while it waits ({@link
     *                         Session#checkOpen}), or the thread is interrupted (its interrupt is kept)
     */
    public boolean spend(int length, ConnectedLink on) throws ClientException {
        int generation = on.generation();
        while (true) {
            Window w = window;
            if (generation < w.generation || (generation == w.generation && w.lost)) {
                return false;
            }
            if (generation == w.generation && w.bytes.get() > 0) {
                w.bytes.addAndGet(-length);
                return true;
            }
            // none left on this link, or (never seen: the server grants before it answers CREATE_SESSION) not yet any
            session.flushSoonFrames(); // what waits to go with the next frame goes now: the server may need it
            awaitedGeneration = generation;
            awaited = w;
            if (!await(-1)) {
                throw new ClientException("Interrupted while the send waited for producer credit: the server holds it back"
                        + " while the destination is over its memory budget (docs/resilience.md)", null);
            }
            session.checkOpen(); // closed, or the connection lost, while it waited
        }
    }

    /** The session closes or its connection is lost: a send waiting for credit stops waiting. */
    public void stopWaiting() {
        wake();
    }

    /**
     * The awaited window was replaced (a newer link's first grant), or it is the waiting send's link's and has credit
     * or is lost; or the session closes or the connection is lost for good.
     */
    @Override
    protected boolean isOver() {
        Window w = awaited;
        return w == null || w != window || (w.generation == awaitedGeneration && (w.lost || w.bytes.get() > 0))
                || session.stopped();
    }
}
