package org.wharfmq.jms;

import org.wharfmq.jms.transport.FrameLink;
import org.wharfmq.jms.transport.FrameWait;

import javax.jms.IllegalStateException;
import javax.jms.JMSException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One session's producer credit, the client's side of producer flow control (docs/protocol.md, "Producer flow
 * control"): the bytes of messages its producers may still send. The server grants it ({@code PRODUCER_CREDIT}) as the
 * session opens and as it handles the session's SENDs, and holds it back while a destination they went to is over its
 * memory budget with the policy block. A send spends its encoded message's length; with nothing left it waits, as any
 * wait for a frame does ({@link FrameWait}: reading the socket itself while nobody else does), until credit comes, the
 * session closes or the connection is lost.
 *
 * <p>While credit lasts a send pays one atomic addition. Granted by whichever thread reads the connection; spent by the
 * session's one sending thread.
 */
final class ProducerCredit extends FrameWait {

    private final WharfSession session;
    private final WharfConnection connection;
    private final AtomicLong bytes = new AtomicLong();

    ProducerCredit(WharfSession session) {
        super(null);
        this.session = session;
        this.connection = session.connection();
    }

    /** The connection's current link: a reconnection puts a new one in place while a send waits. */
    @Override
    protected FrameLink link() {
        return connection.link();
    }

    /**
     * The session's link was lost: the credit it had is gone with it. The server grants a fresh window as the
     * reconnection creates the session again, and a send waiting meanwhile waits for that.
     */
    void linkLost() {
        bytes.set(0);
        wake();
    }

    /** The server granted {@code granted} more bytes (on the connection's reading thread). */
    void granted(int granted) {
        bytes.addAndGet(granted);
        wake();
    }

    /**
     * Spends a message's {@code length}, first waiting while nothing is left (what is left may be less than the
     * message: it may then go below zero, so any message fits a window).
     *
     * @throws JMSException when the session closes or the connection is lost while it waits, or the thread is
     *                      interrupted (its interrupt is kept)
     */
    void spend(int length) throws JMSException {
        if (bytes.get() <= 0) {
            connection.flushSoonFrames(); // what waits to go with the next frame goes now: the server may need it
            if (!await(-1)) {
                throw new JMSException("Interrupted while the send waited for producer credit: the server holds it back"
                        + " while the destination is over its memory budget (docs/resilience.md)");
            }
            session.checkOpen(); // closed, or the connection lost, while it waited
        }
        bytes.addAndGet(-length);
    }

    /** The session closes or its connection is lost: a send waiting for credit stops waiting. */
    void stopWaiting() {
        wake();
    }

    @Override
    protected boolean isOver() {
        return bytes.get() > 0 || session.isClosing() || connection.lostCause() != null;
    }
}
