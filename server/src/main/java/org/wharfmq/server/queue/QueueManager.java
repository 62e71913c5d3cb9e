package org.wharfmq.server.queue;

import io.netty.buffer.ByteBuf;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.MalformedFrameException;
import org.wharfmq.protocol.message.MessageHeaders;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.server.WharfException;
import org.wharfmq.server.config.QueueDefinition;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.store.MessageStore;
import org.wharfmq.server.store.RecoveryTarget;
import org.wharfmq.server.store.StoredMessage;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The queues of one queue manager, by name: those defined in the configuration, plus those created on first use
 * when {@code autoCreate} is on. Lookups are lock-free; each queue guards itself.
 */
public final class QueueManager implements AutoCloseable, RecoveryTarget {

    /** Queue names the queue manager keeps for itself (subscription queues, retained publications). */
    public static final java.util.List<String> RESERVED_PREFIXES = java.util.List.of("SYSTEM.SUB.", "SYSTEM.RETAINED.");

    private final ConcurrentHashMap<String, LocalQueue> queues = new ConcurrentHashMap<>();
    /** Temporary queues by name; each is owned by one connection's {@code TemporaryDestinations}. */
    private final ConcurrentHashMap<String, LocalQueue> temporaryQueues = new ConcurrentHashMap<>();
    private final boolean autoCreate;
    private final long defaultMaxDepth;
    private final MessageStore store;
    private final DeadLetters deadLetters;
    private final AtomicLong transactionIds = new AtomicLong();
    /** Recovered messages whose delivery time is ahead; recovery's thread only, until {@link #scheduleRecoveredDelays}. */
    private final List<QueuedMessage> delayedRecovered = new ArrayList<>();

    /** Creates the queue manager with the queues {@code config} defines. */
    public QueueManager(ServerConfig config, MessageStore store) {
        this.autoCreate = config.autoCreate();
        this.defaultMaxDepth = config.maxQueueDepth();
        this.store = store;
        this.deadLetters = new DeadLetters(this, store);
        for (QueueDefinition q : config.queues()) {
            boolean ownLimit = q.maxDepth() != null;
            queues.put(q.name(), new LocalQueue(q.name(), ownLimit ? q.maxDepth() : defaultMaxDepth, ownLimit, store,
                    deadLetters));
        }
    }

    /** Where messages go that cannot stay on their queue. */
    public DeadLetters deadLetters() {
        return deadLetters;
    }

    /** The dead-letter queue, created (and journaled as created) when the configuration does not define it. */
    LocalQueue deadLetterQueue() {
        LocalQueue queue = queues.get(DeadLetters.QUEUE);
        return queue != null ? queue : queues.computeIfAbsent(DeadLetters.QUEUE, this::created);
    }

    /** A queue created at run time: recorded in the store, so that it exists again after a restart. */
    private LocalQueue created(String name) {
        store.queueCreated(name);
        return new LocalQueue(name, defaultMaxDepth, false, store, deadLetters);
    }

    /**
     * The queue a client names, created if it does not exist and auto-creation is on.
     *
     * @throws WharfException UNKNOWN_DESTINATION when the queue does not exist and auto-creation is off
     */
    public LocalQueue queue(String name) {
        LocalQueue queue = queues.get(name);
        if (queue != null) {
            return queue;
        }
        if (isReserved(name)) {
            throw new WharfException(ErrorCode.UNKNOWN_DESTINATION, "Queue '" + name + "': names starting with "
                    + RESERVED_PREFIXES + " are reserved for the queue manager's subscription queues and retained "
                    + "publications; subscribe to the topic instead.");
        }
        if (!autoCreate) {
            throw new WharfException(ErrorCode.UNKNOWN_DESTINATION, "Queue '" + name + "' does not exist and "
                    + "auto-creation is off (setting autoCreate). Define it under 'queues' in the configuration.");
        }
        if (name.isEmpty()) {
            throw new WharfException(ErrorCode.UNKNOWN_DESTINATION, "A queue name must not be empty.");
        }
        return queues.computeIfAbsent(name, this::created);
    }

