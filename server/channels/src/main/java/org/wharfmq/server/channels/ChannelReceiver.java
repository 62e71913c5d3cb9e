package org.wharfmq.server.channels;

import io.netty.buffer.ByteBuf;
import org.wharfmq.client.core.ClientException;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.message.MessageHeaders;
import org.wharfmq.protocol.message.MessageReader;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.protocol.message.WireMessage;
import org.wharfmq.server.ChannelAcceptor;
import org.wharfmq.server.ServerPlugin;
import org.wharfmq.server.WharfException;
import org.wharfmq.server.queue.SystemQueues;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One receiver channel: puts the batches its partner sends, on a thread of its own
 * ({@code wharf-channel-receiver-NAME}) over an in-VM connection of its own, so that channels commit side by side rather
 * than one after the other. The thread owns every field not marked otherwise.
 *
 * <p>A batch is one transaction of the channel's session: every message on the queue its transmission header names
 * ({@link ReceiverPuts}), and the channel's new sync record on {@link ChannelConfiguration#SYNC_QUEUE} (selected by the
 * channel's name) in place of the old one; then the partner is answered OK. A batch it could not commit
 * {@code maxBatchAttempts} times (its queue full, say) is put message by message, each message it cannot put going to
 * the dead-letter queue with the reason; a message the dead-letter queue refuses too stops the channel
 * ({@link ErrorCode#CHANNEL_STOPPED}): nothing is lost, the batch stays with the sender.
 *
 * <p>With {@code nonPersistentSpeed: fast} agreed by both ends at the channel's open, a non-persistent message is put
 * at once, outside the batch's transaction, inside the queue manager: on the partner's connection's event loop, as its
 * frame is read, through a session of that connection ({@link ChannelAcceptor.Peer#put}), with no in-VM frame and no
 * hand-off to the channel's thread. So is one the sender sent outside the batches (CHANNEL_FAST_MESSAGE: it took it off
 * its transmission queue without a unit of work, so it never comes again), and one that came in a batch; the ids of
 * the latter, put and not yet in a committed batch, are kept ({@link #fastIds}, shared by the event loop and the
 * channel's thread) so that a batch sent again after a failure does not put them twice (nor does a batch sent again
 * after an alter to {@code normal}, nor the sender sending one of them again outside the batches). One its queue
 * refuses goes to the dead-letter queue with the reason at once.
 *
 * <p>Its definition may be altered at run time ({@link #alter}): a partner meets the definition in force when it
 * opens the channel. An operator's reset of the sequence number ({@link #reset}) runs on the channel's thread too.
 */
final class ChannelReceiver implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(ChannelReceiver.class.getName());
    private static final long TIMEOUT_MILLIS = ChannelConfiguration.ANSWER_TIMEOUT_MILLIS;
    /** The transacted session of the batches and the sync record; also the sync record's consumer id. */
    private static final int SESSION = 1;
    private static final WireDestination SYNC_QUEUE = WireDestination.queue(ChannelConfiguration.SYNC_QUEUE);

    /** The definition in force (ChannelAdmin replaces it; a partner takes it at its open). Any thread. */
    private volatile ChannelDefinition definition;
    private final ServerPlugin.Host host;
    private final ReceiverPuts puts;
    private final ExecutorService worker;
    /** Whether a partner has the channel open now (any thread: an event loop sets it, the worker clears it). */
    private final AtomicBoolean running = new AtomicBoolean();
    /** Whether the log has said that a partner opened it bound to no partner identity (any thread). */
    private final AtomicBoolean unboundOpened = new AtomicBoolean();
    /** The connection of the partner that has the channel open, which stopping ends (any thread). */
    private volatile ChannelAcceptor.Peer peer;
    /** {@link #state} as operators see it (written after each commit). */
    private volatile ReceiverState reported = ReceiverState.NONE;
    /** What the channel has put since the start (the thread and the event loop count, operators and metrics read). */
    private final ChannelCounters received = new ChannelCounters();
    private CoreLink local;
    /** The last commit: the sync record as read back. Null until it is read. */
    private ReceiverState state;
    /** The producers' ids of {@link #SESSION} by destination ({@link #key}). */
    private final Map<String, Integer> producers = new HashMap<>();
    /** The batch that failed last, and how many times in a row. */
    private long failedBatch = -1;
    private int failedAttempts;
    /**
     * The ids of non-persistent messages put FAST whose batch has not been committed yet: added and looked up on the
     * partner's event loop as the messages come, removed by the thread as their batch commits.
     */
    private final Set<String> fastIds = ConcurrentHashMap.newKeySet();
    /** {@link #reported}'s companion: the nonPersistentSpeed agreed with the partner connected now, null when none. */
    private volatile ChannelDefinition.NonPersistentSpeed agreedSpeed;

    ChannelReceiver(ChannelDefinition definition, ServerPlugin.Host host, ReceiverPuts puts) {
        this.definition = definition;
        this.host = host;
        this.puts = puts;
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
                    ChannelConfiguration.DEFAULT_CONNECT_TIMEOUT_MILLIS);
            local.call(id -> new Frame.CreateSession(id, SESSION, true, 0), TIMEOUT_MILLIS);
            local.receiveFor(SESSION);
            local.call(id -> new Frame.CreateConsumer(id, SESSION, SESSION, SYNC_QUEUE,
                    ReceiverState.CHANNEL + " = '" + definition.name().replace("'", "''") + "'", 0, 0, null),
                    TIMEOUT_MILLIS);
            state = pullSyncRecord();
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
            try {
                commitSyncRecord(sequence, state.batchId());
            } catch (Exception e) {
                rollBack(); // the old record stays
                throw e;
            }
        });
    }

    /**
     * Ends the channel for good (deleted at run time; the caller checked that no partner has it open): its session
     * closed and answered first, so that its sync record is back on {@link ChannelConfiguration#SYNC_QUEUE} for a
     * channel defined again under its name, which goes on from its numbers.
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
     * and the nonPersistentSpeed agreed ({@code fast}: both ends said FAST), on the worker, after whatever it still
     * has to do.
     */
    ChannelAcceptor.Inbound open(ChannelAcceptor.Peer partner, int requestId, ChannelDefinition opened, boolean fast,
                                 long resetSequence) {
        if (!running.compareAndSet(false, true)) {
            throw WharfException.illegalState("Channel '" + definition.name() + "' is running already (one connection"
                    + " carries a channel at a time); it may be a connection that is not yet found dead: try again"
                    + " after the heartbeat interval.");
        }
        peer = partner;
        agreedSpeed = fast ? ChannelDefinition.NonPersistentSpeed.FAST : ChannelDefinition.NonPersistentSpeed.NORMAL;
        worker.execute(() -> partner.send(opened(requestId, fast, resetSequence)));
        return new Inbound(partner, opened, fast);
    }

    /**
     * The answer to a partner's open: the sync record's numbers, after the sequence number its operator set on the
     * sender ({@code reset channel}, IBM MQ's RESET CHANNEL SEQNUM), if any, is committed in it.
     */
    private Frame.FromServer opened(int requestId, boolean fast, long resetSequence) {
        if (state == null) {
            return new Frame.Error(requestId, ErrorCode.ILLEGAL_STATE, "Receiver channel '" + definition.name()
                    + "' is not ready: its sync record could not be read.", 0, 0);
        }
        if (resetSequence != Frame.ChannelOpen.NO_RESET) {
            long before = state.sequence();
            try {
                commitSyncRecord(resetSequence, state.batchId());
            } catch (Exception e) {
                rollBack(); // the old record stays
                return new Frame.Error(requestId, ErrorCode.ILLEGAL_STATE, "Receiver channel '" + definition.name()
                        + "' could not take the sequence number " + resetSequence + " its sender was reset to: "
                        + e.getMessage() + ". The sender tries again when it opens the channel next.", 0, 0);
            }
            LOG.log(System.Logger.Level.INFO, "Channel " + definition.name() + ": sequence number reset to "
                    + resetSequence + " (was " + before + ") by the sender's operator");
        }
        return new Frame.ChannelStatus(requestId, state.sequence(), state.batchId(), fast);
    }

    /**
     * Ends the partner's session, if one is open, once the batches it has ended are committed and answered (an
     * operator stopped the channel): a batch it has not ended is dropped, and its sender resolves it when it opens the
     * channel again. Any thread.
     */
    void endPartner(String reason) {
        run(() -> {
            ChannelAcceptor.Peer open = peer;
            if (open != null) {
                open.close(reason);
            }
        }, () -> { });
    }

    /** What {@code wharf admin display chstatus} shows. Any thread. */
    ChannelStatus status() {
        ReceiverState shown = reported;
        ChannelDefinition d = definition;
        boolean running = this.running.get();
        return new ChannelStatus(d.name(), "receiver", running ? "RUNNING" : "INACTIVE",
                d.partnerQueueManager(), null, received.messages(), shown.sequence(), shown.batchId(),
                received.bytes(), received.batches(), null, false, null,
                running && agreedSpeed != null ? agreedSpeed.text() : null);
    }

    /** One open channel's batch in the making; on its connection's event loop. */
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

        Inbound(ChannelAcceptor.Peer partner, ChannelDefinition opened, boolean fast) {
            this.partner = partner;
            this.opened = opened;
            this.fastAgreed = fast;
            this.from = new ReceiverPuts.Partner(partner.identity(), opened.partnerQueueManager(),
                    PartnerBinding.boundToIdentity(opened));
        }

        @Override
        public void message(ByteBuf message) {
            if (fastAgreed) {
                MessageHeaders headers = MessageHeaders.read(message);
                String id = headers.messageId();
                if (!headers.persistent() && id != null) { // without an id it could be put twice: with the batch
                    fast.add(id);
                    fastBytes += message.readableBytes();
                    putFast(partner, from, message, id);
                    return;
                }
            }
            batch.add(message);
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
            List<ByteBuf> messages = batch;
            List<String> ids = fast;
            long idsBytes = fastBytes;
            batch = new ArrayList<>();
            fast = new ArrayList<>();
            fastBytes = 0;
            run(() -> partner.send(commit(opened, fastAgreed, from, messages, ids, idsBytes, requestId,
                    sequence, batchId)), () -> {
                messages.forEach(ByteBuf::release);
                partner.close("Queue manager " + host.config().name() + " is stopping its channels.");
            });
        }

        @Override
        public void closed() {
            List<ByteBuf> messages = batch;
            batch = List.of();
            peer = null;
            Runnable release = () -> {
                messages.forEach(ByteBuf::release);
                agreedSpeed = null;
                running.set(false);
            };
            run(release, release); // the plugin stopped: nothing of the batch was committed
        }
    }

    /** Runs {@code task} on the worker, after what it has to do; {@code refused} when the worker has stopped. */
    private void run(Runnable task, Runnable refused) {
        try {
            worker.execute(task);
        } catch (RejectedExecutionException stopped) {
            refused.run();
        }
    }

    /**
     * Puts a non-persistent message of a batch at once, outside the batch, unless an earlier sending of its batch did.
     * On the partner's event loop.
     */
    private void putFast(ChannelAcceptor.Peer peer, ReceiverPuts.Partner partner, ByteBuf message, String id) {
        if (fastIds.size() >= ChannelConfiguration.MAX_FAST_IDS) {
            fastIds.clear(); // ids of batches that never came back (their sender lost them with a restart)
        }
        if (!fastIds.add(id)) {
            message.release();
            return;
        }
        putNow(peer, partner, message);
    }

    /**
     * Puts a non-persistent message the sender sent outside the batches: at once, without a unit of work, never twice
     * (the sender took it off its transmission queue as it sent it). On the partner's event loop.
     */
    private void putOutsideBatch(ChannelAcceptor.Peer peer, ReceiverPuts.Partner partner, ByteBuf message) {
        long bytes = message.readableBytes();
        // a message put FAST from a batch that then failed comes back to the sender, which may send it outside the
        // batches this time (its batch cut short where the redelivered messages came apart): put already, not again
        String putAlready = fastIds.isEmpty() ? null : putFastAlready(message);
        if (putAlready != null) {
            fastIds.remove(putAlready); // taken off the sender's transmission queue now: it does not come again
            message.release();
        } else if (putNow(peer, partner, message)) {
            received.addOutsideBatch(bytes);
        }
    }

    /**
     * Puts a non-persistent message now, inside the queue manager, through the partner's connection
     * ({@link ChannelAcceptor.Peer#put}): where its transmission header says, as the partner's user may, else on the
     * dead-letter queue with the reason; one its queue refuses goes to the dead-letter queue too, and one that queue
     * refuses is lost, as FAST allows. Releases {@code message}.
     *
     * @return whether it was put (where it was going or on the dead-letter queue)
     */
    private boolean putNow(ChannelAcceptor.Peer peer, ReceiverPuts.Partner partner, ByteBuf message) {
        try {
            ReceiverPuts.Routed routed = puts.route(partner, message);
            try {
                peer.put(routed.bytes());
            } catch (WharfException refused) {
                if (routed.deadLettered()) {
                    throw refused; // it was for the dead-letter queue already
                }
                peer.put(puts.deadLetter(message, routed.intended(), "queue manager " + host.config().name()
                        + " could not put it on '" + routed.intended() + "': " + refused.getMessage()).bytes());
            }
            return true;
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "Channel " + definition.name() + ": a non-persistent message"
                    + " (nonPersistentSpeed fast) was not put: " + e.getMessage());
            return false;
        } finally {
            message.release();
        }
    }

    /**
     * Puts a batch and the channel's sync record in one transaction; the answer for the partner. {@code opened} is
     * the definition its partner opened the channel with, {@code fastAgreed} whether nonPersistentSpeed FAST was
     * agreed.
     */
    private Frame.FromServer commit(ChannelDefinition opened, boolean fastAgreed, ReceiverPuts.Partner partner, List<ByteBuf> messages,
                                    List<String> fast, long fastBytes, int requestId, long sequence, long batchId) {
        String channel = opened.name();
        boolean inStep = false;
        try {
            int count = messages.size() + fast.size();
            if (batchId != state.batchId() + 1 || sequence != state.sequence() + count) {
                throw new WharfException(ErrorCode.ILLEGAL_STATE, "Channel '" + channel + "' sent batch " + batchId
                        + " ending at sequence number " + sequence + ", but its receiver expects batch "
                        + (state.batchId() + 1) + " ending at " + (state.sequence() + count) + ": the sender's"
                        + " sequence is out of step. Start the channel again (it takes the receiver's).");
            }
            inStep = true;
            int attempt = (failedBatch == batchId ? failedAttempts : 0) + 1;
            boolean messageByMessage = attempt >= opened.maxBatchAttempts();
            long bytes = fastBytes;
            List<String> putAlready = List.of();
            for (ByteBuf message : messages) {
                bytes += message.readableBytes();
                // only a batch sent again after an alter from fast to normal holds messages put FAST already
                String id = fastAgreed || fastIds.isEmpty() ? null : putFastAlready(message);
                if (id != null) {
                    putAlready = putAlready.isEmpty() ? new ArrayList<>() : putAlready;
                    putAlready.add(id);
                } else if (messageByMessage) {
                    putOrDeadLetter(partner, message, batchId, attempt);
                } else {
                    ReceiverPuts.Routed routed = puts.route(partner, message);
                    int producer = producer(routed.destination());
                    // not answered: a put that fails makes the commit fail (TRANSACTION_ROLLED_BACK, with why)
                    local.write(new Frame.Send(0, SESSION, producer, routed.bytes()));
                }
            }
            commitSyncRecord(sequence, batchId);
            failedBatch = -1;
            failedAttempts = 0;
            fast.forEach(fastIds::remove);
            putAlready.forEach(fastIds::remove);
            received.add(count, bytes);
            return new Frame.Ok(requestId);
        } catch (Exception e) {
            LOG.log(System.Logger.Level.WARNING, "Channel " + channel + ": batch " + batchId + " not committed: "
                    + e.getMessage());
            rollBack();
            if (inStep) {
                failedAttempts = failedBatch == batchId ? failedAttempts + 1 : 1;
                failedBatch = batchId;
            }
            ErrorCode code = e instanceof DeadLetterQueueRefused ? ErrorCode.CHANNEL_STOPPED
                    : e instanceof WharfException w ? w.code()
                    : e instanceof ClientException c && c.code() != null ? c.code() : ErrorCode.ILLEGAL_STATE;
            return new Frame.Error(requestId, code, "Queue manager " + host.config().name() + " did not commit"
                    + " batch " + batchId + " of channel '" + channel + "'" + (inStep ? " (attempt " + failedAttempts
                    + " of " + opened.maxBatchAttempts() + ")" : "") + ": " + e.getMessage(), 0, 0);
        } finally {
            messages.forEach(ByteBuf::release);
        }
    }

    /**
     * The id of {@code message} when it is non-persistent and was put FAST already (in an earlier sending of its
     * batch); else null.
     */
    private String putFastAlready(ByteBuf message) {
        MessageHeaders headers = MessageHeaders.read(message);
        String id = headers.messageId();
        return !headers.persistent() && id != null && fastIds.contains(id) ? id : null;
    }

    /** Writes the channel's new sync record in place of {@link #state}'s and commits the session's transaction. */
    private void commitSyncRecord(long sequence, long batchId) throws Exception {
        int syncProducer = producer(SYNC_QUEUE);
        local.write(new Frame.Send(0, SESSION, syncProducer,
                ReceiverPuts.syncRecord(definition.name(), sequence, batchId)));
        List<Frame.Consumed> consumed = state.deliveryId() < 0 ? List.of()
                : List.of(new Frame.Consumed(SESSION, state.deliveryId()));
        local.call(id -> new Frame.Commit(id, SESSION, consumed), TIMEOUT_MILLIS);
        state = pullSyncRecord();
        reported = state;
    }

    /** A dead-letter queue that refused a message the channel could not put where it was going. */
    private static final class DeadLetterQueueRefused extends Exception {
        DeadLetterQueueRefused(String message) {
            super(message);
        }
    }

    /** Puts one message of a batch tried too often, answered: refused, it goes to the dead-letter queue. */
    private void putOrDeadLetter(ReceiverPuts.Partner partner, ByteBuf message, long batchId, int attempt)
            throws ClientException, DeadLetterQueueRefused {
        ReceiverPuts.Routed routed = puts.route(partner, message);
        int producer = producer(routed.destination());
        String refusal;
        try {
            local.call(id -> new Frame.Send(id, SESSION, producer, routed.bytes()), TIMEOUT_MILLIS);
            return;
        } catch (ClientException refused) {
            if (routed.deadLettered()) {
                throw deadLetterQueueRefused(routed.intended(), refused, null);
            }
            refusal = refused.getMessage();
        }
        ReceiverPuts.Routed dead = puts.deadLetter(message, routed.intended(), "queue manager " + host.config().name()
                + " could not put it on '" + routed.intended() + "' (batch " + batchId + ", attempt " + attempt + "): "
                + refusal);
        int deadProducer = producer(dead.destination());
        try {
            local.call(id -> new Frame.Send(id, SESSION, deadProducer, dead.bytes()), TIMEOUT_MILLIS);
        } catch (ClientException refused) {
            throw deadLetterQueueRefused(routed.intended(), refused, refusal);
        }
    }

    private DeadLetterQueueRefused deadLetterQueueRefused(String intended, ClientException refused, String why) {
        return new DeadLetterQueueRefused("a message for '" + intended + "'" + (why == null ? "" : " (" + why + ")")
                + " could not go to the dead-letter queue " + SystemQueues.DEAD_LETTER_QUEUE + " either: "
                + refused.getMessage() + " The channel stops, its batch kept on the sender's transmission queue: make"
                + " room on the dead-letter queue (or on '" + intended + "') and start the channel again on the"
                + " sending queue manager (wharf admin start channel " + definition.name() + ").");
    }

    private void rollBack() {
        try {
            local.call(id -> new Frame.Rollback(id, SESSION, List.of()), TIMEOUT_MILLIS);
            state = pullSyncRecord(); // the rollback gave the sync record back to the queue: take it again
        } catch (Exception e) {
            LOG.log(System.Logger.Level.ERROR, "Channel " + definition.name() + ": rollback failed: "
                    + e.getMessage());
        }
    }

    /** The channel's sync record, delivered to its session and left unconsumed; NONE when it has none. */
    private ReceiverState pullSyncRecord() throws Exception {
        local.write(new Frame.Pull(SESSION, 1));
        ReceiverState record = ReceiverState.NONE;
        while (true) {
            Frame f = local.next(TIMEOUT_MILLIS);
            if (f == null) {
                throw new ClientException("No answer to the sync record's PULL within " + TIMEOUT_MILLIS + " ms", null);
            }
            if (f instanceof Frame.PullDone) {
                return record;
            }
            Frame.Deliver d = (Frame.Deliver) f;
            try {
                WireMessage m = WireMessage.decode(d.message().duplicate());
                record = new ReceiverState((Long) m.properties.get(ReceiverState.SEQUENCE),
                        (Long) m.properties.get(ReceiverState.BATCH), d.deliveryId());
            } finally {
                d.message().release();
            }
        }
    }

    private int producer(WireDestination destination) throws ClientException {
        String key = key(destination);
        Integer known = producers.get(key);
        if (known != null) {
            return known;
        }
        int producer = producers.size() + 1;
        local.call(id -> new Frame.CreateProducer(id, SESSION, producer, destination), TIMEOUT_MILLIS);
        producers.put(key, producer);
        return producer;
    }

    /** A producer's key: a queue and a topic may share a name. */
    private static String key(WireDestination destination) {
        return destination.kind() + ":" + destination.name();
    }

    @Override
    public void close() {
        ChannelAcceptor.Peer open = peer;
        if (open != null) {
            open.close("Queue manager " + host.config().name() + " is stopping its channels.");
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
