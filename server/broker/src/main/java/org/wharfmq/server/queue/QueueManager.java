package org.wharfmq.server.queue;

import io.netty.buffer.ByteBuf;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.MalformedFrameException;
import org.wharfmq.protocol.message.MessageHeaders;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.server.Configuration;
import org.wharfmq.server.WharfException;
import org.wharfmq.server.config.MemoryPolicy;
import org.wharfmq.server.config.QueueDefinition;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.store.MessageStore;
import org.wharfmq.server.store.Persistence;
import org.wharfmq.server.store.StoredMessage;

import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The queues of one queue manager, by name: those defined in the configuration, plus those created on first use
 * when {@code autoCreate} is on. Lookups are lock-free; each queue guards itself.
 *
 * <h2>How many queues</h2>
 * Defined queues, queues created by use (or recovered from the journal) and temporary queues count towards
 * {@code maxQueues}; creating one more is refused with TOO_MANY_QUEUES, naming the queue, the limit and the setting.
 * Subscription queues are the topic manager's and do not count. A queue created by use is deleted once it has been
 * unused for {@code autoDeleteDelayMillis} ({@link #deleteUnusedQueues}); defined queues never are.
 *
 * <h2>Deleting a queue while a client reaches for it</h2>
 * A sender looks a queue up, then reserves a place on it; a consumer or browser looks it up, then attaches. The
 * deletion is one step inside the map's {@code computeIfPresent} for that name: under the queue's lock the queue is
 * checked unused and marked deleted, then its deletion is handed to the store and the map forgets it, before any
 * other change of that name (a re-creation, and its journal record, comes after). The queue's lock orders every
 * reservation or attachment against the check: one that comes first makes the queue used, so it stays; one that
 * comes after finds it deleted ({@link LocalQueue#reserve} or {@link LocalQueue#attach} answers false, taking
 * nothing) and its caller looks the name up again, until the map no longer has the deleted queue (at most the
 * moment the deletion step takes to finish) and it finds or creates the new one. So no send or consumer ever ends up
 * on a deleted queue, and no message is lost.
 */
public final class QueueManager implements AutoCloseable {

    /** For {@link #queue(String, Consumer)}: whoever may use a queue may have it created by use. */
    public static final Consumer<String> ANYONE_CREATES = name -> {
    };

    private final ConcurrentHashMap<String, LocalQueue> queues = new ConcurrentHashMap<>();
    /** Temporary queues by name; each is owned by one connection's {@code TemporaryDestinations}. */
    private final ConcurrentHashMap<String, LocalQueue> temporaryQueues = new ConcurrentHashMap<>();
    private final boolean autoCreate;
    private final long defaultMaxDepth;
    private final int maxQueues;
    private final long autoDeleteDelayMillis;
    /** Named and temporary queues, counted as they are created and forgotten; never above maxQueues by creation. */
    private final AtomicInteger queueCount = new AtomicInteger();
    /**
     * The highest sequence number any queue deleted as unused had reached: a queue created by use numbers its
     * messages above it, so that a record of a deleted queue's message that reaches the journal after the deletion
     * (an acknowledgement's removal is handed over after the depth goes down) can never be taken for one of the
     * messages of a new queue of the same name.
     */
    private final AtomicLong deletedSequences = new AtomicLong();
    private final Persistence persistence;
    private final InstantSource clock;
    private final DeadLetters deadLetters;
    /** The server's memory budget for messages, which every queue and subscription counts against. */
    private final MemoryBudget memoryBudget;
    /** The policy of queues that do not choose their own (setting memoryPolicy). */
    private final MemoryPolicy defaultPolicy;
    /** Recovered messages whose delivery time is ahead; recovery's thread only, until {@link #scheduleRecoveredDelays}. */
    private final List<QueuedMessage> delayedRecovered = new ArrayList<>();

    /**
     * Creates the queue manager with the queues {@code config} defines.
     *
     * @param store where persistent messages are kept, reached only through this queue manager's
     *              {@link #persistence()}
     * @param clock what queues read the time from (expiry, auto-deletion): the system's, or one a test advances
     */
    public QueueManager(ServerConfig config, MessageStore store, InstantSource clock) {
        this.autoCreate = config.autoCreate();
        this.defaultMaxDepth = config.maxQueueDepth();
        this.maxQueues = config.maxQueues();
        this.autoDeleteDelayMillis = config.autoDeleteDelayMillis();
        this.persistence = new Persistence(store);
        this.clock = clock;
        this.deadLetters = new DeadLetters(this, persistence);
        this.memoryBudget = MemoryBudget.of(config);
        this.defaultPolicy = config.memoryPolicy();
        for (QueueDefinition q : config.queues()) {
            boolean ownLimit = q.maxDepth() != null;
            queues.put(q.name(), LocalQueue.defined(q.name(), ownLimit ? q.maxDepth() : defaultMaxDepth, ownLimit,
                    persistence, deadLetters, clock, limitOf(q), memoryBudget));
            queueCount.incrementAndGet();
        }
    }

    /** A defined queue's memory budget and policy: its own, else none and the server-wide policy. */
    private MemoryLimit limitOf(QueueDefinition q) {
        String owner = "queue '" + q.name() + "'";
        MemoryPolicy policy = q.policy() == null ? defaultPolicy
                : MemoryPolicy.parse(q.policy(), "policy of queue '" + q.name() + "'");
        return q.maxBytes() == null ? new MemoryLimit(0, policy, owner, "none of its own")
                : new MemoryLimit(q.maxBytes(), policy, owner, "setting maxBytes of queue '" + q.name() + "'");
    }

    /** A queue without a definition: no memory budget of its own, the server-wide policy. */
    private MemoryLimit noLimit(String kind, String name) {
        return new MemoryLimit(0, defaultPolicy, kind + " '" + name + "'", "none of its own");
    }

    /** The server's memory budget for messages (setting maxMemoryBytes). */
    public MemoryBudget memoryBudget() {
        return memoryBudget;
    }

    /** Where messages go that cannot stay on their queue. */
    public DeadLetters deadLetters() {
        return deadLetters;
    }

    /**
     * The dead-letter queue, created (and journaled as created) when the configuration does not define it. Dead
     * letters are never refused: it counts towards maxQueues but may pass it, and it is never deleted as unused.
     */
    LocalQueue deadLetterQueue() {
        LocalQueue queue = queues.get(DeadLetters.QUEUE);
        return queue != null ? queue : queues.computeIfAbsent(DeadLetters.QUEUE, n -> {
            queueCount.incrementAndGet();
            persistence.queueCreated(n);
            return LocalQueue.defined(n, defaultMaxDepth, false, persistence, deadLetters, clock, noLimit("queue", n),
                    memoryBudget);
        });
    }

    /**
     * The queue a client names, created if it does not exist and auto-creation is on.
     *
     * @throws WharfException UNKNOWN_DESTINATION when the queue does not exist and auto-creation is off;
     *                        TOO_MANY_QUEUES when creating it would pass maxQueues
     */
    public LocalQueue queue(String name) {
        return queue(name, ANYONE_CREATES);
    }

    /**
     * As {@link #queue(String)}; {@code beforeCreate} runs when the queue would be created by this use, and may
     * refuse that by throwing (authorisation's create permission). Not run for a queue that exists.
     */
    public LocalQueue queue(String name, Consumer<String> beforeCreate) {
        LocalQueue queue = queues.get(name);
        if (queue != null) {
            return queue;
        }
        if (SystemQueues.isReserved(name)) {
            throw new WharfException(ErrorCode.UNKNOWN_DESTINATION, "Queue '" + name + "': names starting with "
                    + List.of(SystemQueues.SUBSCRIPTION_PREFIX, SystemQueues.RETAINED_PREFIX) + " are reserved for the queue manager's subscription queues and retained "
                    + "publications; subscribe to the topic instead.");
        }
        if (!autoCreate) {
            throw new WharfException(ErrorCode.UNKNOWN_DESTINATION, "Queue '" + name + "' does not exist and "
                    + "auto-creation is off (setting autoCreate). Define it under 'queues' in the configuration.");
        }
        if (name.isEmpty()) {
            throw new WharfException(ErrorCode.UNKNOWN_DESTINATION, "A queue name must not be empty.");
        }
        beforeCreate.accept(name);
        return queues.computeIfAbsent(name, n -> {
            countNewQueue(n);
            persistence.queueCreated(n);
            LocalQueue created = LocalQueue.autoCreated(n, defaultMaxDepth, persistence, deadLetters, clock,
                    noLimit("queue", n), memoryBudget);
            created.sequenceAbove(deletedSequences.get());
            return created;
        });
    }

    /**
     * The queue a consumer or browser names, {@link LocalQueue#attach attached} (the caller detaches it when the
     * consumer or browser closes), looked up again when the one found was deleted as unused in between.
     *
     * @throws WharfException as {@link #queue(WireDestination, Consumer)}
     */
    public LocalQueue attach(WireDestination destination, Consumer<String> beforeCreate) {
        while (true) {
            LocalQueue queue = queue(destination, beforeCreate);
            if (queue.attach()) {
                return queue;
            }
            // deleted as unused since the lookup: the next lookup finds or creates its successor
        }
    }

    /** Counts a queue about to be created by use or as a temporary queue, unless that would pass maxQueues. */
    private void countNewQueue(String name) {
        int count;
        do {
            count = queueCount.get();
            if (count >= maxQueues) {
                throw new WharfException(ErrorCode.TOO_MANY_QUEUES, "Queue '" + name + "' cannot be created: the queue "
                        + "manager holds its maximum of " + maxQueues + " queues (setting maxQueues; defined, created "
                        + "by use and temporary queues count). Delete temporary queues, let unused queues be deleted "
                        + "(setting autoDeleteDelayMillis), or raise the limit.");
            }
        } while (!queueCount.compareAndSet(count, count + 1));
    }

    /**
     * Deletes the queues created by use that have been unused (no message, consumer or browser) for the auto-delete
     * delay, with a journal record each so that they stay deleted after a restart. The scheduled sweep calls it;
     * tests call it after moving their clock on. See the class comment for why a concurrent send loses nothing.
     *
     * @return how many queues were deleted
     */
    public int deleteUnusedQueues() {
        if (autoDeleteDelayMillis <= 0) {
            return 0;
        }
        long now = clock.millis();
        int[] deleted = {0};
        for (LocalQueue candidate : queues.values()) {
            if (candidate.autoCreated()) {
                queues.computeIfPresent(candidate.name(), (name, queue) -> {
                    if (!queue.deleteIfUnused(now, autoDeleteDelayMillis)) {
                        return queue;
                    }
                    persistence.queueDeleted(name);
                    deletedSequences.accumulateAndGet(queue.lastSequence(), Math::max);
                    queueCount.decrementAndGet();
                    deleted[0]++;
                    return null;
                });
            }
        }
        return deleted[0];
    }

    /**
     * Looks for unused queues created by use every {@code autoDeleteDelayMillis}, at most
     * {@link Configuration#AUTO_DELETE_SCAN_MILLIS} apart; nothing when auto-deletion is off.
     */
    public void scheduleAutoDelete(ScheduledExecutorService timer) {
        if (autoDeleteDelayMillis <= 0) {
            return;
        }
        long period = Math.min(autoDeleteDelayMillis, Configuration.AUTO_DELETE_SCAN_MILLIS);
        timer.scheduleAtFixedRate(this::deleteUnusedQueues, period, period, TimeUnit.MILLISECONDS);
    }

    /** Recovery: the queue exists again (whatever autoCreate says) and numbers new messages above the old ones. */
    public void queueRecovered(String queueName, long lastSequence) {
        recovered(queueName).sequenceAbove(lastSequence);
    }

    /**
     * A queue the journal holds: only queues created by use (and the dead-letter queue) are recorded there, so one
     * that is not defined in the configuration is one created by use. It counts towards maxQueues but is never
     * refused.
     */
    private LocalQueue recovered(String queueName) {
        return queues.computeIfAbsent(queueName, n -> {
            queueCount.incrementAndGet();
            MemoryLimit limit = noLimit("queue", n);
            return DeadLetters.QUEUE.equals(n)
                    ? LocalQueue.defined(n, defaultMaxDepth, false, persistence, deadLetters, clock, limit, memoryBudget)
                    : LocalQueue.autoCreated(n, defaultMaxDepth, persistence, deadLetters, clock, limit, memoryBudget);
        });
    }

    /**
     * Recovery: a committed, unconsumed persistent message goes back on its queue (which exists again, whatever
     * autoCreate says); one that cannot be decoded goes to the dead-letter queue instead. Takes over
     * {@code content}.
     */
    public void messageRecovered(String queueName, long sequence, ByteBuf content, int deliveryCount) {
        restore(recovered(queueName), sequence, content, deliveryCount);
    }

    /**
     * Puts a recovered message back on {@code queue} (a queue's, or a durable subscription's) at its old sequence,
     * with the delivery count it had; one whose delivery time is still ahead waits for
     * {@link #scheduleRecoveredDelays}; one that cannot be decoded goes to the dead-letter queue instead. Takes over
     * {@code content}.
     */
    public void restore(LocalQueue queue, long sequence, ByteBuf content, int deliveryCount) {
        MessageHeaders headers = readRecovered(queue.name(), sequence, content);
        if (headers == null) {
            return;
        }
        QueuedMessage message = new QueuedMessage(queue, content, headers);
        for (int i = 1; i < deliveryCount; i++) {
            message.countRedelivery();
        }
        if (message.deliveryTime() > clock.millis()) {
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
            deadLetters.moveStored(new RecoveredMessage(queueName, sequence, content),
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
        for (QueuedMessage message : delayedRecovered) {
            message.queue().offerWhenDue(message, timer);
        }
        delayedRecovered.clear();
    }

    /**
     * The queue for a destination named in a request: a named queue or a live temporary queue. Topics (and
     * temporary topics) are served by the {@link org.wharfmq.server.topic.TopicManager}, so naming one here is
     * an ILLEGAL_STATE. {@code beforeCreate}: see {@link #queue(String, Consumer)}.
     *
     * @throws WharfException when the destination is missing, not a queue, an unknown queue, or a temporary
     *                        queue that has been deleted (UNKNOWN_DESTINATION)
     */
    public LocalQueue queue(WireDestination destination, Consumer<String> beforeCreate) {
        if (destination == null) {
            throw WharfException.illegalState("No destination given: a message must name the queue it is for.");
        }
        switch (destination.kind()) {
            case QUEUE:
                return queue(destination.name(), beforeCreate);
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
     * @throws WharfException ILLEGAL_STATE when the name is already in use; TOO_MANY_QUEUES at maxQueues
     */
    public LocalQueue createTemporaryQueue(String name) {
        countNewQueue(name);
        LocalQueue queue = LocalQueue.temporary(name, defaultMaxDepth, persistence, deadLetters, clock,
                noLimit("temporary queue", name), memoryBudget);
        if (temporaryQueues.putIfAbsent(name, queue) != null) {
            queueCount.decrementAndGet();
            throw WharfException.illegalState("Temporary queue name '" + name + "' is already in use; the client must "
                    + "choose names unique across connections (TMP.<connection uuid>.<n>).");
        }
        return queue;
    }

    /** Forgets a temporary queue (its owner deletes it); later lookups fail with UNKNOWN_DESTINATION. */
    public void removeTemporaryQueue(LocalQueue queue) {
        if (temporaryQueues.remove(queue.name(), queue)) {
            queueCount.decrementAndGet();
        }
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

    /** The clock the queues read (expiry, auto-deletion). */
    public InstantSource clock() {
        return clock;
    }

    /** What is stored, and the way to the store: for everything the queue manager stores. */
    public Persistence persistence() {
        return persistence;
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
