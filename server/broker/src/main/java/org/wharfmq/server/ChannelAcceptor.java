package org.wharfmq.server;

import io.netty.buffer.ByteBuf;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.message.MessageHeaders;
import org.wharfmq.protocol.selector.Selector;
import org.wharfmq.server.security.Identity;

import javax.security.auth.x500.X500Principal;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The receiving end of channels from other queue managers, which a plugin (module {@code server/channels}) gives the
 * queue manager ({@link ServerPlugin.Host#acceptChannels}): a connection on the queue manager's listeners that sends
 * CHANNEL_OPEN (docs/protocol.md) after its handshake, and whose user has the {@code channel} permission, is handed to
 * it; every later CHANNEL_MESSAGE, CHANNEL_FAST_MESSAGE, CHANNEL_FAST_CONFIRM and CHANNEL_END_BATCH of that
 * connection goes to the {@link Inbound} it returned.
 * The broker checks the permission and routes; what the channel does with its messages is the plugin's.
 *
 * <p>{@link #open} and the {@link Inbound}'s methods are called on the connection's event loop, one at a time, in the
 * frames' order: they must not block. The channel's messages are put there too, inside the queue manager, through
 * sessions of the partner's connection ({@link Peer#put}, {@link Peer#putInBatch}, {@link Peer#commitBatch}), with
 * no frame and no thread hand-off.
 */
public interface ChannelAcceptor {

    /**
     * A connection opens channel {@code channel} from queue manager {@code queueManager}, whose sender would send
     * non-persistent messages outside the batches when {@code fastNonPersistent}. Answer it with {@link Peer#send} of
     * a {@link Frame.ChannelStatus} carrying {@code requestId} (or an {@link Frame.Error}), now or later.
     * {@code resetSequence} is the sequence number an operator set on the sender ({@code reset channel}), for the
     * receiver to take before it answers; {@link Frame.ChannelOpen#NO_RESET} for none.
     *
     * @return where the channel's frames go from now on
     * @throws WharfException to refuse the channel (an unknown channel, a partner it is not for); the connection is
     *                        answered ERROR with the message and stays open
     */
    Inbound open(Peer peer, int requestId, String channel, String queueManager, boolean fastNonPersistent,
                 long resetSequence);

    /** The connection a channel arrived on. Any thread. */
    interface Peer {

        /** Who the partner logged in as: the authority its messages are put with. */
        Identity identity();

        /** Where it connects from. */
        String remoteAddress();

        /** Whether it connected through a TLS listener. */
        boolean tls();

        /**
         * The subject of the TLS client certificate it connected with, verified against the listener's trusted CAs;
         * empty without one (plain TCP, or TLS without a client certificate).
         */
        Optional<X500Principal> certificateSubject();

        /**
         * Puts a message the partner brought on this queue manager now, outside any unit of work, inside the queue
         * manager: through a session of the partner's connection with the queue manager's own authority (the plugin
         * checks the partner's: its user's permissions on where the message goes), with no frame and no thread
         * hand-off ({@code session.InProcessPuts}). A non-persistent message is on its queue when this returns, a
         * persistent one once the journal has it (a failure to store it is logged). On the connection's event loop,
         * from an {@link Inbound} method. Takes over {@code message}. {@code headers}: its headers when the plugin
         * has read them already ({@link MessageHeaders#read} of these very bytes, routing it), so that the put does
         * not read them again; null to have them read.
         *
         * @throws WharfException why it was refused (its queue full, say): nothing was put
         */
        void put(ByteBuf message, MessageHeaders headers);

        /**
         * Puts a message of the batch under way in the batch's transaction, inside the queue manager: through a
         * transacted session of the partner's connection, as {@link #put}, but nothing of it is visible until
         * {@link #commitBatch}. On the connection's event loop. Takes over {@code message}; {@code headers} as for
         * {@link #put}.
         *
         * @throws WharfException why it was refused (its queue full, say): nothing of it was put; the batch's earlier
         *                        puts stay in its transaction
         */
        void putInBatch(ByteBuf message, MessageHeaders headers);

        /**
         * Commits the batch under way: its puts, and the taking of the message of queue {@code queue} that
         * {@code taking} selects (the channel's previous sync record, replaced by one of the puts; null: none), in
         * one journal transaction. {@code done} runs on the connection's event loop once the commit is durable, with
         * null, or once nothing of it was committed (the record to take not waiting there, the journal failing),
         * with why; it runs even if the connection ends meanwhile. One commit at a time: the next batch's puts wait
         * for {@code done}. On the connection's event loop.
         */
        void commitBatch(String queue, Selector taking, Consumer<WharfException> done);

        /** Drops the batch under way: nothing of its puts becomes visible. On the connection's event loop. */
        void rollbackBatch();

        /** Runs {@code task} on the connection's event loop, where the {@link Inbound}'s methods run. Any thread. */
        void execute(Runnable task);

        /** Sends the partner a frame (an answer: OK, ERROR, CHANNEL_STATUS). */
        void send(Frame.FromServer frame);

        /** Ends the connection, telling the partner why. */
        void close(String reason);
    }

    /** One open channel's frames, on its connection's event loop. */
    interface Inbound {

        /** A message of the current batch; the callee owns the buffer. */
        void message(ByteBuf message);

        /**
         * A non-persistent message outside the batches (CHANNEL_FAST_MESSAGE); the callee owns the buffer, and refuses
         * it (closing the connection) unless the channel agreed to such messages at its open.
         */
        void fastMessage(ByteBuf message);

        /** The current batch ends: commit it with {@code sequence} and {@code batchId}, then answer {@code requestId}. */
        void endBatch(int requestId, long sequence, long batchId);

        /**
         * The partner asks to confirm the messages outside the batches before this (CHANNEL_FAST_CONFIRM): answer
         * {@code requestId} OK, every one of them having been read.
         */
        void fastConfirm(int requestId);

        /** The connection has ended: whatever of the batch was not committed is dropped. */
        void closed();
    }
}
