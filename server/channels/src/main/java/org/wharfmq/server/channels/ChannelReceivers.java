package org.wharfmq.server.channels;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import org.wharfmq.client.core.ClientException;
import org.wharfmq.protocol.TemporaryNames;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.message.BodyType;
import org.wharfmq.protocol.message.MessageHeaders;
import org.wharfmq.protocol.message.TransmissionHeader;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.protocol.message.WireMessage;
import org.wharfmq.server.ChannelAcceptor;
import org.wharfmq.server.ServerPlugin;
import org.wharfmq.server.WharfException;
import org.wharfmq.server.queue.DeadLetters;
import org.wharfmq.server.queue.SystemQueues;
import org.wharfmq.server.security.Identity;
import org.wharfmq.server.security.Permission;

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

/**
 * The receiver channels of a queue manager: the {@link ChannelAcceptor} its listeners hand CHANNEL_OPEN to. Each
 * batch is put by one worker thread ({@code wharf-channel-receiver}, which owns {@link #states} and the in-VM
 * connection), in one transaction of the receiver's own session: every message on the queue its transmission header
 * names, as the partner's user may (a queue it may not send to, or one that does not exist, gets the message on the
 * dead-letter queue with the reason), and the channel's new sync record on {@link ChannelConfiguration#SYNC_QUEUE} in
 * place of the old one. Then the partner is answered OK.
 */
final class ChannelReceivers implements ChannelAcceptor, AutoCloseable {
    private static final System.Logger LOG = System.getLogger(ChannelReceivers.class.getName());
    private static final long TIMEOUT_MILLIS = ChannelConfiguration.ANSWER_TIMEOUT_MILLIS;

