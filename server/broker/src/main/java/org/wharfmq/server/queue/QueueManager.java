package org.wharfmq.server.queue;

import io.netty.buffer.ByteBuf;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.MalformedFrameException;
import org.wharfmq.protocol.message.MessageHeaders;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.server.Configuration;
import org.wharfmq.server.LockOrder;
import org.wharfmq.server.OrderedLock;
import org.wharfmq.server.WharfException;
import org.wharfmq.server.config.ConfigurationException;
import org.wharfmq.server.config.MemoryPolicy;
import org.wharfmq.server.config.QueueConfiguration;
import org.wharfmq.server.config.QueueDefinition;
import org.wharfmq.server.config.QueueReference;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.store.MessageStore;
import org.wharfmq.server.store.Persistence;
import org.wharfmq.server.store.DurableWait;
import org.wharfmq.server.store.QueueDefinitionFile;
import org.wharfmq.server.store.StoredMessage;

import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

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
 *
 * <h2>Queues defined at run time</h2>
 * An administrator (the management view) may define, alter and delete queues while the queue manager runs
 * ({@link #defineQueue}, {@link #alterQueue}, {@link #deleteQueue}). Definitions made so are kept in the data
 * directory ({@link QueueDefinitionFile}) and read back at start, before the journal is recovered: a definition
 * made at run time wins over the configuration's queue of the same name (logged at start), as a flow deployed by
 * hand wins over the configured one. A queue the configuration defines cannot be deleted at run time (it would come
 * back at the next start). An administrator's deletion takes the same one step as a deletion as unused, so a client
 * that looked the queue up just before looks the name up again. These changes are serialised among themselves
 * (they are rare); none of them is on a message's way. A definition holds every setting of a queue
 * ({@link QueueDefinition}: depth and memory limits, backout, events); {@link LocalQueue#configure} applies them.
 */
public final class QueueManager implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(QueueManager.class.getName());

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
     * What gives back the count of a queue created by use to its creator's quota ({@link QueueCreator#created}), by
     * name; put and removed in the step of {@link #queues} that creates or deletes that name.
     */
    private final ConcurrentHashMap<String, Runnable> creators = new ConcurrentHashMap<>();
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
    /** What a paging queue meets past its disk budget unless its definition says: setting pageFullPolicy. */
    private final MemoryPolicy defaultPageFullPolicy;
    /** The paging thread, directory and disk budget of every queue with the policy page. */
    private final Pager pager;
    /** Recovered messages whose delivery time is ahead; recovery's thread only, until {@link #scheduleRecoveredDelays}. */
    private final List<QueuedMessage> delayedRecovered = new ArrayList<>();
    /** The queues the configuration defines, by name. */
    private final Map<String, QueueDefinition> configured = new HashMap<>();
    /**
     * Serialises every administrator's change of definitions (queues, aliases, remote definitions) and guards the
     * definitions made at run time; the outermost lock ({@link LockOrder.Rank#DEFINITIONS}): a change takes a queue's
     * lock under it (a deleted queue is retired, an altered one configured), never the other way.
     */
    private final OrderedLock definitions = new OrderedLock(LockOrder.Rank.DEFINITIONS, "the queue manager's definitions");
    /** Definitions made at run time, by name, in the order made; under {@link #definitions}. */
    private final Map<String, QueueDefinition> runtimeDefinitions = new LinkedHashMap<>();
    private final QueueDefinitionFile definitionFile;
    /** Aliases and remote definitions, and where each name leads; changed under {@link #definitions}. */
    private final QueueNameResolver resolver;
    /** The configuration's aliases and remote definitions, by name (not deleted at run time). */
    private final Set<String> configuredReferences = new java.util.HashSet<>();
    /** Those defined at run time, by name, in the order made; kept in the definitions file. */
    private final Map<String, QueueReference> runtimeReferences = new LinkedHashMap<>();
    /** Where the queues' events go: set once the topic manager exists ({@link #publishEventsTo}). */
    private volatile QueueEvents eventSink = QueueEvents.NONE;
    /** What every queue is configured with: hands each event to the sink in force. */
    private final QueueEvents events = event -> eventSink.publish(event);

    /**
     * Creates the queue manager with the queues {@code config} defines.
     *
     * @param store where persistent messages are kept, reached only through this queue manager's
     *              {@link #persistence()}
     * @param clock what queues read the time from (expiry, auto-deletion): the system's, or one a test advances
     */
    public QueueManager(ServerConfig config, MessageStore store, InstantSource clock) {
        this(config, store, clock, QueueDefinitionFile.none());
    }

    /**
     * Creates the queue manager with the queues {@code config} defines, then those {@code definitionFile} keeps from
     * run time (which win over the configuration's of the same name).
     *
     * @throws org.wharfmq.server.config.ConfigurationException when the definitions file cannot be read
     */
    public QueueManager(ServerConfig config, MessageStore store, InstantSource clock,
                        QueueDefinitionFile definitionFile) {
        this.definitionFile = definitionFile;
        this.autoCreate = config.autoCreate();
        this.defaultMaxDepth = config.maxQueueDepth();
        this.maxQueues = config.maxQueues();
        this.autoDeleteDelayMillis = config.autoDeleteDelayMillis();
        this.persistence = new Persistence(store);
        this.clock = clock;
        this.deadLetters = new DeadLetters(this, persistence);
        this.memoryBudget = MemoryBudget.of(config);
        this.defaultPolicy = config.memoryPolicy();
        this.defaultPageFullPolicy = config.pageFullPolicy();
        this.pager = new Pager(config.dataDirectory().resolve("paging"), MemoryBudget.ofDisk(config));
        this.resolver = new QueueNameResolver(this, config.name(), config.defaultTransmissionQueue());
        for (QueueReference r : config.references()) {
            resolver.put(r);
            configuredReferences.add(r.name());
        }
        for (QueueDefinition q : config.queues()) {
            queues.put(q.name(), definedQueue(q));
            configured.put(q.name(), q);
            queueCount.incrementAndGet();
        }
        QueueDefinitionFile.Contents kept = definitionFile.read();
        for (QueueReference r : kept.references()) {
            runtimeReferences.put(r.name(), r);
            resolver.put(r);
        }
        for (QueueDefinition d : kept.queues()) {
            runtimeDefinitions.put(d.name(), d);
            LocalQueue queue = queues.get(d.name());
            if (queue == null) {
                queues.put(d.name(), definedQueue(d));
                queueCount.incrementAndGet();
            } else {
                configure(queue, d);
                LOG.log(System.Logger.Level.INFO, "Queue '" + d.name() + "': the definition made at run time ("
                        + d.describeSettings() + ", kept in " + definitionFile.path() + ") is used instead of"
                        + " the configuration's (" + configured.get(d.name()).describeSettings() + ").");
            }
        }
    }

    /** A new queue with the settings of {@code d}. */
    private LocalQueue definedQueue(QueueDefinition d) {
        LocalQueue queue = LocalQueue.defined(d.name(), depthLimitOf(d), d.get(QueueConfiguration.MAX_DEPTH) != null,
                persistence,
                deadLetters, clock, memoryLimitOf(d), memoryBudget, pager);
        configure(queue, d);
        return queue;
    }

    /** Gives {@code queue} the settings of {@code d}. */
    private void configure(LocalQueue queue, QueueDefinition d) {
        queue.configure(depthLimitOf(d), memoryLimitOf(d), d, events);
    }

    /** The depth limit a definition gives its queue: its own, else the server-wide one. */
    private long depthLimitOf(QueueDefinition d) {
        Long own = d.get(QueueConfiguration.MAX_DEPTH);
        return own != null ? own : defaultMaxDepth;
    }

    /** A defined queue's memory budget and policy: its own, else none and the server-wide policy. */
    private MemoryLimit memoryLimitOf(QueueDefinition q) {
        String owner = "queue '" + q.name() + "'";
        String ownPolicy = q.get(QueueConfiguration.POLICY);
        String ownPageFullPolicy = q.get(QueueConfiguration.PAGE_FULL_POLICY);
        Long maxPageBytes = q.get(QueueConfiguration.MAX_PAGE_BYTES);
        Long maxBytes = q.get(QueueConfiguration.MAX_BYTES);
        MemoryPolicy policy = ownPolicy == null ? defaultPolicy
                : MemoryPolicy.parse(ownPolicy, "policy of queue '" + q.name() + "'");
        MemoryPolicy whenFull = ownPageFullPolicy == null ? defaultPageFullPolicy
                : MemoryPolicy.parse(ownPageFullPolicy, "pageFullPolicy of queue '" + q.name() + "'");
        MemoryLimit.PageLimit paging = maxPageBytes == null
                ? new MemoryLimit.PageLimit(0, whenFull, "none of its own")
                : new MemoryLimit.PageLimit(maxPageBytes, whenFull, "setting maxPageBytes of queue '" + q.name() + "'");
        return maxBytes == null ? new MemoryLimit(0, policy, owner, "none of its own", paging)
                : new MemoryLimit(maxBytes, policy, owner, "setting maxBytes of queue '" + q.name() + "'", paging);
    }

    /** The disk budget and policy of a paging queue with no disk budget of its own (or of a subscription). */
    public MemoryLimit.PageLimit defaultPageLimit() {
        return new MemoryLimit.PageLimit(0, defaultPageFullPolicy, "none of its own");
    }

    /** The paging thread, directory and disk budget (setting maxPageBytes) of paging queues and subscriptions. */
    public Pager pager() {
        return pager;
    }

    /** A queue without a definition: no memory budget of its own, the server-wide policy. */
    private MemoryLimit noLimit(String kind, String name) {
        return new MemoryLimit(0, defaultPolicy, kind + " '" + name + "'", "none of its own", defaultPageLimit());
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
                    memoryBudget, pager);
        });
    }

    /**
     * The queue a client names, created if it does not exist and auto-creation is on.
     *
     * @throws WharfException UNKNOWN_DESTINATION when the queue does not exist and auto-creation is off;
     *                        TOO_MANY_QUEUES when creating it would pass maxQueues
     */
    public LocalQueue queue(String name) {
        return queue(name, QueueCreator.ANYONE);
    }

    /**
     * As {@link #queue(String)}; {@code creator} is asked when the queue would be created by this use, and may
     * refuse that by throwing (authorisation's create permission, its user's quota). Not asked for a queue that exists.
     */
    public LocalQueue queue(String name, QueueCreator creator) {
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
        creator.checkCreate(name);
        return queues.computeIfAbsent(name, n -> {
            Runnable giveBack = creator.created(n);
            try {
                countNewQueue(n);
            } catch (RuntimeException refused) {
                if (giveBack != null) {
                    giveBack.run();
                }
                throw refused;
            }
            if (giveBack != null) {
                creators.put(n, giveBack);
            }
            persistence.queueCreated(n);
            LocalQueue created = LocalQueue.autoCreated(n, defaultMaxDepth, persistence, deadLetters, clock,
                    noLimit("queue", n), memoryBudget, pager);
            created.sequenceAbove(deletedSequences.get());
            return created;
        });
    }

    /**
     * The queue a consumer or browser names, {@link LocalQueue#attach attached} (the caller detaches it when the
     * consumer or browser closes), looked up again when the one found was deleted as unused in between.
     *
     * @throws WharfException as {@link #queue(WireDestination, QueueCreator)}
     */
    public LocalQueue attach(WireDestination destination, QueueCreator creator) {
        while (true) {
            LocalQueue named = destination == null ? null : named(destination);
            LocalQueue queue = named != null ? named : destination != null && destination.kind().isQueue()
                    ? resolver.consumable(destination, creator) : queue(destination, creator);
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

    /** A queue created by use is gone (or an administrator's now): its creator's quota has room for another. */
    private void forgetCreator(String name) {
        Runnable giveBack = creators.remove(name);
        if (giveBack != null) {
            giveBack.run();
        }
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
                    forgetCreator(name);
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
                    ? LocalQueue.defined(n, defaultMaxDepth, false, persistence, deadLetters, clock, limit, memoryBudget, pager)
                    : LocalQueue.autoCreated(n, defaultMaxDepth, persistence, deadLetters, clock, limit, memoryBudget, pager);
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
        QueuedMessage message = recoveredMessage(queue, sequence, content, deliveryCount);
        if (message == null) {
            return;
        }
        if (message.deliveryTime() > clock.millis()) {
            queue.restoreDelayed(message, sequence);
            delayedRecovered.add(message);
        } else {
            queue.restore(message, sequence);
        }
    }

    /**
     * Recovery: a message an XA branch in doubt holds (sent in it, or consumed by it) goes back on its queue (which
     * exists again) at its old sequence, counted in the queue's depth but not offered: the branch's commit or
     * rollback settles it. Takes over {@code content}.
     *
     * @return the message, or null when it cannot be decoded (then it has gone to the dead-letter queue)
     */
    public QueuedMessage messageHeld(String queueName, long sequence, ByteBuf content, int deliveryCount) {
        return restoreHeld(recovered(queueName), sequence, content, deliveryCount);
    }

    /** As {@link #messageHeld}, on {@code queue} (a queue's, or a durable subscription's). */
    public QueuedMessage restoreHeld(LocalQueue queue, long sequence, ByteBuf content, int deliveryCount) {
        QueuedMessage message = recoveredMessage(queue, sequence, content, deliveryCount);
        if (message != null) {
            queue.restoreDelayed(message, sequence);
        }
        return message;
    }

    /** A recovered message with its delivery count, or null when it cannot be decoded (dead-lettered). */
    private QueuedMessage recoveredMessage(LocalQueue queue, long sequence, ByteBuf content, int deliveryCount) {
        MessageHeaders headers = readRecovered(queue.name(), sequence, content);
        if (headers == null) {
            return null;
        }
        QueuedMessage message = new QueuedMessage(queue, content, headers);
        for (int i = 1; i < deliveryCount; i++) {
            message.countRedelivery();
        }
        return message;
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
     * After recovery, before any client connects: a recovered message backed out as often as its queue's
     * backoutThreshold allows (its last delivery before the stop counts, as the journal recorded it) goes to the
     * backout queue now rather than to a consumer once more (docs/operations.md, "Backout").
     *
     * @return how many were moved
     */
    public int backOutRecovered() {
        int moved = 0;
        for (LocalQueue queue : queues.values()) {
            moved += queue.backOutRecovered();
        }
        return moved;
    }

    /** From now on the queues' events go to {@code sink} (the server's event topics). */
    public void publishEventsTo(QueueEvents sink) {
        eventSink = sink;
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
     * an ILLEGAL_STATE. {@code creator}: see {@link #queue(String, QueueCreator)}.
     *
     * @throws WharfException when the destination is missing, not a queue, an unknown queue, or a temporary
     *                        queue that has been deleted (UNKNOWN_DESTINATION)
     */
    public LocalQueue queue(WireDestination destination, QueueCreator creator) {
        if (destination == null) {
            throw WharfException.illegalState("No destination given: a message must name the queue it is for.");
        }
        switch (destination.kind()) {
            case QUEUE:
            case TEMPORARY_QUEUE:
                LocalQueue named = named(destination);
                return named != null ? named : resolver.resolve(destination, creator).queue();
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
                noLimit("temporary queue", name), memoryBudget, pager);
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

    /**
     * The queue a queue destination names exactly (a queue, or a live temporary queue): one map look-up, no object
     * made, for every send; null when the name is not one, and so needs {@link #resolver() resolving} (an alias, a
     * remote definition, a qualified name, a queue to create by use, a deleted temporary queue).
     */
    public LocalQueue named(WireDestination destination) {
        return destination.kind() == WireDestination.Kind.TEMPORARY_QUEUE ? temporaryQueues.get(destination.name())
                : queues.get(destination.name());
    }

    /** Where names lead: aliases, remote definitions, other queue managers (docs/distributed.md). */
    public QueueNameResolver resolver() {
        return resolver;
    }

    /** Whether {@code name} is a local queue whose usage is transmission (a channel's to take from). */
    public boolean isTransmissionQueue(String name) {
        QueueDefinition defined = definedOrNull(name);
        return defined != null && defined.transmission() && queues.containsKey(name);
    }

    // ---- administration (the management view) ----

    /**
     * A named queue or a live temporary queue by that name; null when there is neither. Subscription queues are
     * the topic manager's.
     */
    public LocalQueue find(String name) {
        LocalQueue queue = queues.get(name);
        return queue != null ? queue : temporaryQueues.get(name);
    }

    /** Every named queue, then every live temporary queue: a snapshot, in no order. */
    public List<LocalQueue> allQueues() {
        List<LocalQueue> all = new ArrayList<>(queues.size() + temporaryQueues.size());
        all.addAll(queues.values());
        all.addAll(temporaryQueues.values());
        return all;
    }

    /** Where a queue comes from: the configuration, an administrator, its first use, a connection, the queue manager. */
    public QueueOrigin origin(LocalQueue queue) {
        if (queue.isTemporary()) {
            return QueueOrigin.TEMPORARY;
        }
        boolean runtime;
        definitions.lock();
        try {
            runtime = runtimeDefinitions.containsKey(queue.name());
        } finally {
            definitions.unlock();
        }
        boolean inConfiguration = configured.containsKey(queue.name());
        if (runtime) {
            return inConfiguration ? QueueOrigin.ALTERED : QueueOrigin.DEFINED;
        }
        if (inConfiguration) {
            return QueueOrigin.CONFIGURATION;
        }
        return queue.autoCreated() ? QueueOrigin.CREATED_BY_USE : QueueOrigin.SYSTEM;
    }

    /**
     * A queue the queue manager's own plugins serve (the admin command queue and its reply queue): created if
     * missing, whatever autoCreate says, and kept (never deleted as unused; one created by use before is kept from
     * now on). Like the dead-letter queue it counts towards maxQueues but is never refused.
     */
    public LocalQueue systemQueue(String name) {
        if (!SystemQueues.isSystem(name) || SystemQueues.isReserved(name)) {
            throw new IllegalArgumentException("'" + name + "' is not a name for a queue of the queue manager's own");
        }
        LocalQueue queue = queues.computeIfAbsent(name, n -> {
            queueCount.incrementAndGet();
            return LocalQueue.defined(n, defaultMaxDepth, false, persistence, deadLetters, clock, noLimit("queue", n),
                    memoryBudget, pager);
        });
        queue.keep();
        forgetCreator(name); // kept from now on: no longer counted as created by use
        return queue;
    }

    /**
     * As {@link #systemQueue}, with the policy block, so that its messages stay in memory whatever the server's
     * budget holds (a paging queue would page them past three quarters of it): for a few small records that are taken
     * by a selector among the messages waiting in memory (a receiver channel's sync records). What it has paged
     * already (recovery pages a queue of the server-wide policy page like any other once the budget passes three
     * quarters, and an older build paged this one at run time) is read back now, before it returns: while one message
     * is paged, every new one is paged behind it, and a queue nobody consumes from reads nothing back by itself. From
     * then on nothing of it is paged. Waits for the paging thread's disk reads: never call it on an event loop.
     *
     * @throws WharfException INTERNAL_ERROR when its page files cannot be read (its paging failure, and the fix)
     */
    public LocalQueue systemQueueInMemory(String name) {
        LocalQueue queue = systemQueue(name);
        configure(queue, QueueDefinition.named(name).with(QueueConfiguration.POLICY, MemoryPolicy.BLOCK.toString()));
        long paged = queue.paged();
        if (paged > 0) {
            LOG.log(System.Logger.Level.INFO, "Queue '" + name + "' had " + paged + " messages paged (at recovery,"
                    + " past three quarters of the memory budget, or by an older build): read back into memory, where"
                    + " they stay");
        }
        while (paged > 0 && queue.readBackNow()) {
            long left = queue.paged();
            if (left >= paged) { // nothing came back: its page files cannot be read
                throw new WharfException(ErrorCode.INTERNAL_ERROR, "Queue '" + name + "' keeps " + left + " paged"
                        + " messages that must be in memory (its records are taken by a selector among the messages"
                        + " waiting there), and its page files could not be read back ("
                        + (queue.pagingFailure() == null ? "the paging thread read none" : queue.pagingFailure())
                        + "). Free or repair the disk of the data directory's page files and start the queue manager"
                        + " again.");
            }
            paged = left;
        }
        return queue;
    }

    /**
     * Defines a queue at run time; kept in the definitions file, so it exists again after a restart.
     *
     * @throws WharfException ILLEGAL_STATE when the name is taken (by any queue) or is one of the queue manager's
     *                        own; TOO_MANY_QUEUES at maxQueues
     * @throws IllegalArgumentException for an empty name or a depth limit below 1
     * @throws java.io.UncheckedIOException when the definition cannot be written: the queue exists until the next
     *                        start, and the definition is written with the next change that succeeds
     */
    public LocalQueue defineQueue(QueueDefinition definition) {
        String name = definition.name();
        checkAdministrable(name, "define");
        checkUnqualified(name);
        checkSettings(definition);
        definitions.lock();
        try {
            QueueReference reference = resolver.reference(name);
            if (reference != null) {
                throw WharfException.illegalState("'" + name + "' is defined already (" + reference.describe()
                        + "): a queue needs a name no alias or remote definition has.");
            }
            LocalQueue existing = find(name);
            if (existing != null) {
                throw WharfException.illegalState("Queue '" + name + "' exists already (" + origin(existing)
                        .description() + "): change its settings with 'alter queue " + name + "'.");
            }
            boolean[] created = {false};
            LocalQueue queue = queues.computeIfAbsent(name, n -> {
                countNewQueue(n);
                created[0] = true;
                LocalQueue defined = definedQueue(definition);
                defined.sequenceAbove(deletedSequences.get());
                return defined;
            });
            if (!created[0]) { // created by use since the look-up above
                throw WharfException.illegalState("Queue '" + name + "' exists already (" + origin(queue)
                        .description() + "): change its settings with 'alter queue " + name + "'.");
            }
            runtimeDefinitions.put(name, definition);
            resolver.changed(); // a transmission queue named as a queue manager, say
            saveDefinitions();
            return queue;
        } finally {
            definitions.unlock();
        }
    }

    /**
     * Changes a queue's settings at run time and keeps its definition in the definitions file, where it wins over
     * the configuration's at the next start. A queue created by use becomes a defined one (never deleted as unused).
     *
     * @param name    the queue's name
     * @param changes the settings to change, texts by key as config/wharf.yaml names them; a key left out stays as
     *                it is, an empty text or {@code default} puts it back to its default ({@link QueueDefinition#alteredBy})
     * @throws WharfException UNKNOWN_DESTINATION when there is no such queue; ILLEGAL_STATE for a temporary queue or
     *                        one of the queue manager's own
     * @throws IllegalArgumentException for a setting out of its range (the message names it)
     * @throws java.io.UncheckedIOException as {@link #defineQueue}
     */
    public LocalQueue alterQueue(String name, Map<String, String> changes) {
        checkAdministrable(name, "alter");
        definitions.lock();
        try {
            QueueDefinition altered;
            try {
                altered = definitionOf(name).alteredBy(changes, "the command 'alter queue " + name + "'");
            } catch (ConfigurationException e) {
                throw new IllegalArgumentException(e.getMessage(), e);
            }
            LocalQueue queue = queues.computeIfPresent(name, (n, q) -> { // one step with a deletion as unused
                q.keep();
                forgetCreator(n); // an administrator's queue now: no longer its creator's
                configure(q, altered);
                return q;
            });
            if (queue == null) {
                throw unknownQueue(name);
            }
            runtimeDefinitions.put(name, altered);
            resolver.changed(); // its usage, transmission or not
            saveDefinitions();
            return queue;
        } finally {
            definitions.unlock();
        }
    }

    /** The settings in force for the queue {@code name}: made at run time, else the configuration's, else defaults. */
    private QueueDefinition definitionOf(String name) {
        QueueDefinition defined = definedOrNull(name);
        return defined != null ? defined : QueueDefinition.named(name);
    }

    /** The settings made at run time for the queue {@code name}, else the configuration's, else null. */
    private QueueDefinition definedOrNull(String name) {
        definitions.lock();
        try {
            QueueDefinition runtime = runtimeDefinitions.get(name);
            return runtime != null ? runtime : configured.get(name);
        } finally {
            definitions.unlock();
        }
    }

    /** The settings in force for {@code queue} (for the management view). */
    public QueueDefinition definition(LocalQueue queue) {
        return definitionOf(queue.name());
    }

    /** An administrator's settings, checked as the configuration's are: bad input is an IllegalArgumentException. */
    private static void checkSettings(QueueDefinition definition) {
        try {
            definition.check();
        } catch (ConfigurationException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    /**
     * Deletes a queue for an administrator, unless it is in use (holds a message, or has a consumer or browser) and
     * {@code force} is false. See {@link LocalQueue#retire} for what becomes of its messages; its consumers are told
     * their queue is gone (their next receive raises it). A queue defined at run time is forgotten by the
     * definitions file; one created by use is recorded deleted in the journal.
     *
     * <p>Blocks until the removal of its waiting messages is durable (at once when none was stored), and only then
     * rewrites the definitions file, so a crash never brings back a deleted queue's messages without its definition;
     * call it from a thread that may block.
     *
     * @return how many waiting messages were discarded
     * @throws WharfException UNKNOWN_DESTINATION when there is no such queue; ILLEGAL_STATE when it is in use and
     *                        not forced (the message says with what and how to delete it), a temporary queue, one the
     *                        configuration defines, or one of the queue manager's own
     * @throws IllegalStateException when the journal does not record the removal of its messages
     */
    public int deleteQueue(String name, boolean force) {
        checkAdministrable(name, "delete");
        if (configured.containsKey(name)) {
            throw WharfException.illegalState("Queue '" + name + "' is defined in the configuration file (queues:): "
                    + "remove it there and restart the queue manager. Deleted now, it would be back at the next start.");
        }
        definitions.lock();
        try {
            Retirement[] result = {null};
            DurableWait removal = new DurableWait(1);
            queues.computeIfPresent(name, (n, queue) -> {
                Retirement r = queue.retire(force, removal.completion());
                result[0] = r;
                if (!r.deleted()) {
                    return queue;
                }
                persistence.queueDeleted(n);
                deletedSequences.accumulateAndGet(queue.lastSequence(), Math::max);
                queueCount.decrementAndGet();
                forgetCreator(n);
                return null;
            });
            Retirement r = result[0];
            if (r == null) {
                throw unknownQueue(name);
            }
            if (r.deleted()) {
                resolver.changed(); // a transmission queue some name led to, say
            }
            if (!r.deleted()) {
                throw WharfException.illegalState("Queue '" + name + "' " + inUse(r) + ": delete it with force "
                        + "(wharf admin delete queue " + name + " --force), or clear it and close its consumers first.");
            }
            String reason = "Queue '" + name + "' was deleted by an administrator.";
            for (QueueConsumer consumer : r.left()) {
                consumer.queueDeleted(reason);
            }
            removal.await("the removal of the " + r.discarded() + " messages of deleted queue '" + name + "'");
            if (runtimeDefinitions.remove(name) != null) {
                saveDefinitions();
            }
            return r.discarded();
        } finally {
            definitions.unlock();
        }
    }

    /**
     * Defines a queue alias, remote queue or queue-manager alias at run time; kept in the definitions file.
     *
     * @throws WharfException ILLEGAL_STATE when the name is a queue's or another definition's, or a SYSTEM name
     * @throws IllegalArgumentException for a definition that is not whole (the message names what is missing)
     */
    public QueueReference defineReference(QueueReference reference) {
        String name = reference.name();
        checkAdministrable(name, "define");
        checkUnqualified(name);
        try {
            reference.check();
        } catch (ConfigurationException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
        definitions.lock();
        try {
            LocalQueue queue = find(name);
            if (queue != null) {
                throw WharfException.illegalState("Queue '" + name + "' exists already (" + origin(queue).description()
                        + "): an alias or remote definition needs a name no queue has.");
            }
            QueueReference existing = resolver.reference(name);
            if (existing != null) {
                throw WharfException.illegalState("'" + name + "' is defined already (" + existing.describe()
                        + "): delete it first ('delete " + (existing.isAlias() ? "alias" : "remote") + " " + name
                        + "').");
            }
            runtimeReferences.put(name, reference);
            resolver.put(reference);
            saveDefinitions();
            return reference;
        } finally {
            definitions.unlock();
        }
    }

    /**
     * Deletes a queue alias, remote queue or queue-manager alias defined at run time. Messages already on a
     * transmission queue through it stay there.
     *
     * @throws WharfException UNKNOWN_DESTINATION when there is none; ILLEGAL_STATE for one of the configuration file
     */
    public QueueReference deleteReference(String name) {
        definitions.lock();
        try {
            if (configuredReferences.contains(name)) {
                throw WharfException.illegalState("'" + name + "' is defined in the configuration file (queues:): "
                        + "remove it there and restart the queue manager.");
            }
            QueueReference removed = runtimeReferences.remove(name);
            if (removed == null) {
                throw new WharfException(ErrorCode.UNKNOWN_DESTINATION, "There is no alias or remote definition named '"
                        + name + "' ('display names' lists them).");
            }
            resolver.remove(name);
            saveDefinitions();
            return removed;
        } finally {
            definitions.unlock();
        }
    }

    /** Whether the alias or remote definition {@code name} comes from the configuration file. */
    public boolean isConfiguredReference(String name) {
        return configuredReferences.contains(name);
    }

    /** "holds 12 messages and has 2 consumers", for a refusal. */
    private static String inUse(Retirement r) {
        List<String> uses = new ArrayList<>(3);
        if (r.consumers() > 0) {
            uses.add(r.consumers() + (r.consumers() == 1 ? " consumer" : " consumers"));
        }
        if (r.browsers() > 0) {
            uses.add(r.browsers() + (r.browsers() == 1 ? " browser" : " browsers"));
        }
        String holds = r.depth() > 0 ? "holds " + r.depth() + (r.depth() == 1 ? " message" : " messages") : "";
        String has = uses.isEmpty() ? "" : "has " + String.join(" and ", uses);
        return holds.isEmpty() ? has : has.isEmpty() ? holds : holds + " and " + has;
    }

    /** What an administrator may not define, alter or delete: the queue manager's own queues, temporary queues. */
    private void checkAdministrable(String name, String action) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("A queue name must not be empty.");
        }
        if (SystemQueues.isSystem(name)) {
            throw WharfException.illegalState("Queue '" + name + "': names starting with " + SystemQueues.SYSTEM_PREFIX
                    + " are the queue manager's own; an administrator cannot " + action + " them.");
        }
        if (temporaryQueues.containsKey(name)) {
            throw WharfException.illegalState("Queue '" + name + "' is a temporary queue: it lives as long as the "
                    + "connection that created it, and an administrator cannot " + action + " it (end that connection"
                    + " instead).");
        }
    }

    /** A name being defined holds no '/': that separates a queue manager's name from a queue's (QM2/ORDERS). */
    private static void checkUnqualified(String name) {
        if (name.indexOf('/') >= 0) {
            throw new IllegalArgumentException("Queue '" + name + "': a '/' separates a queue manager's name from a"
                    + " queue's (QM2/ORDERS names queue ORDERS on queue manager QM2), so a queue, alias or remote"
                    + " definition cannot hold one. Choose a name without it.");
        }
    }

    /**
     * The refusal of a command on a queue that does not exist (display, alter, delete, clear, browse, move): it names
     * where the queues are listed, the fix for a misspelt name.
     */
    public static WharfException unknownQueue(String name) {
        return new WharfException(ErrorCode.UNKNOWN_DESTINATION, "Queue '" + name + "' does not exist"
                + " ('display queues' lists the queues; subscriptions' queues are under 'display subscriptions').");
    }

    /** Rewrites the definitions file; under {@link #definitions}. */
    private void saveDefinitions() {
        assert definitions.isHeldByCurrentThread();
        definitionFile.write(runtimeDefinitions.values(), runtimeReferences.values());
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
        pager.close();
    }
}
