package org.wharfmq.server.channels;

import io.netty.buffer.ByteBuf;
import org.wharfmq.client.core.ClientException;
import org.wharfmq.client.core.PendingRequests;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.message.MessageHeaders;
import org.wharfmq.protocol.message.WireMessage;
import org.wharfmq.server.ChannelAcceptor;
import org.wharfmq.server.ServerPlugin;
import org.wharfmq.server.WharfException;
import org.wharfmq.server.queue.SystemQueues;
import org.wharfmq.server.security.Identity;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One receiver channel: puts the batches its partner sends, on a thread of its own
 * ({@code wharf-channel-receiver-NAME}) over an in-VM connection of its own, so that channels commit side by side rather than one after the other. The
 * thread owns every field not marked otherwise.
 *
 * <p>A batch is one transaction of the channel's session: every message on the queue its transmission header names
 * ({@link ReceiverPuts}), and the channel's new sync record on {@link ChannelConfiguration#SYNC_QUEUE} (selected by the
 * channel's name) in place of the old one; then the partner is answered OK. A batch it could not commit
 * {@code maxBatchAttempts} times (its queue full, say) is put message by message, each message it cannot put going to
 * the dead-letter queue with the reason; a message the dead-letter queue refuses too stops the channel
 * ({@link ErrorCode#CHANNEL_STOPPED}): nothing is lost, the batch stays with the sender.
 *
 * <p>With {@code nonPersistentSpeed: fast} a non-persistent message is put at once on a session of its own, outside
 * the batch's transaction; the ids of those put and not yet in a committed batch are kept ({@link #fastIds}) so that
 * a batch sent again after a failure does not put them twice.
 */
final class ChannelReceiver implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(ChannelReceiver.class.getName());
    private static final long TIMEOUT_MILLIS = ChannelConfiguration.ANSWER_TIMEOUT_MILLIS;
    /** The transacted session of the batches and the sync record; also the sync record's consumer id. */
    private static final int SESSION = 1;
    /** The session of FAST non-persistent puts, not transacted. */
    private static final int FAST_SESSION = 2;

    private final ChannelDefinition definition;
    private final ServerPlugin.Host host;
    private final ReceiverPuts puts;
    private final ExecutorService worker;
    /** Whether a partner has the channel open now (any thread: an event loop sets it, the worker clears it). */
    private final AtomicBoolean running = new AtomicBoolean();
    /** The connection of the partner that has the channel open, which stopping ends (any thread). */
    private volatile ChannelAcceptor.Peer peer;
    /** {@link #state} as operators see it (written after each commit). */
    private volatile ReceiverState reported = ReceiverState.NONE;
    private CoreLink local;
    /** The last commit: the sync record as read back. Null until it is read. */
    private ReceiverState state;
    /** The producers' ids by destination, of {@link #SESSION} and of {@link #FAST_SESSION}. */
    private final Map<String, Integer> producers = new HashMap<>();
    private final Map<String, Integer> fastProducers = new HashMap<>();
    /** The batch that failed last, and how many times in a row. */
    private long failedBatch = -1;
    private int failedAttempts;
    /** The ids of non-persistent messages put FAST whose batch has not been committed yet. */
    private final Set<String> fastIds = new HashSet<>();
    /** FAST puts sent, whose answers the next batch's commit reads. */
    private final List<FastPut> unanswered = new ArrayList<>();

    /**
     * A FAST put on its way: the message kept until it is answered, for the dead-letter queue if refused; {@code
     * destination} the queue it is for, null when it went to the dead-letter queue already.
     */
    private record FastPut(PendingRequests.Request request, ByteBuf message, String destination) {
    }

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
            local.call(id -> new Frame.CreateSession(id, FAST_SESSION, false, 1), TIMEOUT_MILLIS);
            local.receiveFor(SESSION);
            local.call(id -> new Frame.CreateConsumer(id, SESSION, SESSION,
                    ReceiverPuts.queue(ChannelConfiguration.SYNC_QUEUE),
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

    /**
     * A partner opens the channel (on its connection's event loop): answered with the sequence number and last batch
     * id, on the worker, after whatever it still has to do.
     */
    ChannelAcceptor.Inbound open(ChannelAcceptor.Peer partner, int requestId) {
        if (!running.compareAndSet(false, true)) {
            throw WharfException.illegalState("Channel '" + definition.name() + "' is running already (one connection"
                    + " carries a channel at a time); it may be a connection that is not yet found dead: try again"
                    + " after the heartbeat interval.");
        }
        peer = partner;
        worker.execute(() -> partner.send(state == null
                ? new Frame.Error(requestId, ErrorCode.ILLEGAL_STATE, "Receiver channel '" + definition.name()
                        + "' is not ready: its sync record could not be read.", 0, 0)
                : new Frame.ChannelStatus(requestId, state.sequence(), state.batchId())));
        return new Inbound(partner);
    }

    /** What {@code wharf admin display chstatus} shows. Any thread. */
    ChannelStatus status() {
        ReceiverState shown = reported;
        return new ChannelStatus(definition.name(), "receiver", running.get() ? "RUNNING" : "INACTIVE",
                definition.partnerQueueManager(), null, shown.sequence(), shown.sequence(), shown.batchId(), null);
    }

    /** One open channel's batch in the making; on its connection's event loop. */
    private final class Inbound implements ChannelAcceptor.Inbound {
        private final ChannelAcceptor.Peer partner;
        private List<ByteBuf> batch = new ArrayList<>();
        /** The ids of this batch's messages put FAST. */
        private List<String> fast = new ArrayList<>();

        Inbound(ChannelAcceptor.Peer partner) {
            this.partner = partner;
        }

        @Override
        public void message(ByteBuf message) {
            if (definition.nonPersistentSpeed() == ChannelDefinition.NonPersistentSpeed.FAST) {
                MessageHeaders headers = MessageHeaders.read(message);
                String id = headers.messageId();
                if (!headers.persistent() && id != null) { // without an id it could be put twice: with the batch
                    fast.add(id);
                    run(() -> putFast(partner.identity(), message, id), message::release);
                    return;
                }
            }
            batch.add(message);
        }

        @Override
        public void endBatch(int requestId, long sequence, long batchId) {
            List<ByteBuf> messages = batch;
            List<String> ids = fast;
            batch = new ArrayList<>();
            fast = new ArrayList<>();
            run(() -> partner.send(commit(partner.identity(), messages, ids, requestId, sequence, batchId)), () -> {
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

    /** Puts a non-persistent message at once, outside the batch, unless an earlier sending of its batch did. */
    private void putFast(Identity partner, ByteBuf message, String id) {
        if (fastIds.size() >= ChannelConfiguration.MAX_FAST_IDS) {
            fastIds.clear(); // ids of batches that never came back (their sender lost them with a restart)
        }
        if (!fastIds.add(id)) {
            message.release();
            return;
        }
        try {
            ReceiverPuts.Routed routed = puts.route(partner, message);
            int producer = producer(FAST_SESSION, routed.queue());
            PendingRequests.Request request = local.send(rid -> new Frame.Send(rid, FAST_SESSION, producer,
                    routed.bytes()));
            // one for the dead-letter queue already has nowhere else to go when refused
            unanswered.add(new FastPut(request, message,
                    routed.queue().equals(SystemQueues.DEAD_LETTER_QUEUE) ? null : routed.intended()));
        } catch (Exception | Error e) {
            message.release();
            LOG.log(System.Logger.Level.WARNING, "Channel " + definition.name() + ": a non-persistent message"
                    + " (nonPersistentSpeed fast) was not put: " + e.getMessage());
        }
    }

    /**
     * Reads the answers of the FAST puts sent so far: one refused (its queue full, say) goes to the dead-letter queue
     * in the batch's transaction.
     */
    private void settleFastPuts() throws ClientException {
        try {
            for (FastPut put : unanswered) {
                try {
                    local.await(put.request(), TIMEOUT_MILLIS);
                } catch (ClientException refused) {
                    if (put.destination() == null) {
                        continue; // it was for the dead-letter queue already: lost, as fast allows
                    }
                    ReceiverPuts.Routed dead = puts.deadLetter(put.message(), put.destination(), "queue manager "
                            + host.config().name() + " could not put it on '" + put.destination() + "': "
                            + refused.getMessage());
                    int producer = producer(SESSION, dead.queue());
                    local.write(new Frame.Send(0, SESSION, producer, dead.bytes()));
                }
            }
        } finally {
            unanswered.forEach(put -> put.message().release());
            unanswered.clear();
        }
    }

    /** Puts a batch and the channel's sync record in one transaction; the answer for the partner. */
    private Frame.FromServer commit(Identity partner, List<ByteBuf> messages, List<String> fast, int requestId,
                                    long sequence, long batchId) {
        String channel = definition.name();
        boolean inStep = false;
        try {
            settleFastPuts();
            long count = messages.size() + fast.size();
            if (batchId != state.batchId() + 1 || sequence != state.sequence() + count) {
                throw new WharfException(ErrorCode.ILLEGAL_STATE, "Channel '" + channel + "' sent batch " + batchId
                        + " ending at sequence number " + sequence + ", but its receiver expects batch "
                        + (state.batchId() + 1) + " ending at " + (state.sequence() + count) + ": the sender's"
                        + " sequence is out of step. Start the channel again (it takes the receiver's).");
            }
            inStep = true;
            int attempt = (failedBatch == batchId ? failedAttempts : 0) + 1;
            boolean messageByMessage = attempt >= definition.maxBatchAttempts();
            for (ByteBuf message : messages) {
                if (messageByMessage) {
                    putOrDeadLetter(partner, message, batchId, attempt);
                } else {
                    ReceiverPuts.Routed routed = puts.route(partner, message);
                    int producer = producer(SESSION, routed.queue());
                    // not answered: a put that fails makes the commit fail (TRANSACTION_ROLLED_BACK, with why)
                    local.write(new Frame.Send(0, SESSION, producer, routed.bytes()));
                }
            }
            int syncProducer = producer(SESSION, ChannelConfiguration.SYNC_QUEUE);
            local.write(new Frame.Send(0, SESSION, syncProducer, ReceiverPuts.syncRecord(channel, sequence, batchId)));
            List<Frame.Consumed> consumed = state.deliveryId() < 0 ? List.of()
                    : List.of(new Frame.Consumed(SESSION, state.deliveryId()));
            local.call(id -> new Frame.Commit(id, SESSION, consumed), TIMEOUT_MILLIS);
            state = pullSyncRecord();
            reported = state;
            failedBatch = -1;
            failedAttempts = 0;
            fast.forEach(fastIds::remove);
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
                    + " of " + definition.maxBatchAttempts() + ")" : "") + ": " + e.getMessage(), 0, 0);
        } finally {
            messages.forEach(ByteBuf::release);
        }
    }

    /** A dead-letter queue that refused a message the channel could not put where it was going. */
    private static final class DeadLetterQueueRefused extends Exception {
        DeadLetterQueueRefused(String message) {
            super(message);
        }
    }

    /** Puts one message of a batch tried too often, answered: refused, it goes to the dead-letter queue. */
    private void putOrDeadLetter(Identity partner, ByteBuf message, long batchId, int attempt)
            throws ClientException, DeadLetterQueueRefused {
        ReceiverPuts.Routed routed = puts.route(partner, message);
        int producer = producer(SESSION, routed.queue());
        String refusal;
        try {
            local.call(id -> new Frame.Send(id, SESSION, producer, routed.bytes()), TIMEOUT_MILLIS);
            return;
        } catch (ClientException refused) {
            if (routed.queue().equals(SystemQueues.DEAD_LETTER_QUEUE)) {
                throw deadLetterQueueRefused(routed.intended(), refused, null);
            }
            refusal = refused.getMessage();
        }
        ReceiverPuts.Routed dead = puts.deadLetter(message, routed.intended(), "queue manager " + host.config().name()
                + " could not put it on '" + routed.intended() + "' (batch " + batchId + ", attempt " + attempt + "): "
                + refusal);
        int deadProducer = producer(SESSION, dead.queue());
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

    private int producer(int session, String destination) throws ClientException {
        Map<String, Integer> ids = session == SESSION ? producers : fastProducers;
        Integer known = ids.get(destination);
        if (known != null) {
            return known;
        }
        int producer = producers.size() + fastProducers.size() + 1;
        local.call(id -> new Frame.CreateProducer(id, session, producer, ReceiverPuts.queue(destination)),
                TIMEOUT_MILLIS);
        ids.put(destination, producer);
        return producer;
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
        unanswered.forEach(put -> put.message().release());
    }
}
