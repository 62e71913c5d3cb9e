package org.wharfmq.server.channels;

import io.netty.buffer.ByteBuf;
import org.wharfmq.client.core.ClientException;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.message.MessageHeaders;
import org.wharfmq.protocol.message.MessageReader;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.protocol.message.WireMessage;
import org.wharfmq.protocol.selector.Selector;
import org.wharfmq.protocol.selector.SelectorParseException;
import org.wharfmq.server.ChannelAcceptor;
import org.wharfmq.server.Configuration;
import org.wharfmq.server.ServerPlugin;
import org.wharfmq.server.WharfException;
import org.wharfmq.server.queue.MemoryBudget;
import org.wharfmq.server.queue.SystemQueues;
import org.wharfmq.server.security.AuditLog;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One receiver channel: puts the batches its partner sends inside the queue manager, on the partner's connection's
 * event loop, through a transacted session of that connection ({@link ChannelAcceptor.Peer#putInBatch}), with no frame
 * and no thread hand-off. The channel's thread ({@code wharf-channel-receiver-NAME}) and its in-VM connection only read
 * the sync record at the start and write it for an operator's reset while no partner has the channel open.
 *
 * <p>A batch is one transaction of that session, put when the partner ends it: every message on the queue its
 * transmission header names ({@link ReceiverPuts}), and the channel's new sync record on
 * {@link ChannelConfiguration#SYNC_QUEUE} taking the place of the old one (which the commit takes off that queue,
 * selected by the channel's name), in one journal transaction; once it is durable the partner is answered OK. One
 * batch commits at a time: a batch that ends while the last one commits (a sender with {@code pipelineLength: 2})
 * waits for it, on the same event loop. A batch it could not commit {@code maxBatchAttempts} times (its queue full,
 * say) is put message by message, each message it cannot put going to the dead-letter queue with the reason; a message
 * the dead-letter queue refuses too stops the channel ({@link ErrorCode#CHANNEL_STOPPED}): nothing is lost, the batch
 * stays with the sender.
 *
 * <p>With {@code nonPersistentSpeed: fast} agreed by both ends at the channel's open, a non-persistent message is put
 * at once, outside the batch's transaction, through the other, untransacted session of the partner's connection
 * ({@link ChannelAcceptor.Peer#put}), as its frame is read. So is one the sender sent outside the batches
 * (CHANNEL_FAST_MESSAGE: it took it off its transmission queue without a unit of work, so it never comes again), and
 * one that came in a batch; the ids of the latter, put and not yet in a committed batch, are kept ({@link #fastIds})
 * so that a batch sent again after a failure does not put them twice (nor does a batch sent again after an alter to
 * {@code normal}, nor the sender sending one of them again outside the batches). One its queue refuses goes to the
 * dead-letter queue with the reason at once.
 *
 * <p>Bounds: a batch's messages are held until its partner ends it, and ended batches until they commit, counted
 * against the server's memory budget meanwhile ({@link MemoryBudget#add}: no lock, no allocation) as what they keep:
 * each message is a slice of the buffer it was read in, which it keeps whole, so a batch counts each such buffer's
 * capacity once and {@link Configuration#MESSAGE_OVERHEAD_BYTES} a message (a partner that sends its messages one a
 * read holds a read buffer of {@link Configuration#CHANNEL_READ_BYTES} or more a message, not its length). A message
 * the budget has no room for drops its batch (what was held of it is let go, the rest is dropped as it comes), which
 * is refused when it ends, for the sender to send again later (by then its messages wait on its transmission queue
 * and go in a burst, a read holding many); a batch whose messages' lengths and overhead pass
 * {@link ChannelConfiguration#BATCH_BUDGET_PERCENT} of the budget (what its sender's batchBytes governs) is dropped
 * the same way and refused for good ({@link ErrorCode#CHANNEL_STOPPED}: its sender stops, saying why). The receiver
 * never stops reading its partner nor waits for room, so a channel cannot stall on a budget its own batches fill.
 * Beside the budget, a partner may send no more than a sender does: {@link ChannelConfiguration#MAX_BATCH_SIZE}
 * messages and {@link ChannelConfiguration#MAX_BATCH_BYTES} bytes (and one message) in a batch, and
 * {@link ChannelConfiguration#MAX_PIPELINE_LENGTH} batches ended and not answered (and one for slack); one that sends
 * more is closed, saying so, and audited.
 *
 * <p>Ownership: the sync record's numbers ({@link #state}) and the batch counts are the event loop's of the partner
 * that has the channel open, and the channel's thread's while none has ({@link #running} hands them over: a partner's
 * connection lets go of it only after its last commit has ended). Its definition may be altered at run time
 * ({@link #alter}): a partner meets the definition in force when it opens the channel.
 */
final class ChannelReceiver implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(ChannelReceiver.class.getName());
    private static final long TIMEOUT_MILLIS = ChannelConfiguration.ANSWER_TIMEOUT_MILLIS;
    /** The in-VM session that reads and resets the sync record; also its consumer's and producer's id. */
    private static final int SESSION = 1;
    private static final WireDestination SYNC_QUEUE = WireDestination.queue(ChannelConfiguration.SYNC_QUEUE);

    /** The definition in force (ChannelAdmin replaces it; a partner takes it at its open). Any thread. */
    private volatile ChannelDefinition definition;
    private final ServerPlugin.Host host;
    private final ReceiverPuts puts;
    private final ExecutorService worker;
    /** Selects the channel's sync record on {@link ChannelConfiguration#SYNC_QUEUE}. */
    private final String syncSelector;
    /** {@link #syncSelector} parsed, for the commits. */
    private final Selector syncRecord;
    /** Whether a partner has the channel open now (any thread: an event loop sets it and clears it). */
    private final AtomicBoolean running = new AtomicBoolean();
    /** Whether the log has said that a partner opened it bound to no partner identity (any thread). */
    private final AtomicBoolean unboundOpened = new AtomicBoolean();
    /** The partner's session that has the channel open, which stopping ends; null when none (any thread). */
    private volatile Inbound inbound;
    /** {@link #state} as operators see it (written after each commit). */
    private volatile ReceiverState reported = ReceiverState.NONE;
    /** What the channel has put since the start (the event loops count, operators and metrics read). */
    private final ChannelCounters received = new ChannelCounters();
    private CoreLink local;
    /** The last commit, as the sync record holds it. Null until it is read. */
    private volatile ReceiverState state;
    /** The batch that failed last, and how many times in a row. */
    private long failedBatch = -1;
    private int failedAttempts;
    /**
     * The ids of non-persistent messages put FAST whose batch has not been committed yet: added and looked up on the
     * partner's event loop as the messages come, removed as their batch commits.
     */
    private final Set<String> fastIds = ConcurrentHashMap.newKeySet();
    /** The proxy subscription sets its partners took of maxSubscriptionSetsPerMinute, across their connections. */
    private final SubscriptionSetRate subscriptionSets = new SubscriptionSetRate();
    /** {@link #reported}'s companion: the nonPersistentSpeed agreed with the partner connected now, null when none. */
    private volatile ChannelDefinition.NonPersistentSpeed agreedSpeed;

    ChannelReceiver(ChannelDefinition definition, ServerPlugin.Host host, ReceiverPuts puts) {
        this.definition = definition;
        this.host = host;
        this.puts = puts;
        this.syncSelector = ReceiverState.CHANNEL + " = '" + definition.name().replace("'", "''") + "'";
        try {
            this.syncRecord = Selector.parse(syncSelector);
        } catch (SelectorParseException e) {
            throw new IllegalStateException("The sync record's selector of channel " + definition.name(), e);
        }
        this.worker = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "wharf-channel-receiver-" + definition.name());
            t.setDaemon(true);
            return t;
        });
    }

    /** Connects in-VM and reads the channel's sync record. */
    void start() throws Exception {
        worker.submit(() -> {
            local = CoreLink.open(host.vmUrl(), Map.of(), null, null, "receiver channel " + definition.name(), 0,
                    ChannelConfiguration.CONNECT_TIMEOUT_MILLIS.defaultValue());
            local.call(id -> new Frame.CreateSession(id, SESSION, true, 0), TIMEOUT_MILLIS);
            local.receiveFor(SESSION);
            local.call(id -> new Frame.CreateProducer(id, SESSION, SESSION, SYNC_QUEUE), TIMEOUT_MILLIS);
            pullSyncRecord();
            closeSyncConsumer(); // the record goes back to its queue as it was, for the batches' commits to take
            reported = state;
            return null;
        }).get();
    }

    ChannelDefinition definition() {
        return definition;
    }

    /** True the first time a partner opens it while it is bound to no partner identity, for the warning. Any thread. */
    boolean firstUnboundOpen() {
        return unboundOpened.compareAndSet(false, true);
    }

    /** Whether a partner has the channel open now. Any thread. */
    boolean isRunning() {
        return running.get();
    }

    /**
     * Replaces the definition (the same name and type): the next partner to open the channel meets it; a partner
     * connected now keeps the one it opened with (ChannelAdmin refuses a change of partner under it).
     */
    void alter(ChannelDefinition altered) {
        definition = altered;
    }

    /**
     * Sets the channel's sequence number to {@code sequence} (IBM MQ's RESET CHANNEL SEQNUM) in its sync record, on
     * the channel's thread; its last batch id stays (the sender's batch in doubt is resolved against it). The sender
     * takes it when it opens the channel next. The caller checked that no partner has it open.
     */
    void reset(long sequence) throws Exception {
        onWorker(() -> {
            long delivery = pullSyncRecord();
            try {
                local.write(new Frame.Send(0, SESSION, SESSION, ReceiverPuts.syncRecord(definition.name(), sequence,
                        state.batchId())));
                List<Frame.Consumed> consumed = delivery < 0 ? List.of() : List.of(new Frame.Consumed(SESSION, delivery));
                local.call(id -> new Frame.Commit(id, SESSION, consumed), TIMEOUT_MILLIS);
                state = new ReceiverState(sequence, state.batchId(), true);
                reported = state;
            } catch (Exception e) {
                local.call(id -> new Frame.Rollback(id, SESSION, List.of()), TIMEOUT_MILLIS); // the old record stays
                throw e;
            } finally {
                closeSyncConsumer();
            }
        });
    }

    /**
     * Ends the channel for good (deleted at run time; the caller checked that no partner has it open). Its sync
     * record stays on {@link ChannelConfiguration#SYNC_QUEUE} for a channel defined again under its name, which goes
     * on from its numbers.
     */
    void delete() throws Exception {
        try {
            onWorker(() -> local.call(id -> new Frame.CloseSession(id, SESSION), TIMEOUT_MILLIS));
        } finally {
            close();
        }
    }

    /** What an operator has the channel's thread do. */
    private interface Work {
        void run() throws Exception;
    }

    private void onWorker(Work work) throws Exception {
        try {
            worker.submit(() -> {
                work.run();
                return null;
            }).get(TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
    }

    /**
     * A partner opens the channel (on its connection's event loop): answered with the sequence number, last batch id
     * and the nonPersistentSpeed agreed ({@code fast}: both ends said FAST), after the sequence number its operator
     * set on the sender ({@code reset channel}, IBM MQ's RESET CHANNEL SEQNUM), if any, is committed in the sync
     * record.
     */
    ChannelAcceptor.Inbound open(ChannelAcceptor.Peer partner, int requestId, ChannelDefinition opened, boolean fast,
                                 long resetSequence) {
        if (!running.compareAndSet(false, true)) {
            throw WharfException.illegalState("Channel '" + definition.name() + "' is running already (one connection"
                    + " carries a channel at a time); it may be a connection that is not yet found dead: try again"
                    + " after the heartbeat interval.");
        }
        agreedSpeed = fast ? ChannelDefinition.NonPersistentSpeed.FAST : ChannelDefinition.NonPersistentSpeed.NORMAL;
        Inbound opening = new Inbound(partner, opened, fast);
        inbound = opening;
        partner.execute(() -> opening.answerOpen(requestId, resetSequence)); // once the connection has the Inbound
        return opening;
    }

    /**
     * Ends the partner's session, if one is open, once the batches it has ended are committed and answered (an
     * operator stopped the channel): a batch it has not ended is dropped, and its sender resolves it when it opens the
     * channel again. Any thread.
     */
    void endPartner(String reason) {
        Inbound open = inbound;
        if (open != null) {
            open.partner.execute(() -> open.end(reason));
        }
    }

    /** What {@code wharf admin display chstatus} shows. Any thread. */
    ChannelStatus status() {
        // the counters before the numbers: a batch's commit moves the numbers first, so a status that counts a
        // batch's messages shows its sequence number too
        long messages = received.messages();
        long bytes = received.bytes();
        long batches = received.batches();
        ReceiverState shown = reported;
        ChannelDefinition d = definition;
        boolean running = this.running.get();
        return new ChannelStatus(d.name(), "receiver", running ? "RUNNING" : "INACTIVE",
                d.partnerQueueManager(), null, messages, shown.sequence(), shown.batchId(), bytes, batches, null, false,
                null, running && agreedSpeed != null ? agreedSpeed.text() : null);
    }

    /**
     * A batch the partner ended: its messages (the callee's to release), the bytes they hold of the server's memory
     * budget (the callee's to release), and its numbers; {@code refused} when its messages were dropped as they came,
     * for want of room in the budget.
     */
    private record Ended(List<ByteBuf> messages, long heldBytes, List<String> fast, long fastBytes, int requestId,
                         long sequence, long batchId, Refused refused) {
    }

    /**
     * Why a batch's messages were dropped as they came: the server's memory budget had no room for them
     * ({@code forGood} false: the sender sends it again later), or the batch holds more than a receiver holds of one
     * ({@link ChannelConfiguration#BATCH_BUDGET_PERCENT} of the budget: {@code forGood}, its sender stops).
     *
     * @param held   when it was refused, this message included: for good, its messages' lengths and the overhead
     *               of each; else what it held of the budget (the buffers its messages were read in, and the overhead)
     * @param used   what the budget held then
     */
    private record Refused(boolean forGood, long held, long used) {
    }

    /** One open channel's batches, on its connection's event loop, which owns every field. */
    private final class Inbound implements ChannelAcceptor.Inbound {
        private final ChannelAcceptor.Peer partner;
        /** The definition the partner opened the channel with. */
        private final ChannelDefinition opened;
        /** Whether both ends agreed on nonPersistentSpeed FAST at the open. */
        private final boolean fastAgreed;
        /** Who the messages come from: the partner's user and the queue manager the channel is bound to. */
        private final ReceiverPuts.Partner from;
        private List<ByteBuf> batch = new ArrayList<>();
        /** The ids of this batch's messages put FAST. */
        private List<String> fast = new ArrayList<>();
        /** The bytes of this batch's messages put FAST. */
        private long fastBytes;
        /** The bytes of this batch's messages the partner sent (held or dropped), at most {@link #maxHeldBytes}. */
        private long gatheredBytes;
        /** The most bytes of one batch a sender sends: batchBytes' most and one message more. */
        private final long maxHeldBytes = ChannelConfiguration.MAX_BATCH_BYTES + host.config().maxMessageLength();
        /** The server's memory budget, which the batches held here count against until they are put. */
        private final MemoryBudget budget = host.memoryBudget();
        /** The most of it one batch may hold ({@link ChannelConfiguration#BATCH_BUDGET_PERCENT}). */
        private final long batchBudgetBytes = (long) (budget.maxBytes()
                * (ChannelConfiguration.BATCH_BUDGET_PERCENT / 100.0));
        /**
         * What {@link #batch} holds of the budget: the buffers its messages were read in (each message a slice of one,
         * which it keeps whole: {@link #readBuffer}), each counted once, and the overhead of each message, as queues
         * count it.
         */
        private long heldBytes;
        /**
         * {@link #batch}'s messages' lengths and the overhead of each: what the batch holds wherever its messages were
         * read, which its sender's batchBytes bounds ({@link #batchBudgetBytes} refuses it for good past it).
         */
        private long sizeBytes;
        /**
         * The buffer the last message of {@link #batch} was read in, counted in {@link #heldBytes}; null when the batch
         * holds none. Compared only: the batch keeps it alive (that message's slice), so it is no buffer recycled.
         */
        private ByteBuf lastBuffer;
        /** Why this batch's messages are dropped as they come; null while it is held. */
        private Refused refused;
        /** How many of this batch's messages were dropped ({@link #refused}). */
        private int dropped;
        /** Batches ended while another commits, to commit in turn. */
        private final ArrayDeque<Ended> waiting = new ArrayDeque<>();
        /** Whether a commit is under way. */
        private boolean committing;
        /** Whether the connection has ended. */
        private boolean closed;
        /** Why an operator ends the partner's session, once the batches it ended are committed; null until then. */
        private String ending;

        Inbound(ChannelAcceptor.Peer partner, ChannelDefinition opened, boolean fast) {
            this.partner = partner;
            this.opened = opened;
            this.fastAgreed = fast;
            this.from = new ReceiverPuts.Partner(partner.identity(), opened.partnerQueueManager(),
                    PartnerBinding.boundToIdentity(opened), new SendVerdicts(host.accessControl(), partner.identity()),
                    opened.name(), opened.maxSubscriptionSetsPerMinute(), subscriptionSets);
        }

        @Override
        public void message(ByteBuf message) {
            int count = batch.size() + fast.size() + dropped;
            if (count >= ChannelConfiguration.MAX_BATCH_SIZE
                    || gatheredBytes + message.readableBytes() > maxHeldBytes) {
                message.release();
                beyondBounds(count >= ChannelConfiguration.MAX_BATCH_SIZE
                        ? "more than " + ChannelConfiguration.MAX_BATCH_SIZE + " messages in one batch (the most a"
                                + " sender's batchSize may be)"
                        : "more than " + maxHeldBytes + " bytes in one batch (the most a sender's batchBytes may be, "
                                + ChannelConfiguration.MAX_BATCH_BYTES + ", and one message of maxMessageLength)");
                return;
            }
            if (fastAgreed) {
                MessageHeaders headers = from.read(message);
                String id = headers.messageId();
                if (!headers.persistent() && id != null) { // without an id it could be put twice: with the batch
                    fast.add(id);
                    fastBytes += message.readableBytes();
                    putFast(partner, from, message, headers);
                    return;
                }
            }
            gatheredBytes += message.readableBytes();
            long size = message.readableBytes() + Configuration.MESSAGE_OVERHEAD_BYTES;
            // the messages of one read come one after another: its buffer counted with the first held
            ByteBuf buffer = readBuffer(message);
            long counted = Configuration.MESSAGE_OVERHEAD_BYTES + (buffer == lastBuffer ? 0 : buffer.capacity());
            if (refused == null && sizeBytes + size > batchBudgetBytes) {
                refuse(true, sizeBytes + size);
            } else if (refused == null && !budget.hasRoomFor(counted)) {
                refuse(false, heldBytes + counted);
            }
            if (refused != null) {
                dropped++;
                message.release();
                return;
            }
            budget.add(counted);
            heldBytes += counted;
            sizeBytes += size;
            lastBuffer = buffer;
            batch.add(message);
        }

        /**
         * Drops this batch's messages, those held and those still to come, giving their bytes back to the budget: it
         * is refused when it ends ({@link #commit}), for good or to be sent again. {@code held}: what it would have
         * held with the message that met the limit (its size for good, its bytes of the budget else).
         */
        private void refuse(boolean forGood, long held) {
            refused = new Refused(forGood, held, budget.usedBytes());
            dropped += batch.size();
            batch.forEach(ByteBuf::release);
            batch.clear();
            releaseHeld();
        }

        /** This batch holds nothing of the budget from now on (its messages let go, or handed to {@link Ended}). */
        private void releaseHeld() {
            budget.release(heldBytes);
            heldBytes = 0;
            sizeBytes = 0;
            lastBuffer = null;
        }

        /**
         * Closes the partner's connection, which sent {@code what}, beyond what a receiver holds for a sender (a
         * batch's messages until it ends, the batches ended until they commit): no Wharf sender does, so the partner is
         * broken or hostile, and it is not let fill this queue manager's memory. Its batch not ended is dropped, and
         * those ended and not answered are not put; a sender resolves them when it opens the channel again.
         */
        private void beyondBounds(String what) {
            String reason = "Queue manager " + host.config().name() + " closed receiver channel '" + opened.name()
                    + "': its partner sent " + what + ", beyond what it holds for a sender. Nothing of its batches"
                    + " not yet answered is put; a sender resolves them when it opens the channel again. Check the"
                    + " sending queue manager (its channel's batchSize, batchBytes and pipelineLength, its version).";
            AuditLog.refused(partner.identity(), partner.remoteAddress(), "channel '" + opened.name() + "': " + what);
            LOG.log(System.Logger.Level.WARNING, reason + " (" + partner.identity().describe() + " at "
                    + partner.remoteAddress() + ")");
            partner.close(reason);
        }

        @Override
        public void fastMessage(ByteBuf message) {
            String refusal = !fastAgreed ? "the channel agreed on nonPersistentSpeed normal at its open, so every message"
                    + " comes in a batch"
                    : MessageReader.persistentOf(message) ? "a persistent message travels in a batch only, so"
                    + " that it is committed exactly once" : null;
            if (refusal != null) {
                message.release();
                LOG.log(System.Logger.Level.WARNING, "Channel " + opened.name() + ": a message outside the batches"
                        + " (CHANNEL_FAST_MESSAGE) was refused: " + refusal);
                partner.close("Queue manager " + host.config().name() + " refused a message outside the batches"
                        + " (CHANNEL_FAST_MESSAGE) on channel '" + opened.name() + "': " + refusal + ". Start the"
                        + " channel again (docs/distributed.md, nonPersistentSpeed).");
                return;
            }
            putOutsideBatch(partner, from, message);
        }

        @Override
        public void endBatch(int requestId, long sequence, long batchId) {
            Ended ended = new Ended(batch, heldBytes, fast, fastBytes, requestId, sequence, batchId, refused);
            batch = new ArrayList<>();
            fast = new ArrayList<>();
            fastBytes = 0;
            gatheredBytes = 0;
            heldBytes = 0; // Ended's to release now
            sizeBytes = 0;
            lastBuffer = null;
            refused = null;
            dropped = 0;
            if (ending != null) {
                drop(ended); // not answered: its sender resolves it
            } else if (committing && waiting.size() >= ChannelConfiguration.MAX_PIPELINE_LENGTH) {
                drop(ended);
                beyondBounds((waiting.size() + 2) + " batches ended and not yet answered (more than a sender has on"
                        + " the way: its pipelineLength, at most " + ChannelConfiguration.MAX_PIPELINE_LENGTH + ")");
            } else if (committing) {
                waiting.add(ended);
            } else {
                commit(ended);
            }
        }

        @Override
        public void fastConfirm(int requestId) {
            // every message before it was read and put (or dead-lettered), on this loop, in the frames' order
            partner.send(new Frame.Ok(requestId));
        }

        @Override
        public void closed() {
            closed = true;
            batch.forEach(ByteBuf::release);
            batch = List.of();
            releaseHeld();
            Ended notCommitted;
            while ((notCommitted = waiting.poll()) != null) { // not committed: their sender resolves them
                drop(notCommitted);
            }
            if (!committing) {
                letGo();
            } // else once the commit under way has ended: a partner opening the channel again meets its numbers
        }

        /** An operator ends the partner's session: now, or once the commit under way has ended. */
        void end(String reason) {
            if (closed) {
                return;
            }
            ending = reason;
            if (!committing) {
                partner.close(reason);
            }
        }

        /** The channel is free for the next partner: the last thing a connection does with it. */
        private void letGo() {
            if (inbound == this) {
                inbound = null;
            }
            agreedSpeed = null;
            running.set(false);
        }

        /** Lets go of ended batch {@code b} unput: its messages, and their bytes of the budget. */
        private void drop(Ended b) {
            b.messages().forEach(ByteBuf::release);
            budget.release(b.heldBytes());
        }

        /** The next batch ended while one committed, if any; what waited for the commit under way. */
        private void next() {
            if (closed) {
                letGo();
                return;
            }
            Ended ended = waiting.poll();
            if (ended != null) {
                commit(ended);
            } else if (ending != null) {
                partner.close(ending);
            }
        }

        /**
         * Puts batch {@code b} and the channel's sync record in the partner's session's transaction and commits it;
         * the partner is answered once it is durable, or why it was not committed.
         */
        private void commit(Ended b) {
            String channel = opened.name();
            boolean inStep = false;
            // the puts count the messages in their queues from here: the batch holds nothing of the budget apart
            budget.release(b.heldBytes());
            try {
                if (b.refused() != null) {
                    throw refusal(b);
                }
                ReceiverState last = state;
                int count = b.messages().size() + b.fast().size();
                if (b.batchId() != last.batchId() + 1 || b.sequence() != last.sequence() + count) {
                    throw new WharfException(ErrorCode.ILLEGAL_STATE, "Channel '" + channel + "' sent batch "
                            + b.batchId() + " ending at sequence number " + b.sequence() + ", but its receiver expects"
                            + " batch " + (last.batchId() + 1) + " ending at " + (last.sequence() + count) + ": the"
                            + " sender's sequence is out of step. Start the channel again (it takes the receiver's).");
                }
                inStep = true;
                int attempt = (failedBatch == b.batchId() ? failedAttempts : 0) + 1;
                boolean messageByMessage = attempt >= opened.maxBatchAttempts();
                long bytes = b.fastBytes();
                List<String> putAlready = List.of();
                for (ByteBuf message : b.messages()) {
                    bytes += message.readableBytes();
                    // only a batch sent again after an alter from fast to normal holds messages put FAST already
                    MessageHeaders headers = fastAgreed || fastIds.isEmpty() ? null : from.read(message);
                    String id = headers == null ? null : putFastAlready(headers);
                    if (id != null) {
                        putAlready = putAlready.isEmpty() ? new ArrayList<>() : putAlready;
                        putAlready.add(id);
                    } else if (messageByMessage) {
                        putOrDeadLetter(partner, from, message, headers, b.batchId(), attempt);
                    } else {
                        ReceiverPuts.Routed routed = puts.route(from, message, headers);
                        partner.putInBatch(routed.bytes(), routed.headers());
                    }
                }
                partner.putInBatch(ReceiverPuts.syncRecord(channel, b.sequence(), b.batchId()), null);
                committing = true;
                long counted = bytes;
                List<String> taken = putAlready;
                partner.commitBatch(ChannelConfiguration.SYNC_QUEUE, last.recorded() ? syncRecord : null,
                        failure -> committed(b, count, counted, taken, failure));
            } catch (Exception e) {
                committing = false;
                partner.rollbackBatch();
                notCommitted(b, inStep, e);
                next();
            } finally {
                b.messages().forEach(ByteBuf::release);
            }
        }

        /** Why batch {@code b}, whose messages were dropped as they came ({@link #refuse}), is not committed. */
        private Exception refusal(Ended b) {
            String qm = host.config().name();
            String channel = opened.name();
            Refused r = b.refused();
            if (r.forGood()) {
                return new BatchTooLarge("batch " + b.batchId() + " holds more than " + batchBudgetBytes + " bytes (its"
                        + " messages' lengths and " + Configuration.MESSAGE_OVERHEAD_BYTES + " bytes each, "
                        + r.held() + " when it was dropped), more than a receiver holds of one batch: "
                        + ChannelConfiguration.BATCH_BUDGET_PERCENT + " % of queue manager " + qm + "'s memory budget"
                        + " of " + budget.maxBytes() + " bytes (" + budget.setting() + "). Nothing of it is put, and"
                        + " the channel stops, the batch kept on the sending queue manager. Lower the channel's"
                        + " batchBytes on the sending queue manager (wharf admin alter channel " + channel
                        + " --batch-bytes N, N well under " + batchBudgetBytes + ") or, for a message this long on its"
                        + " own, raise maxMemoryBytes in queue manager " + qm + "'s configuration (a restart); then"
                        + " start the channel again (wharf admin start channel " + channel + ").");
            }
            return new WharfException(ErrorCode.QUEUE_FULL, "queue manager " + qm + "'s memory budget for messages"
                    + " had no room for it: it held " + r.used() + " of its " + budget.maxBytes() + " bytes ("
                    + budget.setting() + "), and the batch's messages, held until it ends, would hold " + r.held()
                    + " more (the buffers they were read in and " + Configuration.MESSAGE_OVERHEAD_BYTES + " bytes"
                    + " each), so they were dropped as they came. Nothing of it is put; the sender sends it again after"
                    + " its retry interval. If this lasts, let the consumers of queue manager " + qm + "'s queues"
                    + " catch up (wharf admin display server shows the budget), or raise maxMemoryBytes.");
        }

        /** Batch {@code b}'s commit has ended, with {@code failure} or none: the partner is answered. */
        private void committed(Ended b, int count, long bytes, List<String> putAlready, WharfException failure) {
            committing = false;
            if (failure == null) {
                state = new ReceiverState(b.sequence(), b.batchId(), true);
                reported = state;
                failedBatch = -1;
                failedAttempts = 0;
                b.fast().forEach(fastIds::remove);
                putAlready.forEach(fastIds::remove);
                received.add(count, bytes);
                partner.send(new Frame.Ok(b.requestId()));
            } else {
                notCommitted(b, true, failure);
            }
            next();
        }

        /** Answers the partner that batch {@code b} was not committed, and why; counts the attempt when in step. */
        private void notCommitted(Ended b, boolean inStep, Exception e) {
            if (!(e instanceof ReceiverPuts.SetsTooOften)) { // logged once a run where it was refused
                LOG.log(System.Logger.Level.WARNING, "Channel " + opened.name() + ": batch " + b.batchId()
                        + " not committed: " + e.getMessage());
            }
            if (inStep) {
                failedAttempts = failedBatch == b.batchId() ? failedAttempts + 1 : 1;
                failedBatch = b.batchId();
            }
            ErrorCode code = e instanceof DeadLetterQueueRefused || e instanceof BatchTooLarge
                    ? ErrorCode.CHANNEL_STOPPED : e instanceof WharfException w ? w.code() : ErrorCode.ILLEGAL_STATE;
            partner.send(new Frame.Error(b.requestId(), code, "Queue manager " + host.config().name()
                    + " did not commit batch " + b.batchId() + " of channel '" + opened.name() + "'" + (inStep
                    ? " (attempt " + failedAttempts + " of " + opened.maxBatchAttempts() + ")" : "") + ": "
                    + e.getMessage(), 0, 0));
        }

        /** Answers the partner's open with the channel's numbers, after taking a sequence number it was reset to. */
        void answerOpen(int requestId, long resetSequence) {
            if (closed) {
                return;
            }
            if (state == null) {
                partner.send(new Frame.Error(requestId, ErrorCode.ILLEGAL_STATE, "Receiver channel '" + opened.name()
                        + "' is not ready: its sync record could not be read.", 0, 0));
            } else if (resetSequence != Frame.ChannelOpen.NO_RESET) {
                resetAtOpen(requestId, resetSequence);
            } else {
                partner.send(new Frame.ChannelStatus(requestId, state.sequence(), state.batchId(), fastAgreed));
            }
        }

        /**
         * Takes the sequence number the partner's operator set on its sender: commits a sync record with it (and the
         * last batch id as it was), then answers the open.
         */
        private void resetAtOpen(int requestId, long resetSequence) {
            ReceiverState last = state;
            try {
                partner.putInBatch(ReceiverPuts.syncRecord(opened.name(), resetSequence, last.batchId()), null);
            } catch (WharfException e) {
                partner.rollbackBatch();
                resetRefused(requestId, resetSequence, e);
                return;
            }
            committing = true;
            partner.commitBatch(ChannelConfiguration.SYNC_QUEUE, last.recorded() ? syncRecord : null, failure -> {
                committing = false;
                if (failure != null) {
                    resetRefused(requestId, resetSequence, failure);
                } else {
                    state = new ReceiverState(resetSequence, last.batchId(), true);
                    reported = state;
                    LOG.log(System.Logger.Level.INFO, "Channel " + opened.name() + ": sequence number reset to "
                            + resetSequence + " (was " + last.sequence() + ") by the sender's operator");
                    partner.send(new Frame.ChannelStatus(requestId, state.sequence(), state.batchId(), fastAgreed));
                }
                next();
            });
        }

        private void resetRefused(int requestId, long resetSequence, WharfException e) {
            partner.send(new Frame.Error(requestId, ErrorCode.ILLEGAL_STATE, "Receiver channel '" + opened.name()
                    + "' could not take the sequence number " + resetSequence + " its sender was reset to: "
                    + e.getMessage() + ". The sender tries again when it opens the channel next.", 0, 0));
        }
    }

    /**
     * The buffer {@code message} is a slice of, which it keeps whole while it is held: the buffer it was read in (the
     * decoder's cumulation: a read's buffer of at least {@link Configuration#CHANNEL_READ_BYTES}, or one that gathered
     * a frame across reads), or a large frame's own. No allocation.
     */
    private static ByteBuf readBuffer(ByteBuf message) {
        ByteBuf buffer = message;
        for (ByteBuf under = buffer.unwrap(); under != null; under = buffer.unwrap()) {
            buffer = under;
        }
        return buffer;
    }

    /**
     * Puts a non-persistent message of a batch, whose headers {@code headers} name its id, at once, outside the batch,
     * unless an earlier sending of its batch did. On the partner's event loop.
     */
    private void putFast(ChannelAcceptor.Peer peer, ReceiverPuts.Partner partner, ByteBuf message,
                         MessageHeaders headers) {
        String id = headers.messageId();
        if (fastIds.size() >= ChannelConfiguration.MAX_FAST_IDS) {
            fastIds.clear(); // ids of batches that never came back (their sender lost them with a restart)
        }
        if (!fastIds.add(id)) {
            message.release();
            return;
        }
        putNow(peer, partner, message, headers);
    }

    /**
     * Puts a non-persistent message the sender sent outside the batches: at once, without a unit of work, never twice
     * (the sender took it off its transmission queue as it sent it). On the partner's event loop.
     */
    private void putOutsideBatch(ChannelAcceptor.Peer peer, ReceiverPuts.Partner partner, ByteBuf message) {
        long bytes = message.readableBytes();
        // a message put FAST from a batch that then failed comes back to the sender, which may send it outside the
        // batches this time (its batch cut short where the redelivered messages came apart): put already, not again
        MessageHeaders headers = fastIds.isEmpty() ? null : partner.read(message);
        String putAlready = headers == null ? null : putFastAlready(headers);
        if (putAlready != null) {
            fastIds.remove(putAlready); // taken off the sender's transmission queue now: it does not come again
            message.release();
        } else if (putNow(peer, partner, message, headers)) {
            received.addOutsideBatch(bytes);
        }
    }

    /**
     * Puts a non-persistent message now, inside the queue manager, through the partner's connection
     * ({@link ChannelAcceptor.Peer#put}): where its transmission header says, as the partner's user may, else on the
     * dead-letter queue with the reason; one its queue refuses goes to the dead-letter queue too, and one that queue
     * refuses is lost, as FAST allows. Releases {@code message}. {@code headers}: its headers when read already, else
     * null ({@link ReceiverPuts#route}).
     *
     * @return whether it was put (where it was going or on the dead-letter queue)
     */
    private boolean putNow(ChannelAcceptor.Peer peer, ReceiverPuts.Partner partner, ByteBuf message,
                           MessageHeaders headers) {
        try {
            ReceiverPuts.Routed routed = puts.route(partner, message, headers);
            try {
                peer.put(routed.bytes(), routed.headers());
            } catch (WharfException refused) {
                if (routed.deadLettered()) {
                    throw refused; // it was for the dead-letter queue already
                }
                peer.put(puts.deadLetter(message, routed.intended(), "queue manager " + host.config().name()
                        + " could not put it on '" + routed.intended() + "': " + refused.getMessage()).bytes(), null);
            }
            return true;
        } catch (ReceiverPuts.SetsTooOften e) {
            return false; // a proxy subscription set past the rate, logged once a run where it was refused
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "Channel " + definition.name() + ": a non-persistent message"
                    + " (nonPersistentSpeed fast) was not put: " + e.getMessage());
            return false;
        } finally {
            message.release();
        }
    }

    /** A batch larger than a receiver holds of one whatever frees ({@link ChannelConfiguration#BATCH_BUDGET_PERCENT}). */
    private static final class BatchTooLarge extends Exception {
        BatchTooLarge(String message) {
            super(message);
        }
    }

    /** A dead-letter queue that refused a message the channel could not put where it was going. */
    private static final class DeadLetterQueueRefused extends Exception {
        DeadLetterQueueRefused(String message) {
            super(message);
        }
    }

    /**
     * Puts one message of a batch tried too often in the batch's transaction; refused, it goes to the dead-letter
     * queue with the reason, in the same transaction. {@code headers}: its headers when read already, else null.
     */
    private void putOrDeadLetter(ChannelAcceptor.Peer peer, ReceiverPuts.Partner partner, ByteBuf message,
                                 MessageHeaders headers, long batchId, int attempt) throws DeadLetterQueueRefused {
        ReceiverPuts.Routed routed = puts.route(partner, message, headers);
        String refusal;
        try {
            peer.putInBatch(routed.bytes(), routed.headers());
            return;
        } catch (WharfException refused) {
            if (routed.deadLettered()) {
                throw deadLetterQueueRefused(routed.intended(), refused, null);
            }
            refusal = refused.getMessage();
        }
        ReceiverPuts.Routed dead = puts.deadLetter(message, routed.intended(), "queue manager " + host.config().name()
                + " could not put it on '" + routed.intended() + "' (batch " + batchId + ", attempt " + attempt + "): "
                + refusal);
        try {
            peer.putInBatch(dead.bytes(), null);
        } catch (WharfException refused) {
            throw deadLetterQueueRefused(routed.intended(), refused, refusal);
        }
    }

    private DeadLetterQueueRefused deadLetterQueueRefused(String intended, WharfException refused, String why) {
        return new DeadLetterQueueRefused("a message for '" + intended + "'" + (why == null ? "" : " (" + why + ")")
                + " could not go to the dead-letter queue " + SystemQueues.DEAD_LETTER_QUEUE + " either: "
                + refused.getMessage() + " The channel stops, its batch kept on the sender's transmission queue: "
                + (refused.code() == ErrorCode.MESSAGE_TOO_LARGE
                        ? "raise maxMessageLength in queue manager " + host.config().name() + "'s configuration (a"
                                + " restart)"
                        : "make room on the dead-letter queue (or on '" + intended + "')")
                + " and start the channel again on the sending queue manager (wharf admin start channel "
                + definition.name() + ").");
    }

    /**
     * The id of the message of {@code headers} when it is non-persistent and was put FAST already (in an earlier
     * sending of its batch); else null.
     */
    private String putFastAlready(MessageHeaders headers) {
        String id = headers.messageId();
        return !headers.persistent() && id != null && fastIds.contains(id) ? id : null;
    }

    /**
     * On the channel's thread: the channel's sync record, delivered to the in-VM session's consumer (its delivery id;
     * -1 when the channel has none), and {@link #state} as it says. Close the consumer after ({@link #closeSyncConsumer}).
     */
    private long pullSyncRecord() throws Exception {
        local.call(id -> new Frame.CreateConsumer(id, SESSION, SESSION, SYNC_QUEUE, syncSelector, 0, 0, null),
                TIMEOUT_MILLIS);
        local.write(new Frame.Pull(SESSION, 1));
        ReceiverState record = ReceiverState.NONE;
        long delivery = -1;
        while (true) {
            Frame f = local.next(TIMEOUT_MILLIS);
            if (f == null) {
                throw new ClientException("No answer to the sync record's PULL within " + TIMEOUT_MILLIS + " ms", null);
            }
            if (f instanceof Frame.PullDone) {
                state = record;
                return delivery;
            }
            Frame.Deliver d = (Frame.Deliver) f;
            try {
                WireMessage m = WireMessage.decode(d.message().duplicate());
                record = new ReceiverState((Long) m.properties.get(ReceiverState.SEQUENCE),
                        (Long) m.properties.get(ReceiverState.BATCH), true);
                delivery = d.deliveryId();
            } finally {
                d.message().release();
            }
        }
    }

    /** Closes the sync record's consumer: a record it holds unsettled goes back to its queue as it was. */
    private void closeSyncConsumer() throws ClientException {
        local.call(id -> new Frame.CloseConsumer(id, SESSION, SESSION, 0), TIMEOUT_MILLIS);
    }

    @Override
    public void close() {
        Inbound open = inbound;
        if (open != null) {
            open.partner.close("Queue manager " + host.config().name() + " is stopping its channels.");
        }
        worker.shutdownNow();
        try {
            worker.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (local != null) {
            local.close();
        }
    }
}
