package org.wharfmq.client.core.transport;

import org.wharfmq.client.core.ClientConfiguration;

import io.netty.buffer.ByteBufAllocator;
import org.wharfmq.protocol.frame.Frame;

/**
 * A client's link to a Wharf server: writes frames, and hands every frame that arrives to the
 * {@link FrameListener} given to {@link Transport#connect}. Thread-safe: any thread may write; frames leave in
 * the order they were written. SEND frames pass ownership of their message buffer to the link, which releases it
 * once written.
 *
 * <p>Two implementations: {@link SocketLink} for {@code tcp://} and {@code ssl://} (a blocking socket that the writing
 * thread writes itself, and a reader thread of its own) and {@link ChannelLink} for {@code vm://} (a Netty local
 * channel) and for {@code tcp://} and {@code ssl://} on a {@link NetworkLoop} (a Netty socket channel, whose writes
 * never block).
 */
public interface FrameLink {


    /**
     * Writes a frame, and any frames {@link #writeSoon} left waiting before it. A failure to write shows up as the
     * listener's {@link FrameListener#onFailure} and the link closing, never as an exception here.
     */
    void write(Frame frame);

    /**
     * Queues a frame nobody waits for and that need not leave at once (the acknowledgement of an AUTO_ACKNOWLEDGE
     * receive, a send inside a transaction, the opening of a consumer): it leaves with the next frame
     * written, with {@link #flush}, or at the latest {@value ClientConfiguration#PIGGYBACK_MILLIS} ms later; once more than
     * {@value ClientConfiguration#SOON_LIMIT_BYTES} message bytes wait, at once. Sending each of those on its own cost a
     * request/reply client a system call (and the server a read) per frame. Order with every other frame is kept.
     */
    void writeSoon(Frame frame);

    /**
     * {@link #writeSoon} for the acknowledgement of an AUTO_ACKNOWLEDGE receive, which no wait of this client needs
     * sent first: it leaves with the next frame written, with {@link #writeQueued}, or at the latest
     * {@value ClientConfiguration#PIGGYBACK_MILLIS} ms later, but not with a {@link #flush} alone; order with every
     * other frame is kept. The session calls {@link #writeQueued} before it hands the user the next message, so that
     * a crash of this process delivers again at most the last message handed out (JMS 2.0 section 6.2.10), while the
     * acknowledgements of the subscribers of a connection that wake for a message and sleep again leave together
     * in one write rather than in one each. By default {@link #writeSoon}.
     */
    default void writeLater(Frame frame) {
        writeSoon(frame);
    }

    /**
     * Sends what {@link #writeSoon} left waiting (not what {@link #writeLater} did, unless with it): called when the
     * application is about to block. Never blocks: if another thread is writing, the frames leave with it or, soon
     * after, from another thread.
     */
    void flush();

    /**
     * Returns once every frame this thread queued before ({@link #writeSoon}, {@link #writeLater}) is written to the
     * socket: writes the waiting frames itself, or waits for the thread that took them to finish writing them; at
     * once, without a system call, when another thread has written them already. Written, a frame reaches the server
     * even if this process is killed next. May block on a full socket, so not called by a thread that holds the read
     * turn ({@link #readWhileWaiting}). By default {@link #flush}.
     */
    default void writeQueued() {
        flush();
    }

    /**
     * Leader/follower reading: lets a thread that is about to wait for a frame (a consumer's next message, the
     * answer to a request) read the socket itself for up to {@code maxNanos}, delivering every frame it reads to
     * the listener as the reader thread would. The frame it waits for then needs no hand-over from another thread:
     * on a request/reply client that hand-over (a futex wake-up and a sleep) was a sixth of the client's CPU.
     * The caller must hold no lock that delivering a frame takes. {@link FrameWait} is the one loop around this,
     * {@link #follow} and {@link #promote}.
     *
     * @return true if this thread read (or its slice ran out): the caller looks again at what it waits for;
     * false if another thread reads now: the caller registers with {@link #follow} and sleeps as before
     */
    default boolean readWhileWaiting(long maxNanos) {
        return false;
    }

    /**
     * Registers {@code wake}, run when the read turn is free again so that this waiting thread takes it; the caller
     * then sleeps until woken (by {@code wake} or by a frame delivered for it) and calls {@link #unfollow}.
     *
     * @return false if the turn is already free again (nothing registered): the caller should not sleep but call
     * {@link #readWhileWaiting}
     */
    default boolean follow(Runnable wake) {
        return true;
    }

    /** Removes a {@link #follow} registration. */
    default void unfollow(Runnable wake) {
    }

    /** Wakes one following thread if the read turn is free: called by a waiting thread as it stops waiting. */
    default void promote() {
    }

    /**
     * From now on only the link's own reader thread reads: once a MessageListener is used, messages must be read
     * when no application thread waits.
     */
    default void readerOnly() {
    }

    /**
     * How many messages the link keeps for DELIVER_SAME frames (docs/protocol.md, "Shared deliveries"): the
     * SHARE_DELIVERIES its connection sends, when the server offers it; 0, by default, for a link that keeps none
     * (it then never asks).
     */
    default int keptDeliveries() {
        return 0;
    }

    /** Allocates the buffers that SEND frames carry. */
    ByteBufAllocator alloc();

    /**
     * Starts heartbeats once the handshake has agreed an interval: a PING goes out after {@code millis} without a
     * write, and {@link FrameListener#onSilence} is called (and the link closed) after three intervals without a
     * read.
     */
    void startHeartbeat(int millis);

    /**
     * From the next frame read on, the longest frame (type byte and payload) the link reads from the server: a longer
     * one ends the link with a {@link org.wharfmq.protocol.frame.FrameTooLongException}, unread. A link starts at
     * {@link org.wharfmq.client.core.ClientConfiguration#HANDSHAKE_FRAME_BYTES}; the handshake raises it to what the
     * server declared in {@code HELLO_OK}. Called on the link's reading thread, by what it delivers the frame to.
     */
    void frameLimit(int maxFrameLength);

    /** Whether the link is still open. */
    boolean isOpen();

    /**
     * What TLS the link negotiated, for log lines: {@code TLSv1.3 TLS_AES_128_GCM_SHA256 on OpenSSL}; null for a
     * plain or in-VM link.
     */
    default String tls() {
        return null;
    }

    /**
     * Whether the link takes more without holding more than its limit in waiting: false while the bytes written and
     * not yet taken by the socket are over it (a link on a {@link NetworkLoop}, whose writes never block; a blocking one is always
     * writable, its writer waits instead). A writer that may not wait holds back what it would write next until true.
     */
    default boolean isWritable() {
        return true;
    }

    /**
     * Closes the link, dropping frames not yet written, and waits up to {@code waitMillis} for the listener's
     * {@link FrameListener#onClosed}. Idempotent; may be called from the listener.
     */
    void close(long waitMillis);
}