    /** The receivers by name, in definition order: replaced whole when one is defined, altered or deleted. */
    private volatile Map<String, ChannelDefinition> receivers = Map.of();
    private final ServerPlugin.Host host;
    private final ExecutorService worker = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "wharf-channel-receiver");
        t.setDaemon(true);
        return t;
    });
    /** The channels open now (any thread: event loops add, the worker removes). */
    private final Set<String> running = ConcurrentHashMap.newKeySet();
    /** The connections of the channels open now, which stopping ends. */
    private final Map<String, Peer> peers = new ConcurrentHashMap<>();
    /** Each receiver's last commit, by channel; the worker's. */
    private final Map<String, ReceiverState> states = new HashMap<>();
    /** {@link #states} as operators see it (the worker writes it after each commit). */
    private final Map<String, ReceiverState> reported = new ConcurrentHashMap<>();
    /** What each receiver has committed since the start, by channel (the worker counts, operators read). */
    private final Map<String, ChannelCounters> counters = new ConcurrentHashMap<>();
    /** Each receiver's session (its producers' ids by destination, its sync consumer); the worker's. */
    private final Map<String, Session> sessions = new HashMap<>();
    private CoreLink local;
    private int nextSession;

    /** One receiver's transacted session on the in-VM connection. */
    private static final class Session {
        final int id;
        final Map<String, Integer> producers = new HashMap<>();

        Session(int id) {
            this.id = id;
        }
    }

    ChannelReceivers(List<ChannelDefinition> definitions, ServerPlugin.Host host) {
        Map<String, ChannelDefinition> all = new java.util.LinkedHashMap<>();
        for (ChannelDefinition d : definitions) {
            all.put(d.name(), d);
        }
        receivers = java.util.Collections.unmodifiableMap(all);
        this.host = host;
    }

    /** Connects in-VM and reads each receiver's sync record, on the worker. */
    void start() throws Exception {
        host.management().systemQueue(ChannelConfiguration.SYNC_QUEUE);
        host.management().systemQueue(SystemQueues.DEAD_LETTER_QUEUE); // where refused messages go, autoCreate or not
        worker.submit(() -> {
            local = CoreLink.open(host.vmUrl(), Map.of(), null, null, "channel receivers", 0,
                    ChannelConfiguration.DEFAULT_CONNECT_TIMEOUT_MILLIS);
            for (String channel : receivers.keySet()) {
                openSession(channel);
            }
            return null;
        }).get();
    }

    /** Opens receiver {@code channel}'s session and reads its sync record; on the worker. */
    private void openSession(String channel) throws Exception {
        Session session = new Session(++nextSession);
        sessions.put(channel, session);
        local.call(id -> new Frame.CreateSession(id, session.id, true, 0), TIMEOUT_MILLIS);
        local.receiveFor(session.id);
        local.call(id -> new Frame.CreateConsumer(id, session.id, session.id,
                WireDestination.queue(ChannelConfiguration.SYNC_QUEUE),
                ReceiverState.CHANNEL + " = '" + channel.replace("'", "''") + "'", 0, 0, null), TIMEOUT_MILLIS);
        states.put(channel, pullSyncRecord(session));
        reported.put(channel, states.get(channel));
        counters.put(channel, new ChannelCounters());
    }

    /** The channel's sync record, delivered to its session and left unconsumed; NONE when it has none. */
    private ReceiverState pullSyncRecord(Session session) throws Exception {
        local.write(new Frame.Pull(session.id, 1));
        ReceiverState state = ReceiverState.NONE;
        while (true) {
            Frame f = local.next(TIMEOUT_MILLIS);
            if (f == null) {
                throw new ClientException("No answer to the sync record's PULL within " + TIMEOUT_MILLIS + " ms", null);
            }
            if (f instanceof Frame.PullDone) {
                return state;
            }
            Frame.Deliver d = (Frame.Deliver) f;
            try {
                WireMessage record = WireMessage.decode(d.message().duplicate());
                state = new ReceiverState((Long) record.properties.get(ReceiverState.SEQUENCE),
                        (Long) record.properties.get(ReceiverState.BATCH), d.deliveryId());
            } finally {
                d.message().release();
            }
        }
    }

    @Override
    public Inbound open(Peer peer, int requestId, String channel, String queueManager) {
        ChannelDefinition definition = receivers.get(channel);
        if (definition == null) {
            throw new WharfException(ErrorCode.UNKNOWN_DESTINATION, "Queue manager " + host.config().name()
                    + " has no receiver channel '" + channel + "' (its receivers: " + receivers.keySet() + "). Define"
                    + " it under channels: in config/wharf.yaml with type: receiver, or with 'wharf admin define channel "
                    + channel + " --type receiver' (docs/distributed.md).");
        }
        Identity who = peer.identity();
        if (definition.partnerUser() != null && !definition.partnerUser().equals(who.user())) {
            throw new WharfException(ErrorCode.NOT_AUTHORISED, "Receiver channel '" + channel + "' of queue manager "
                    + host.config().name() + " is for partner user '" + definition.partnerUser() + "', not "
                    + who.describe() + ". Log in as that user, or change the receiver's partnerUser.");
        }
        if (definition.partnerQueueManager() != null && !definition.partnerQueueManager().equals(queueManager)) {
            throw new WharfException(ErrorCode.NOT_AUTHORISED, "Receiver channel '" + channel + "' of queue manager "
                    + host.config().name() + " is for queue manager " + definition.partnerQueueManager() + ", not "
                    + queueManager + ". Use the channel defined for your queue manager.");
        }
        if (!running.add(channel)) {
            throw WharfException.illegalState("Channel '" + channel + "' is running already (one connection carries"
                    + " a channel at a time); it may be a connection that is not yet found dead: try again after the"
                    + " heartbeat interval.");
        }
        peers.put(channel, peer);
        worker.execute(() -> peer.send(answerOpen(requestId, channel)));
        LOG.log(System.Logger.Level.INFO, "Channel " + channel + " from queue manager " + queueManager + " ("
                + who.describe() + " at " + peer.remoteAddress() + ") is running");
        return new ReceiverChannel(channel, peer);
    }

    /** What {@code wharf admin display chstatus} shows of the receivers. Any thread. */
    List<ChannelStatus> status() {
        List<ChannelStatus> all = new ArrayList<>();
        for (ChannelDefinition d : receivers.values()) {
            ReceiverState state = reported.getOrDefault(d.name(), ReceiverState.NONE);
            ChannelCounters received = counters.getOrDefault(d.name(), ChannelCounters.NONE);
            all.add(new ChannelStatus(d.name(), "receiver", running.contains(d.name()) ? "RUNNING" : "INACTIVE",
                    d.partnerQueueManager(), null, received.messages(), state.sequence(), state.batchId(),
                    received.bytes(), received.batches(), null, false));
        }
        return all;
    }

    private Frame.FromServer answerOpen(int requestId, String channel) {
        ReceiverState state = states.get(channel);
        if (state == null) {
            return new Frame.Error(requestId, ErrorCode.ILLEGAL_STATE, "Receiver channel '" + channel
                    + "' is not ready: its sync record could not be read.", 0, 0);
        }
        return new Frame.ChannelStatus(requestId, state.sequence(), state.batchId());
    }

    /** One open channel's batch in the making; on its connection's event loop. */
    private final class ReceiverChannel implements Inbound {
        private final String channel;
        private final Peer peer;
        private List<ByteBuf> batch = new ArrayList<>();

        ReceiverChannel(String channel, Peer peer) {
            this.channel = channel;
            this.peer = peer;
        }

        @Override
        public void message(ByteBuf message) {
            batch.add(message);
        }

        @Override
        public void endBatch(int requestId, long sequence, long batchId) {
            List<ByteBuf> messages = batch;
            batch = new ArrayList<>();
            try {
                worker.execute(() -> peer.send(commit(channel, peer.identity(), messages, requestId, sequence,
                        batchId)));
            } catch (RejectedExecutionException stopped) {
                messages.forEach(ByteBuf::release);
                peer.close("Queue manager " + host.config().name() + " is stopping its channels.");
            }
        }

        @Override
        public void closed() {
            List<ByteBuf> messages = batch;
            batch = List.of();
            peers.remove(channel);
            Runnable release = () -> {
                messages.forEach(ByteBuf::release);
                running.remove(channel);
            };
            try {
                worker.execute(release);
            } catch (RejectedExecutionException stopped) {
                release.run(); // the plugin has stopped: nothing of the batch was committed
            }
        }
    }

    /** Puts a batch and the channel's sync record in one transaction; the answer for the partner. */
    private Frame.FromServer commit(String channel, Identity partner, List<ByteBuf> messages, int requestId,
                                    long sequence, long batchId) {
        Session session = sessions.get(channel);
        ReceiverState state = states.get(channel);
        try {
            if (batchId != state.batchId() + 1 || sequence != state.sequence() + messages.size()) {
                throw new WharfException(ErrorCode.ILLEGAL_STATE, "Channel '" + channel + "' sent batch " + batchId
                        + " ending at sequence number " + sequence + ", but its receiver expects batch "
                        + (state.batchId() + 1) + " ending at " + (state.sequence() + messages.size()) + ": the"
                        + " sender's sequence is out of step. Start the channel again (it takes the receiver's).");
            }
            long bytes = 0;
            for (ByteBuf message : messages) {
                bytes += message.readableBytes();
                put(session, partner, message, MessageHeaders.read(message));
            }
            commitSyncRecord(channel, session, state, sequence, batchId);
            counters.get(channel).add(messages.size(), bytes);
            return new Frame.Ok(requestId);
        } catch (Exception e) {
            LOG.log(System.Logger.Level.WARNING, "Channel " + channel + ": batch " + batchId + " not committed: "
                    + e.getMessage());
            rollBack(session);
            ErrorCode code = e instanceof WharfException w ? w.code()
                    : e instanceof ClientException c && c.code() != null ? c.code() : ErrorCode.ILLEGAL_STATE;
            return new Frame.Error(requestId, code, "Queue manager " + host.config().name() + " did not commit"
                    + " batch " + batchId + " of channel '" + channel + "': " + e.getMessage(), 0, 0);
        } finally {
            messages.forEach(ByteBuf::release);
        }
    }

    /** Writes {@code channel}'s sync record in place of {@code state}'s and commits the session's transaction. */
    private void commitSyncRecord(String channel, Session session, ReceiverState state, long sequence, long batchId)
            throws Exception {
        int syncProducer = producer(session, ChannelConfiguration.SYNC_QUEUE);
        local.write(new Frame.Send(0, session.id, syncProducer, syncRecord(channel, sequence, batchId)));
        List<Frame.Consumed> consumed = state.deliveryId() < 0 ? List.of()
                : List.of(new Frame.Consumed(session.id, state.deliveryId()));
        local.call(id -> new Frame.Commit(id, session.id, consumed), TIMEOUT_MILLIS);
        ReceiverState committed = pullSyncRecord(session);
        states.put(channel, committed);
        reported.put(channel, committed);
    }

    private void rollBack(Session session) {
        try {
            local.call(id -> new Frame.Rollback(id, session.id, List.of()), TIMEOUT_MILLIS);
            // the rollback gave the sync record back to the queue: take it again
            String channel = null;
            for (Map.Entry<String, Session> e : sessions.entrySet()) {
                if (e.getValue() == session) {
                    channel = e.getKey();
                }
            }
            states.put(channel, pullSyncRecord(session));
        } catch (Exception e) {
            LOG.log(System.Logger.Level.ERROR, "Channel receivers: rollback failed: " + e.getMessage());
        }
    }

    /**
     * Puts one message where its transmission header says, with the partner's authority; else on the dead-letter
     * queue with the reason.
     */
    private void put(Session session, Identity partner, ByteBuf message, MessageHeaders headers)
            throws ClientException {
        Map<String, Object> properties = headers.readProperties(message);
        Object queueManager = properties.get(TransmissionHeader.QUEUE_MANAGER);
        Object queue = properties.get(TransmissionHeader.QUEUE);
        String topic = HierarchyMessages.forwardedTopic(queueManager, queue, host.config().name(), properties);
        if (topic != null) {
            publish(session, partner, message, topic);
            return;
        }
        String destination;
        String refusal = null;
        if (!(queue instanceof String q)) {
            destination = null;
            refusal = "it has no transmission header (" + TransmissionHeader.QUEUE + "): it was put on the sender's"
                    + " transmission queue by its name";
        } else {
            destination = queueManager == null || queueManager.equals(host.config().name()) ? q
                    : queueManager + String.valueOf(TransmissionHeader.QUALIFIER) + q;
            refusal = refusal(partner, destination);
        }
        int producer = producer(session, refusal == null ? destination : SystemQueues.DEAD_LETTER_QUEUE);
        ByteBuf bytes;
        if (refusal == null) {
            // a SEND goes where the message's JMSDestination says: the name the producer used on the sending
            // queue manager (a remote definition's, say) becomes the queue here; the body stays as it is
            bytes = headers.destination() != null && destination.equals(headers.destination().name())
                    ? message.retainedDuplicate()
                    : addressedTo(message, queue(destination));
        } else {
            bytes = withReason(message, destination, refusal);
            LOG.log(System.Logger.Level.WARNING, "A message for " + destination + " went to the dead-letter queue: "
                    + refusal);
        }
        // not answered: a put that fails makes the transaction's commit fail (TRANSACTION_ROLLED_BACK, with why)
        local.write(new Frame.Send(0, session.id, producer, bytes));
    }

    /**
     * Publishes a publication a queue manager of the publish/subscribe hierarchy forwarded (docs/distributed.md) on
     * its topic here, with the partner's authority; else puts it on the dead-letter queue with the reason.
     */
    private void publish(Session session, Identity partner, ByteBuf message, String topic) throws ClientException {
        String refusal = null;
        try {
            org.wharfmq.server.topic.TopicNames.checkTopic(topic);
            if (!host.accessControl().allows(partner, Permission.PUBLISH, topic)) {
                refusal = "the channel's user, " + partner.describe() + ", may not publish to topic '" + topic
                        + "' (no 'publish' permission on it)";
            }
        } catch (WharfException e) {
            refusal = "the forwarded publication names no valid topic: " + e.getMessage();
        }
        if (refusal != null) {
            LOG.log(System.Logger.Level.WARNING, "A publication for topic '" + topic + "' went to the dead-letter"
                    + " queue: " + refusal);
            local.write(new Frame.Send(0, session.id, producer(session, SystemQueues.DEAD_LETTER_QUEUE),
                    withReason(message, topic, refusal)));
            return;
        }
        WireDestination destination = WireDestination.topic(topic);
        local.write(new Frame.Send(0, session.id, producer(session, destination), addressedTo(message, destination)));
    }

    /** Why the partner may not put to {@code destination}, or null when it may. */
    private String refusal(Identity partner, String destination) {
        if (destination.equals(HierarchyMessages.CONTROL_QUEUE)) {
            // a partner's proxy subscriptions need the channel permission, which opened the channel
            return exists(destination) ? null : "queue manager " + host.config().name() + " is in no publish/subscribe"
                    + " hierarchy (hierarchy: in config/wharf.yaml), so it takes no proxy subscriptions";
        }
        if (destination.startsWith(TemporaryNames.PREFIX)) {
            return null; // anyone who has a temporary queue's name may send to it, as JMS has it
        }
        if (!host.accessControl().allows(partner, Permission.SEND, destination)) {
            return "the channel's user, " + partner.describe() + ", may not send to '" + destination + "' (no 'send'"
                    + " permission on it)";
        }
        if (destination.indexOf(TransmissionHeader.QUALIFIER) < 0 && !exists(destination)) {
            if (!host.config().autoCreate()) {
                return "queue manager " + host.config().name() + " has no queue '" + destination + "'";
            }
            if (!host.accessControl().allows(partner, Permission.CREATE, destination)) {
                return "queue manager " + host.config().name() + " has no queue '" + destination + "', and the"
                        + " channel's user, " + partner.describe() + ", may not create it (no 'create' permission)";
            }
        }
        return null;
    }

    private boolean exists(String name) {
        try {
            host.management().queue(name);
            return true;
        } catch (RuntimeException e) {
            return host.management().names().stream().anyMatch(n -> n.name().equals(name));
        }
    }

    private static WireDestination queue(String name) {
        return name.startsWith(TemporaryNames.PREFIX) ? new WireDestination(WireDestination.Kind.TEMPORARY_QUEUE, name)
                : WireDestination.queue(name);
    }

    /**
     * {@code message} with JMSDestination {@code destination}: its header and property sections written anew, its
     * body a retained slice of {@code message} (as {@link TransmissionHeader#wrap} keeps it).
     */
    private static ByteBuf addressedTo(ByteBuf message, WireDestination destination) {
        ByteBuf in = message.duplicate();
        int start = in.readerIndex();
        WireMessage headers = WireMessage.decodeHeaders(in);
        int bodySection = in.readerIndex();
        headers.destination = destination;
        ByteBuf head = ByteBufAllocator.DEFAULT.buffer(bodySection - start + 64);
        headers.encodeHeaders(head);
        io.netty.buffer.CompositeByteBuf readdressed = ByteBufAllocator.DEFAULT.compositeBuffer(2);
        readdressed.addComponent(true, head);
        readdressed.addComponent(true, message.retainedSlice(bodySection, message.writerIndex() - bodySection));
        return readdressed;
    }

    private static ByteBuf withReason(ByteBuf message, String destination, String reason) {
        WireMessage m = WireMessage.decode(message.duplicate());
        m.destination = WireDestination.queue(SystemQueues.DEAD_LETTER_QUEUE);
        m.properties.put(DeadLetters.REASON_PROPERTY, "Channel: " + reason);
        if (destination != null) {
            m.properties.put(DeadLetters.QUEUE_PROPERTY, destination);
        }
        ByteBuf out = ByteBufAllocator.DEFAULT.buffer();
        m.encode(out);
        return out;
    }

    private static ByteBuf syncRecord(String channel, long sequence, long batchId) {
        WireMessage m = new WireMessage();
        m.bodyType = BodyType.MESSAGE;
        m.persistent = true;
        m.destination = WireDestination.queue(ChannelConfiguration.SYNC_QUEUE);
        m.timestamp = System.currentTimeMillis();
        m.properties.put(ReceiverState.CHANNEL, channel);
        m.properties.put(ReceiverState.SEQUENCE, sequence);
        m.properties.put(ReceiverState.BATCH, batchId);
        ByteBuf out = ByteBufAllocator.DEFAULT.buffer();
        m.encode(out);
        return out;
    }

    private int producer(Session session, String destination) throws ClientException {
        return producer(session, queue(destination));
    }

    private int producer(Session session, WireDestination destination) throws ClientException {
        String key = destination.kind() + ":" + destination.name();
        Integer known = session.producers.get(key);
        if (known != null) {
            return known;
        }
        int producer = session.id * 100_000 + session.producers.size() + 1;
        local.call(id -> new Frame.CreateProducer(id, session.id, producer, destination), TIMEOUT_MILLIS);
        session.producers.put(key, producer);
        return producer;
    }

    // ---- run-time definitions (ChannelsPlugin's, one change at a time) ----

    /** Whether a partner runs receiver {@code channel} now. Any thread. */
    boolean isRunning(String channel) {
        return running.contains(channel);
    }

    /** Adds receiver {@code d} (a new name): its session opened and its sync record read before it accepts a partner. */
    void define(ChannelDefinition d) throws Exception {
        onWorker(() -> openSession(d.name()));
        Map<String, ChannelDefinition> all = new java.util.LinkedHashMap<>(receivers);
        all.put(d.name(), d);
        receivers = java.util.Collections.unmodifiableMap(all);
    }

    /** Replaces receiver {@code d}'s definition (the same name): the next partner to open it meets the new one. */
    void alter(ChannelDefinition d) {
        Map<String, ChannelDefinition> all = new java.util.LinkedHashMap<>(receivers);
        all.put(d.name(), d);
        receivers = java.util.Collections.unmodifiableMap(all);
    }

    /**
     * Removes receiver {@code channel}, not running (the caller checked): a partner opening it is refused from now on.
     * Its sync record stays on {@link ChannelConfiguration#SYNC_QUEUE}: defined again, it goes on from its numbers.
     */
    void delete(String channel) throws Exception {
        Map<String, ChannelDefinition> all = new java.util.LinkedHashMap<>(receivers);
        all.remove(channel);
        receivers = java.util.Collections.unmodifiableMap(all);
        onWorker(() -> {
            Session session = sessions.remove(channel);
            local.call(id -> new Frame.CloseSession(id, session.id), TIMEOUT_MILLIS); // the sync record goes back
            states.remove(channel);
            reported.remove(channel);
            counters.remove(channel);
        });
    }

    /**
     * Sets receiver {@code channel}'s sequence number to {@code sequence} (IBM MQ's RESET CHANNEL SEQNUM), in its sync
     * record; its last batch id stays (the sender's batch in doubt is resolved against it). The sender takes it when it
     * opens the channel next. The caller checked that no partner runs it.
     */
    void reset(String channel, long sequence) throws Exception {
        onWorker(() -> {
            Session session = sessions.get(channel);
            ReceiverState state = states.get(channel);
            try {
                commitSyncRecord(channel, session, state, sequence, state.batchId());
            } catch (Exception e) {
                rollBack(session); // the old record stays
                throw e;
            }
        });
    }

    /** What the worker does for an operator. */
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

    @Override
    public void close() {
        for (Peer peer : peers.values()) {
            peer.close("Queue manager " + host.config().name() + " is stopping its channels.");
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