    /** Whether {@code name} starts with one of {@link #RESERVED_PREFIXES}. */
    public static boolean isReserved(String name) {
        for (String prefix : RESERVED_PREFIXES) {
            if (name.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    /** Recovery: the queue exists again (whatever autoCreate says) and numbers new messages above the old ones. */
    @Override
    public void queueRecovered(String queueName, long lastSequence) {
        queues.computeIfAbsent(queueName, this::recoveredQueue).sequenceAbove(lastSequence);
    }

    /** A queue the journal holds: it exists again, whatever autoCreate says. */
    private LocalQueue recoveredQueue(String name) {
        return new LocalQueue(name, defaultMaxDepth, false, store, deadLetters);
    }

    /**
     * Recovery: a committed, unconsumed persistent message goes back on its queue; one that cannot be decoded goes
     * to the dead-letter queue instead.
     */
    @Override
    public void messageRecovered(String queueName, long sequence, ByteBuf content, int deliveryCount) {
        MessageHeaders headers = readRecovered(queueName, sequence, content);
        if (headers == null) {
            return;
        }
        LocalQueue queue = queues.computeIfAbsent(queueName, this::recoveredQueue);
        QueuedMessage message = new QueuedMessage(queue, content, headers);
        for (int i = 1; i < deliveryCount; i++) {
            message.countRedelivery();
        }
        if (message.deliveryTime() > System.currentTimeMillis()) {
            queue.restoreDelayed(message, sequence);
            delayedRecovered.add(message);
        } else {
            queue.restore(message, sequence);
        }
    }

    /**
     * The headers of a message recovered from the journal, checked as a SEND's are; null when it cannot be
     * decoded (a journal written before that check, or a bug): then it has gone to the dead-letter queue and
     * {@code content} is released.
     */
    public MessageHeaders readRecovered(String queueName, long sequence, ByteBuf content) {
        try {
            return MessageHeaders.read(content);
        } catch (MalformedFrameException e) {
            deadLetters.moveStored(new RecoveredMessage(queueName, sequence, content), true,
                    "recovered from the journal but cannot be decoded: " + e.getMessage());
            content.release();
            return null;
        }
    }

    /** A message read back from the journal, before it is on a queue. */
    private record RecoveredMessage(String queueName, long sequence, ByteBuf content) implements StoredMessage {
    }

    /**
     * After recovery: recovered messages sent with a JMS delivery delay that has not yet run out are offered to
     * their queues at their delivery time, as they would have been without the restart, not at once.
     */
    public void scheduleRecoveredDelays(ScheduledExecutorService timer) {
        long now = System.currentTimeMillis();
        for (QueuedMessage message : delayedRecovered) {
            timer.schedule(() -> message.queue().offer(message), Math.max(0, message.deliveryTime() - now),
                    TimeUnit.MILLISECONDS);
        }
        delayedRecovered.clear();
    }

    /**
     * The queue for a destination named in a request: a named queue or a live temporary queue. Topics (and
     * temporary topics) are served by the {@link org.wharfmq.server.topic.TopicManager}, so naming one here is
     * an ILLEGAL_STATE.
     *
     * @throws WharfException when the destination is missing, not a queue, an unknown queue, or a temporary
     *                        queue that has been deleted (UNKNOWN_DESTINATION)
     */
    public LocalQueue queue(WireDestination destination) {
        if (destination == null) {
            throw WharfException.illegalState("No destination given: a message must name the queue it is for.");
        }
        switch (destination.kind()) {
            case QUEUE:
                return queue(destination.name());
            case TEMPORARY_QUEUE:
                return temporaryQueue(destination.name());
            case TOPIC:
                throw WharfException.illegalState("Topic '" + destination.name() + "' is not a queue.");
            default:
                throw WharfException.illegalState("Temporary topic '" + destination.name() + "' is not a queue.");
        }
    }

    /**
     * A live temporary queue.
     *
     * @throws WharfException UNKNOWN_DESTINATION when there is none by that name (deleted, or its connection closed)
     */
    public LocalQueue temporaryQueue(String name) {
        LocalQueue queue = temporaryQueues.get(name);
        if (queue == null) {
            throw noTemporary("queue", name);
        }
        return queue;
    }

    /**
     * Creates a temporary queue; called by the owning connection's registry only.
     *
     * @throws WharfException ILLEGAL_STATE when the name is already in use
     */
    public LocalQueue createTemporaryQueue(String name) {
        LocalQueue queue = LocalQueue.temporary(name, defaultMaxDepth, deadLetters);
        if (temporaryQueues.putIfAbsent(name, queue) != null) {
            throw WharfException.illegalState("Temporary queue name '" + name + "' is already in use; the client must "
                    + "choose names unique across connections (TMP.<connection uuid>.<n>).");
        }
        return queue;
    }

    /** Forgets a temporary queue (its owner deletes it); later lookups fail with UNKNOWN_DESTINATION. */
    public void removeTemporaryQueue(LocalQueue queue) {
        temporaryQueues.remove(queue.name(), queue);
    }

    /** The names of the live temporary queues, sorted; a snapshot (for administration and tests). */
    public Set<String> temporaryQueueNames() {
        return Collections.unmodifiableSet(new TreeSet<>(temporaryQueues.keySet()));
    }

    private static WharfException noTemporary(String kind, String name) {
        return new WharfException(ErrorCode.UNKNOWN_DESTINATION, "Temporary " + kind + " '" + name + "' does not exist: "
                + "it was deleted, or the connection that created it has closed. Temporary destinations live only as "
                + "long as their connection.");
    }

    /**
     * Messages on the queue: waiting, delivered but not yet acknowledged, or sent in a transaction not yet
     * committed (like IBM MQ's CURDEPTH).
     *
     * @throws IllegalArgumentException when there is no such queue
     */
    public long depth(String queueName) {
        LocalQueue queue = queues.get(queueName);
        if (queue == null) {
            throw new IllegalArgumentException("no queue named '" + queueName + "'");
        }
        return queue.depth();
    }

    /** The names of all queues, sorted; a snapshot. */
    public Set<String> queueNames() {
        return Collections.unmodifiableSet(new TreeSet<>(queues.keySet()));
    }

    /** Whether the queue exists (defined, or created by use). */
    public boolean exists(String name) {
        return queues.containsKey(name);
    }

    /** Where persistent messages are recorded. */
    public MessageStore store() {
        return store;
    }

    /** A transaction id never used before by this queue manager. */
    public long nextTransactionId() {
        return transactionIds.incrementAndGet();
    }

    /** Releases all waiting messages. Call after every connection is closed. */
    @Override
    public void close() {
        for (LocalQueue queue : queues.values()) {
            queue.clear();
        }
        for (LocalQueue queue : temporaryQueues.values()) {
            queue.clear();
        }
    }
}
