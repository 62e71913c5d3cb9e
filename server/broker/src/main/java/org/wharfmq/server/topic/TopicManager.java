package org.wharfmq.server.topic;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.MalformedFrameException;
import org.wharfmq.protocol.message.MessageHeaders;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.protocol.selector.Selector;
import org.wharfmq.protocol.selector.SelectorParseException;
import org.wharfmq.server.LockOrder;
import org.wharfmq.server.OrderedLock;
import org.wharfmq.server.WharfException;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.config.MemoryPolicy;
import org.wharfmq.server.config.TopicConfiguration;
import org.wharfmq.server.config.TopicDefinition;
import org.wharfmq.server.queue.CompactionArena;
import org.wharfmq.server.queue.LocalQueue;
import org.wharfmq.server.queue.MemoryLimit;
import org.wharfmq.server.queue.QueueManager;
import org.wharfmq.server.queue.QueuedMessage;
import org.wharfmq.server.queue.SystemQueues;
import org.wharfmq.server.store.Persistence;
import org.wharfmq.server.store.StoreCompletion;
import org.wharfmq.server.store.StoredMessage;
import org.wharfmq.server.security.Identity;
import org.wharfmq.server.store.SubscriptionRecord;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Publish/subscribe: the topic tree, the subscriptions and their queues, and the retained publications.
 *
 * <h2>A publication's path</h2>
 * {@link #route} matches the topic in the {@link TopicTree} (cost: the matching subscriptions, not all of them),
 * drops subscriptions whose selector or noLocal rule refuses the message, and reserves on each remaining
 * subscription's queue a {@link QueuedMessage} over one {@code duplicate()} of the bytes that every copy shares,
 * each copy holding a reference of its own (the body is never copied). The session then
 * treats the copies exactly as queue sends: journaled (durable subscriptions only) and offered at once, after the
 * sync, or at COMMIT. Outside a transaction, a publication that nothing stores, that is not retained and that no
 * matching subscription could refuse has each copy reserved and offered in one step ({@link LocalQueue#putCopy}) as
 * it is routed. A publication nobody subscribes to is dropped, which is not an error.
 *
 * <h2>A full subscription queue</h2>
 * As IBM MQ's defaults (PMSGDLV ALLDUR, NPMSGDLV ALLAVAIL): a persistent publication that cannot be put on a full
 * <em>durable</em> subscription fails as a whole with QUEUE_FULL naming the subscription, and no subscriber gets it
 * (nothing persistent is silently lost); any other publication skips the full subscriptions only, each counting
 * it in {@link Subscription#missed()} (shown by {@code wharf topic list}) and logging a warning.
 *
 * <h2>Threading</h2>
 * Routing runs on the publisher's event loop under the tree's read lock only. Creating, attaching to, detaching
 * from and deleting subscriptions take the manager's lock (an {@link OrderedLock} of rank
 * {@link LockOrder.Rank#TOPICS}: short, in-memory; store calls only hand records to the journal writer; a subscription's
 * queue's lock may be taken under it, never the other way). Each subscription queue guards itself, as every queue
 * does. The names of the live temporary
 * topics are a concurrent set: written by their owners' event loops, read by publishers' without a lock.
 */
public final class TopicManager {

    private static final System.Logger LOG = System.getLogger(TopicManager.class.getName());

    /** A message with this property set to {@code true} (boolean or string) becomes its topic's retained one. */
    public static final String RETAIN_PROPERTY = "WHARF_RETAIN";
    /** Warn about a subscription that misses publications on the first miss and every this many after. */
    private static final long MISSED_WARNING_INTERVAL = 10_000;

    /** Durable and shared subscriptions are named by client ID (or none) and name. */
    private record Key(String clientId, String name) {
    }

    private final QueueManager queues;
    private final Persistence persistence;
    private final long maxDepth;
    /** Memory settings by topic filter (the first that covers a subscription's filter wins), then the defaults. */
    private final List<TopicDefinition> topicSettings;
    private final long defaultSubscriptionBytes;
    private final MemoryPolicy defaultPolicy;
    private final TopicTree<Subscription> tree = new TopicTree<>();
    /** Subscriptions on temporary topics, by exact name: apart, so no wildcard on ordinary topics matches them. */
    private final TopicTree<Subscription> temporarySubscriptions = new TopicTree<>();
    /** Names of the live temporary topics; each is owned by one connection's {@code TemporaryDestinations}. */
    private final Set<String> temporaryTopics = ConcurrentHashMap.newKeySet();
    private final AtomicLong subscriptionNumbers = new AtomicLong();
    private final ConcurrentHashMap<String, RetainedPublication> retained = new ConcurrentHashMap<>();
    /** Recovery only: the highest sequence seen per retained topic, and the copies it found. */
    private final Map<String, Long> retainedSequences = new HashMap<>();

    /**
     * Guards the subscriptions by name and queue and their consumer counts; held for in-memory work (store calls only
     * enqueue), and taken before a queue's lock, never under one ({@link LockOrder}).
     */
    private final OrderedLock lock = new OrderedLock(LockOrder.Rank.TOPICS, "the topic manager");
    // guarded by lock
    private final Map<Key, Subscription> named = new HashMap<>();
    private final Map<String, Subscription> byQueue = new HashMap<>();
    /**
     * Told of each subscription created or deleted (the channels' proxy subscriptions follow the topics subscribed
     * to here, docs/distributed.md); a publication never calls it.
     */
    private volatile Runnable subscriptionObserver = () -> { };

    /**
     * @param config the settings (maxQueueDepth applies to every subscription queue)
     * @param queues the queue manager, which recovery hands ordinary queues to
     */
    public TopicManager(ServerConfig config, QueueManager queues) {
        this.queues = queues;
        this.persistence = queues.persistence();
        this.maxDepth = config.maxQueueDepth();
        this.topicSettings = config.topics();
        this.defaultSubscriptionBytes = config.maxSubscriptionBytes();
        // page, the default for queues, is not one for subscriptions: a slow subscriber slows its publisher instead
        this.defaultPolicy = config.memoryPolicy() == MemoryPolicy.PAGE ? MemoryPolicy.BLOCK : config.memoryPolicy();
    }

    /**
     * A new subscription's memory budget and policy: those of the first {@code topics} entry whose filter covers the
     * subscription's filter (read as a topic name), else maxSubscriptionBytes and memoryPolicy.
     */
    private MemoryLimit limitOf(String filter, String description) {
        for (TopicDefinition t : topicSettings) {
            if (TopicNames.matches(t.filter(), filter)) {
                String where = "topic '" + t.filter() + "'";
                String named = t.get(TopicConfiguration.POLICY);
                Long maxBytes = t.get(TopicConfiguration.MAX_BYTES);
                MemoryPolicy policy = named == null ? defaultPolicy : MemoryPolicy.parse(named, "policy of " + where);
                return maxBytes == null
                        ? limit(defaultSubscriptionBytes, policy, description, "setting maxSubscriptionBytes")
                        : limit(maxBytes, policy, description, "setting maxBytes of " + where);
            }
        }
        return limit(defaultSubscriptionBytes, defaultPolicy, description, "setting maxSubscriptionBytes");
    }

    private MemoryLimit limit(long maxBytes, MemoryPolicy policy, String description, String setting) {
        return new MemoryLimit(maxBytes, policy, description, maxBytes > 0 ? setting : "none of its own",
                queues.defaultPageLimit());
    }

    // ---- publishing ----

    /**
     * Checks a destination a producer names (CREATE_PRODUCER): a topic must have no wildcard.
     *
     * @throws WharfException UNKNOWN_DESTINATION when the topic name is not valid
     */
    public void checkPublishable(WireDestination destination) {
        TopicNames.checkTopic(destination.name());
        requireLiveTemporaryTopic(destination);
    }

    /**
     * A temporary topic can be published to only while it exists (JMS: a deleted temporary destination is an
     * invalid destination).
     *
     * @throws WharfException UNKNOWN_DESTINATION for a temporary topic that was deleted or whose connection ended
     */
    private void requireLiveTemporaryTopic(WireDestination destination) {
        if (destination.kind() == WireDestination.Kind.TEMPORARY_TOPIC && !temporaryTopicExists(destination.name())) {
            throw new WharfException(ErrorCode.UNKNOWN_DESTINATION, "Temporary topic '" + destination.name()
                    + "' does not exist: it was deleted or the connection that created it has closed.");
        }
    }

    // ---- temporary topics ----

    /**
     * Records a live temporary topic; called by the owning connection's registry only.
     *
     * @throws WharfException ILLEGAL_STATE when the name is already in use
     */
    public void createTemporaryTopic(String name) {
        if (!temporaryTopics.add(name)) {
            throw WharfException.illegalState("Temporary topic name '" + name + "' is already in use; the client must "
                    + "choose names unique across connections (TMP.<connection uuid>.<n>).");
        }
    }

    /** Forgets a temporary topic; publishing to it fails with UNKNOWN_DESTINATION from then on. */
    public void removeTemporaryTopic(String name) {
        temporaryTopics.remove(name);
    }

    /** Whether a temporary topic of that name is live. */
    public boolean temporaryTopicExists(String name) {
        return temporaryTopics.contains(name);
    }

    /** How many subscriptions a temporary topic has (it may not be deleted while it has any). */
    public int temporaryTopicSubscriptions(String name) {
        List<Subscription> matching = new ArrayList<>();
        temporarySubscriptions.match(name, matching);
        return matching.size();
    }

    /**
     * Routes a message published to a topic (or a temporary topic): reserves a copy on every subscription that
     * wants it. Does not take over {@code content}: the copies and the retained reference hold their own.
     *
     * @param connection        the publishing connection (for noLocal)
     * @param publisherClientId its client ID, or null (for the noLocal of durable subscriptions)
     * @param arena             the publishing session's, for a publication that will wait on a subscription's
     *                          backlog: it is compacted once there, and every copy shares the right-sized bytes
     * @param timer             outside a transaction, where a delayed copy waits for its delivery time: then a
     *                          publication that nothing stores, that is not retained and that no matching
     *                          subscription could refuse ({@link LocalQueue#mayRefuseCopy}) is offered as it is
     *                          routed, each copy reserved and offered under one acquisition of its queue's lock
     *                          ({@link LocalQueue#putCopy}; {@link #publish} then has nothing left to offer); null in a
     *                          transaction, whose copies are only reserved until COMMIT
     * @throws WharfException UNKNOWN_DESTINATION for a topic with wildcards; QUEUE_FULL when a persistent message
     *                        cannot be put on a full durable subscription (then nothing is reserved)
     */
    public Publication route(ByteBuf content, MessageHeaders headers, Object connection, String publisherClientId,
                             CompactionArena arena, ScheduledExecutorService timer) {
        WireDestination destination = headers.destination();
        boolean temporary = destination.kind() == WireDestination.Kind.TEMPORARY_TOPIC;
        String topic = destination.name();
        TopicNames.checkTopic(topic);
        requireLiveTemporaryTopic(destination);
        Publication publication = new Publication(topic, content, headers);
        boolean retain = !temporary && wantsRetain(publication); // before reserving: decoding may find a bad message
        if (retain && isRetained(topic, headers.messageId())) {
            // the topic's retained publication already (a hierarchy partner's new proxy subscription received it and
            // forwarded it back): every subscription it matches has it, from its publication or as it subscribed
            return publication;
        }
        List<Subscription> matching = new ArrayList<>();
        (temporary ? temporarySubscriptions : tree).match(topic, matching);
        boolean waits = false;
        boolean persistent = headers.persistent();
        // offered as routed: no COMMIT, no store record, no retained publication to replace before the copies go, and
        // no subscription whose refusal would have to take back the copies already offered
        boolean atOnce = timer != null && !retain;
        int wanted = 0;
        for (int i = 0; i < matching.size(); i++) {
            Subscription s = matching.get(i);
            if (s.excludes(connection, publisherClientId) || !s.selector().matches(publication)) {
                matching.set(i, null);
            } else {
                LocalQueue queue = s.queue();
                waits |= queue.backlogged();
                atOnce &= !(persistent && queue.journaled()) && !queue.mayRefuseCopy(persistent);
                wanted++;
            }
        }
        ScheduledExecutorService putNow = atOnce ? timer : null;
        // one copy for every subscription, rather than one per subscription its queue would make as it waits
        ByteBuf bytes = waits && CompactionArena.pinsMoreThanItself(content) ? arena.copy(content) : content;
        // a reference for every copy taken in one step, not one atomic add per copy (with 100 subscribers that was an
        // eighth of the publishing loop's samples, docs/performance-log.md, session 32); every copy holds one and
        // gives it back when it is released, through one plain duplicate() they all share: nothing moves its indices
        // (every reader of a message's bytes reads at absolute positions or from a duplicate of its own), and a
        // duplicate per copy checked the count each copy of the shared bytes is made from, a read of a cache line
        // the other loops' acknowledgements keep writing (a ninth of the publishing loop's samples, session 33)
        ByteBuf shared = null;
        if (wanted > 0) {
            bytes.retain(wanted);
            shared = bytes.duplicate();
        }
        int made = 0;
        try {
            for (int i = 0; i < matching.size(); i++) {
                Subscription s = matching.get(i);
                if (s != null) {
                    made++;
                    reserveCopy(publication, s, shared, waits, putNow);
                }
            }
        } finally {
            if (made < wanted) {
                bytes.release(wanted - made); // refused part-way: the references of the copies never made
            }
            if (bytes != content) {
                bytes.release(); // the copies hold their own references
            }
        }
        if (retain) {
            publication.keepForRetain();
        }
        return publication;
    }

    /**
     * Reserves a copy of the publication on {@code s}'s queue, or, with {@code putNow} (the timer of a publication
     * offered as it is routed), reserves and offers it ({@link LocalQueue#putCopy}); one its full queue or its drop
     * policy does not take is counted there (see the class comment).
     *
     * @throws WharfException QUEUE_FULL when the publication fails for every subscriber: a persistent one meets a full
     *                        durable subscription, or any meets a memory budget whose policy refuses it (then nothing
     *                        is reserved; never with {@code putNow}, which {@link #route} gives only where neither
     *                        can happen)
     */
    private void reserveCopy(Publication publication, Subscription s, ByteBuf shared, boolean rightSized,
                             ScheduledExecutorService putNow) {
        MessageHeaders headers = publication.headers();
        // the duplicate every copy shares, with one of the references route took, not a retainedDuplicate() each: no
        // pooled duplicate with a count of its own, taken from this loop's recycler and handed back to it by the loop
        // that acknowledges the copy (taking and giving back were a fifth of the event loops' samples in PS-N 100,
        // docs/performance-log.md, session 30); the copies count on the publication's bytes
        QueuedMessage copy = new QueuedMessage(s.queue(), shared, headers, publication.decodedProperties(), rightSized);
        LocalQueue.Admission admission;
        try {
            admission = putNow != null ? s.queue().putCopy(copy, putNow) : s.queue().reserveCopy(copy);
        } catch (WharfException overBudget) {
            copy.content().release();
            throw refuse(publication, "The publication to topic '" + publication.topic() + "' was delivered to no"
                    + " subscriber: " + overBudget.getMessage());
        }
        switch (admission) {
            case RESERVED -> {
                if (putNow != null) {
                    publication.offered++;
                } else {
                    publication.copies.add(copy);
                }
                if (s.queue().blocksProducers()) {
                    publication.blockedBy(s.queue());
                }
            }
            case DROPPED -> copy.content().release(); // counted and logged by the queue
            case FULL -> {
                copy.content().release();
                if (headers.persistent() && s.durable()) {
                    throw refuse(publication, "The persistent publication to topic '" + publication.topic()
                            + "' was delivered to no subscriber: the queue of " + s + " is full ("
                            + s.queue().depthRefusal().getMessage() + ")");
                }
                missed(s, publication.topic());
            }
        }
    }

    /** Gives back the places the publication's copies took and makes the refusal the publisher gets. */
    private static WharfException refuse(Publication publication, String why) {
        for (QueuedMessage reserved : publication.copies) {
            reserved.queue().cancel(reserved);
        }
        publication.copies.clear();
        return new WharfException(ErrorCode.QUEUE_FULL, why);
    }

    /**
     * Whether the publication {@code messageId} (null: none) is {@code topic}'s retained publication: a message is
     * retained once, and given to each subscription once.
     */
    private boolean isRetained(String topic, String messageId) {
        if (messageId == null) {
            return false;
        }
        RetainedPublication current = retained.get(topic);
        return current != null && messageId.equals(current.headers.messageId());
    }

    private static boolean wantsRetain(Publication publication) {
        if (!publication.headers().hasProperties(publication.content())) {
            return false;
        }
        Object value = publication.get().get(RETAIN_PROPERTY);
        return Boolean.TRUE.equals(value) || (value instanceof String s && Boolean.parseBoolean(s));
    }

    private static void missed(Subscription s, String topic) {
        s.countMissed();
        long missed = s.missed();
        if (missed % MISSED_WARNING_INTERVAL == 1) {
            LOG.log(System.Logger.Level.WARNING, "A publication to topic '" + topic + "' was not delivered to " + s
                    + ": its queue is full (setting maxQueueDepth; " + missed + " missed so far). Consume its messages"
                    + " or raise the limit.");
        }
    }

    /**
     * Whether any record of a routed publication is stored ({@link Persistence}): its copies on durable
     * subscriptions when it is persistent, and itself when it is a persistent retained one. When none is, it is
     * published at once.
     */
    public boolean stores(Publication publication) {
        if (publication.retains() && publication.headers().persistent()) {
            return true;
        }
        return persistence.storesAny(publication.copies());
    }

    /**
     * Stores what of a routed publication is stored (see {@link #stores}, which must be true) and runs
     * {@code then} once all of it is durable, with the first failure if any. A persistent retained publication
     * becomes its topic's retained one now, so that its record is ordered with the others of the topic.
     */
    public void store(Publication publication, StoreCompletion then) {
        boolean retainNow = publication.retains() && publication.headers().persistent();
        StoreCompletion all = retainNow ? Persistence.countdown(2, then) : then;
        // the copies as one record (their bytes once): one journal entry, so one sync, and all or none after a crash
        persistence.putCopies(publication.copies(), all);
        if (retainNow) {
            retain(publication, all);
        }
    }

    /**
     * Publishes a routed (and, when {@link #stores}, stored) publication: a retained one becomes its topic's retained
     * publication (a no-op when {@link #store} made it so), then each copy is offered to its subscription's queue at
     * its JMS delivery time (a delayed one by a task on {@code timer}).
     */
    public void publish(Publication publication, ScheduledExecutorService timer) {
        // retained before any copy is offered: whoever has received a copy and subscribes again finds it retained
        retain(publication, StoreCompletion.NONE);
        List<QueuedMessage> copies = publication.copies();
        for (int i = 0; i < copies.size(); i++) {
            QueuedMessage copy = copies.get(i);
            copy.queue().offerWhenDue(copy, timer);
        }
    }

    /**
     * Makes the publication its topic's retained one, replacing the previous (last one wins). A persistent one is
     * stored; {@code completion} runs once it is durable (at once for a non-persistent one).
     */
    public void retain(Publication publication, StoreCompletion completion) {
        ByteBuf content = publication.takeRetainedContent();
        if (content == null) {
            completion.completed(null);
            return;
        }
        if (CompactionArena.pinsMoreThanItself(content)) { // kept for as long as the topic has no newer one
            ByteBuf own = CompactionArena.copyAlone(content, ByteBufAllocator.DEFAULT);
            content.release();
            content = own;
        }
        String topic = publication.topic();
        synchronized (retained) {
            RetainedPublication previous = retained.get(topic);
            long sequence = previous != null ? previous.sequence() + 1 : retainedSequences.getOrDefault(topic, 0L) + 1;
            RetainedPublication next = new RetainedPublication(topic, sequence, content, publication.headers());
            retained.put(topic, next);
            // store calls only queue records for the writer: made under the lock, they reach the journal in order
            persistence.put(next, completion);
            if (previous != null) {
                persistence.remove(previous);
                previous.content.release();
            }
        }
    }

    // ---- subscribing ----

    /**
     * Finds or creates the subscription a new consumer attaches to (CREATE_CONSUMER on a topic), applying the JMS
     * rules, and counts the consumer on it.
     *
     * @param destination  the topic (filter) or temporary topic
     * @param selectorText the selector as given, or null
     * @param selector     the parsed selector
     * @param noLocal      leave out publications of this connection (durable: of this client ID)
     * @param durable      a durable subscription (JMS createDurableConsumer)
     * @param shared       a shared subscription (JMS 2.0 createSharedConsumer / createSharedDurableConsumer)
     * @param name         the subscription name (durable or shared), else ignored
     * @param clientId     the connection's client ID, or null
     * @param connection   the connection (for noLocal)
     * @param who          the connection's user: a named subscription it creates is its own, and one another user
     *                     created is out of its reach
     * @throws WharfException with the JMS exception's code when a rule is broken; NOT_AUTHORISED for another user's
     *                        subscription
     */
    public Subscription attach(WireDestination destination, String selectorText, Selector selector, boolean noLocal,
                               boolean durable, boolean shared, String name, String clientId, Object connection,
                               Identity who) {
        boolean temporary = destination.kind() == WireDestination.Kind.TEMPORARY_TOPIC;
        String filter = destination.name();
        if (temporary) {
            TopicNames.checkTopic(filter);
            if (durable) {
                throw new WharfException(ErrorCode.UNKNOWN_DESTINATION, "Temporary topic '" + filter + "' cannot"
                        + " have a durable subscription: it ends with its connection.");
            }
        } else {
            TopicNames.checkFilter(filter);
        }
        if (!durable && !shared) {
            Subscription s = create(null, null, clientId, null, filter, selectorText, selector, noLocal, false, false,
                    temporary, connection);
            lock.lock();
            try {
                s.firstConsumer();
            } finally {
                lock.unlock();
            }
            return s;
        }
        if (name == null || name.isEmpty()) {
            throw WharfException.illegalState("A " + (durable ? "durable" : "shared") + " subscription needs a name.");
        }
        TopicNames.checkSubscriptionName(name, who);
        if (durable && !shared && clientId == null) {
            throw WharfException.illegalState("Durable subscription '" + name + "' needs a client ID: call "
                    + "Connection.setClientID (or use a shared durable subscription, JMS 2.0 section 6.11.1).");
        }
        Key key = new Key(clientId, name);
        lock.lock();
        try {
            Subscription existing = named.get(key);
            if (existing != null) {
                checkOwner(existing, who);
                if (existing.durable() != durable || existing.shared() != shared) {
                    throw WharfException.illegalState("Subscription '" + name + "'" + ofClient(clientId)
                            + " already exists as a " + kind(existing) + "; it cannot also be used as a "
                            + kind(durable, shared) + " subscription. Use another name.");
                }
                if (existing.sameDefinition(filter, selectorText, noLocal)) {
                    if (!shared && existing.consumers() > 0) {
                        throw WharfException.illegalState("Durable subscription '" + name + "'" + ofClient(clientId)
                                + " already has an active consumer; an unshared durable subscription has at most"
                                + " one at a time (use a shared durable subscription for more).");
                    }
                    existing.addConsumer();
                    return existing;
                }
                if (existing.consumers() > 0) {
                    throw WharfException.illegalState("Subscription '" + name + "'" + ofClient(clientId)
                            + " is in use with topic '" + existing.filter() + "'" + selectorClause(existing.selectorText())
                            + "; it cannot be changed to topic '" + filter + "'" + selectorClause(selectorText)
                            + " while it has active consumers.");
                }
                delete(existing); // JMS: a changed topic, selector or noLocal replaces the durable subscription
            }
            Subscription s = create(null, name, clientId, ownerOf(who), filter, selectorText, selector, noLocal,
                    durable, shared, false, connection);
            named.put(key, s);
            s.firstConsumer();
            return s;
        } finally {
            lock.unlock();
        }
    }

    /** A consumer of the subscription closed; a non-durable subscription ends with its last consumer. */
    public void detach(Subscription s) {
        lock.lock();
        try {
            if (s.removeConsumer() > 0 || s.durable()) {
                return;
            }
            if (s.name() != null) {
                named.remove(new Key(s.clientId(), s.name()), s);
            }
            delete(s);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Deletes a durable subscription and its messages (UNSUBSCRIBE).
     *
     * @throws WharfException UNKNOWN_DESTINATION when there is none of that name; ILLEGAL_STATE while it has a
     *                        consumer
     */
    public void unsubscribe(String clientId, String name, Identity who) {
        lock.lock();
        try {
            TopicNames.checkSubscriptionName(name, who);
            Subscription s = durableNamed(clientId, name, "unsubscribe");
            checkOwner(s, who);
            if (s.consumers() > 0) {
                throw WharfException.illegalState("Durable subscription '" + name + "'" + ofClient(clientId) + " has "
                        + s.consumers() + " active consumer(s); close them before unsubscribing.");
            }
            named.remove(new Key(clientId, name));
            delete(s);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Deletes a durable subscription and its messages for an administrator, whoever owns it.
     *
     * @throws WharfException UNKNOWN_DESTINATION when there is none of that name; ILLEGAL_STATE while it has a
     *                        consumer (the message says how to end them)
     */
    public void deleteDurable(String clientId, String name) {
        lock.lock();
        try {
            Subscription s = durableNamed(clientId, name, "delete");
            if (s.consumers() > 0) {
                throw WharfException.illegalState("Durable subscription '" + name + "'" + ofClient(clientId) + " has "
                        + s.consumers() + " active consumer(s): close them, or end their connections ('display "
                        + "connections', 'end connection ID'), then delete it.");
            }
            named.remove(new Key(clientId, name));
            delete(s);
        } finally {
            lock.unlock();
        }
    }

    /** The durable subscription of that name; under the lock. */
    private Subscription durableNamed(String clientId, String name, String action) {
        Subscription s = named.get(new Key(clientId, name));
        if (s == null || !s.durable()) {
            throw new WharfException(ErrorCode.UNKNOWN_DESTINATION, "There is no durable subscription '" + name
                    + "'" + ofClient(clientId) + " to " + action + ".");
        }
        return s;
    }

    /**
     * Checks that {@code who} may use the client ID {@code clientId} (SET_CLIENT_ID): not when a durable subscription
     * under it belongs to another user, which would otherwise be theirs to resume or delete.
     *
     * @throws WharfException NOT_AUTHORISED naming the client ID and its owner
     */
    public void checkClientId(String clientId, Identity who) {
        lock.lock();
        try {
            for (Subscription s : named.values()) {
                if (clientId.equals(s.clientId())) {
                    if (!mayUse(s, who)) {
                        throw new WharfException(ErrorCode.NOT_AUTHORISED, who.describeAtStart()
                                + " may not use client ID '" + clientId + "': it holds durable subscription '"
                                + s.name() + "' of user '" + s.owner() + "'. Choose another client ID.");
                    }
                }
            }
        } finally {
            lock.unlock();
        }
    }

    private static void checkOwner(Subscription s, Identity who) {
        if (!mayUse(s, who)) {
            throw new WharfException(ErrorCode.NOT_AUTHORISED, who.describeAtStart() + " may not use "
                    + (s.durable() ? "durable" : "shared") + " subscription '" + s.name() + "'" + ofClient(s.clientId())
                    + ": it belongs to user '" + s.owner() + "', who created it.");
        }
    }

    /** A subscription nobody owns (made anonymously) is anyone's; an owned one its owner's (and the server's). */
    private static boolean mayUse(Subscription s, Identity who) {
        return s.owner() == null || who.server() || s.owner().equals(who.user());
    }

    private static String ownerOf(Identity who) {
        return who.anonymous() ? null : who.user();
    }


    /**
     * Creates a subscription and its queue and enters it in the tree.
     *
     * @param recoveredQueue the queue name of a durable subscription recovered from the store (which already holds
     *                       its definition, and whose messages follow); null for a new subscription
     */
    private Subscription create(String recoveredQueue, String name, String clientId, String owner, String filter,
                                String selectorText, Selector selector, boolean noLocal, boolean durable,
                                boolean shared, boolean temporary, Object connection) {
        String queueName = recoveredQueue != null ? recoveredQueue
                : (durable ? SystemQueues.DURABLE_SUBSCRIPTION_PREFIX : SystemQueues.NON_DURABLE_SUBSCRIPTION_PREFIX) + subscriptionNumbers.incrementAndGet();
        MemoryLimit limit = limitOf(filter, Subscription.describe(durable, shared, name, clientId, filter));
        LocalQueue queue = LocalQueue.subscription(queueName, maxDepth, persistence, durable, queues.deadLetters(),
                queues.clock(), limit, queues.memoryBudget(), queues.pager());
        Subscription s = new Subscription(queueName, name, clientId, owner, filter, selectorText, selector, noLocal,
                durable, shared, temporary, durable ? null : connection, queue, this);
        if (recoveredQueue == null) {
            if (durable) {
                persistence.subscriptionCreated(new SubscriptionRecord(queueName, name, clientId, filter, selectorText,
                        noLocal, shared, owner));
            }
            if (!temporary) {
                giveRetained(s);
            }
        }
        lock.lock();
        try {
            byQueue.put(queueName, s);
        } finally {
            lock.unlock();
        }
        (temporary ? temporarySubscriptions : tree).add(filter, s);
        subscriptionObserver.run();
        return s;
    }

    /** Ends a subscription: no more publications, its messages discarded (and removed from the journal). */
    private void delete(Subscription s) {
        (s.temporary() ? temporarySubscriptions : tree).remove(s.filter(), s);
        byQueue.remove(s.queueName());
        s.queue().delete();
        if (s.durable()) {
            persistence.subscriptionDeleted(s.queueName());
        }
        subscriptionObserver.run();
    }

    /**
     * Tells {@code observer} of every later subscription created or deleted, replacing the observer before. It runs
     * on the thread that made the change, possibly under the topic manager's lock: it must only hand the news to a
     * thread of its own (and read {@link #describe()} there).
     */
    public void observeSubscriptions(Runnable observer) {
        subscriptionObserver = Objects.requireNonNull(observer);
    }

    /** A new subscription receives the retained publications of the topics it matches, before anything else. */
    private void giveRetained(Subscription s) {
        for (RetainedPublication r : retained.values()) {
            if (!TopicNames.matches(s.filter(), r.topic) || !selects(s, r)) {
                continue;
            }
            QueuedMessage copy = new QueuedMessage(s.queue(), r.content.retainedDuplicate(), r.headers, null, true);
            LocalQueue.Admission admission;
            try {
                admission = s.queue().reserveCopy(copy);
            } catch (WharfException overBudget) {
                admission = LocalQueue.Admission.FULL;
            }
            if (admission != LocalQueue.Admission.RESERVED) {
                copy.content().release();
                missed(s, r.topic);
                continue;
            }
            persistence.put(copy, StoreCompletion.NONE); // queued before any acknowledgement of it can be
            s.queue().offer(copy);
        }
    }

    /**
     * Whether the subscription's selector accepts a retained publication. One whose properties cannot be decoded
     * (recovery checks them, so only a bug brings one here) stops being retained and goes to the dead-letter queue.
     */
    private boolean selects(Subscription s, RetainedPublication r) {
        try {
            return s.selector().matches(r);
        } catch (MalformedFrameException e) {
            synchronized (retained) {
                if (!retained.remove(r.topic, r)) {
                    return false; // replaced meanwhile, and released by whoever replaced it
                }
            }
            queues.deadLetters().moveStored(r, "the retained publication of topic '"
                    + r.topic + "' cannot be decoded: " + e.getMessage());
            r.content.release();
            return false;
        }
    }

    // ---- recovery (routed here by org.wharfmq.server.RecoveryRouter) ----

    /** Recovery: a durable subscription that existed when the server stopped; before any queue or message. */
    public void subscriptionRecovered(SubscriptionRecord r) {
        Selector selector;
        try {
            selector = Selector.parse(r.selector());
        } catch (SelectorParseException e) { // it was parsed when the subscription was created
            throw new IllegalStateException("Recovered " + r + " has a selector that no longer parses: " + e, e);
        }
        Subscription s = create(r.queueName(), r.name(), r.clientId(), r.owner(), r.topic(), r.selector(), selector,
                r.noLocal(), true, r.shared(), false, null);
        try { // new subscription queues are numbered above the recovered ones
            long number = Long.parseLong(r.queueName().substring(SystemQueues.DURABLE_SUBSCRIPTION_PREFIX.length()));
            subscriptionNumbers.accumulateAndGet(number, Math::max);
        } catch (RuntimeException e) {
            // a name from another numbering scheme cannot collide with ours
        }
        lock.lock();
        try {
            named.put(new Key(r.clientId(), r.name()), s);
        } finally {
            lock.unlock();
        }
    }

    /** Recovery: the highest sequence the store saw on a subscription's queue (none left when it was deleted). */
    public void subscriptionQueueRecovered(String queueName, long lastSequence) {
        Subscription s = subscriptionOfQueue(queueName);
        if (s != null) {
            s.queue().sequenceAbove(lastSequence);
        }
    }

    /**
     * Recovery: a message of a durable subscription goes back on its queue; one whose subscription was deleted
     * before the removal of its messages reached the journal is removed now. Takes over {@code content}.
     */
    public void subscriptionMessageRecovered(String queueName, long sequence, ByteBuf content, int deliveryCount) {
        Subscription s = subscriptionOfQueue(queueName);
        if (s == null) {
            persistence.remove(new Orphan(queueName, sequence, content));
            content.release();
            return;
        }
        queues.restore(s.queue(), sequence, content, deliveryCount);
    }

    /**
     * Recovery: a message of a durable subscription that an XA branch in doubt holds, back on the subscription's queue
     * but not offered ({@link QueueManager#restoreHeld}). Takes over {@code content}.
     *
     * @return the message, or null when its subscription was deleted (or it cannot be decoded)
     */
    public QueuedMessage subscriptionMessageHeld(String queueName, long sequence, ByteBuf content, int deliveryCount) {
        Subscription s = subscriptionOfQueue(queueName);
        if (s == null) {
            content.release();
            return null;
        }
        return queues.restoreHeld(s.queue(), sequence, content, deliveryCount);
    }

    /** Recovery: the highest sequence the store saw on {@code topic}'s retained publication pseudo queue. */
    public void retainedSequenceRecovered(String topic, long lastSequence) {
        retainedSequences.merge(topic, lastSequence, Math::max);
    }

    /** Recovery: {@code topic}'s retained publication; a later one replaces it. Takes over {@code content}. */
    public void retainedRecovered(String topic, long sequence, ByteBuf content) {
        MessageHeaders headers = queues.readRecovered(SystemQueues.retainedQueue(topic), sequence, content);
        if (headers == null) {
            return;
        }
        RetainedPublication next = new RetainedPublication(topic, sequence, content, headers);
        RetainedPublication previous = retained.put(topic, next);
        if (previous != null) { // a crash came between storing the new one and removing the old
            persistence.remove(previous);
            previous.content.release();
        }
    }

    private Subscription subscriptionOfQueue(String queueName) {
        lock.lock();
        try {
            return byQueue.get(queueName);
        } finally {
            lock.unlock();
        }
    }

    /** Whether this thread holds the topic manager's lock (its subscriptions' consumer counts assert it). */
    boolean lockHeldByCurrentThread() {
        return lock.isHeldByCurrentThread();
    }

    /**
     * The queue of the subscription whose queue is named {@code queueName} ({@link SubscriptionInfo#queueName()}),
     * for administration and tests.
     *
     * @throws IllegalArgumentException when there is no such subscription
     */
    public LocalQueue subscriptionQueue(String queueName) {
        Subscription s = subscriptionOfQueue(queueName);
        if (s == null) {
            throw new IllegalArgumentException("no subscription queue named '" + queueName + "'");
        }
        return s.queue();
    }

    /** A recovered message of a deleted subscription, to be removed from the journal. */
    private record Orphan(String queueName, long sequence, ByteBuf content) implements StoredMessage {
    }

    // ---- admin ----

    /**
     * One subscription as an administrator sees it.
     *
     * @param topic     the topic filter
     * @param name      the subscription name, or null (a non-durable, unshared subscription)
     * @param clientId  its client ID, or null
     * @param durable   durable subscription
     * @param shared    shared subscription
     * @param consumers open consumers
     * @param depth     messages it holds (its backlog: waiting, delivered unacknowledged, or in open transactions)
     * @param missed    publications it missed because it was full
     * @param queueName its queue
     * @param selector  its message selector, or null
     * @param noLocal   whether it ignores publications of its own connection
     * @param owner     the user who created it (durable and shared subscriptions), or null
     * @param heldBytes the memory its messages take, as the budgets count it
     * @param maxBytes  its memory budget (0: none of its own)
     * @param dropped   messages its drop policy dropped to make room
     */
    public record SubscriptionInfo(String topic, String name, String clientId, boolean durable, boolean shared,
                                   int consumers, long depth, long missed, String queueName, String selector,
                                   boolean noLocal, String owner, long heldBytes, long maxBytes, long dropped) {
    }

    /** Every subscription, by topic filter then name; temporary topics included. A snapshot. */
    public List<SubscriptionInfo> describe() {
        List<SubscriptionInfo> out = new ArrayList<>();
        lock.lock();
        try {
            for (Subscription s : byQueue.values()) {
                out.add(new SubscriptionInfo(s.filter(), s.name(), s.clientId(), s.durable(), s.shared(), s.consumers(),
                        s.queue().depth(), s.missed(), s.queueName(), s.selectorText(), s.noLocal(), s.owner(),
                        s.queue().heldBytes(), s.queue().memoryLimit().maxBytes(), s.queue().dropped()));
            }
        } finally {
            lock.unlock();
        }
        out.sort(Comparator.comparing(SubscriptionInfo::topic)
                .thenComparing(i -> Objects.toString(i.name(), ""))
                .thenComparing(SubscriptionInfo::queueName));
        return out;
    }

    /**
     * {@link #describe()} as a table, one line per subscription, then the retained topics: what
     * {@code wharf topic list} prints.
     */
    public String report() {
        List<SubscriptionInfo> subscriptions = describe();
        List<String> retainedTopics = retainedTopics();
        if (subscriptions.isEmpty() && retainedTopics.isEmpty()) {
            return "No subscriptions and no retained publications.";
        }
        String[] header = {"TOPIC", "SUBSCRIPTION", "CLIENT ID", "KIND", "CONSUMERS", "DEPTH", "MISSED", "BYTES",
                "MAX BYTES", "DROPPED"};
        List<String[]> rows = new ArrayList<>();
        rows.add(header);
        for (SubscriptionInfo i : subscriptions) {
            rows.add(new String[]{i.topic(), i.name() == null ? "-" : i.name(), i.clientId() == null ? "-" : i.clientId(),
                    (i.durable() ? "durable" : "non-durable") + (i.shared() ? " shared" : ""),
                    Integer.toString(i.consumers()), Long.toString(i.depth()), Long.toString(i.missed()),
                    Long.toString(i.heldBytes()), i.maxBytes() > 0 ? Long.toString(i.maxBytes()) : "-",
                    Long.toString(i.dropped())});
        }
        int[] widths = new int[header.length];
        for (String[] row : rows) {
            for (int c = 0; c < row.length; c++) {
                widths[c] = Math.max(widths[c], row[c].length());
            }
        }
        StringBuilder sb = new StringBuilder();
        for (String[] row : subscriptions.isEmpty() ? List.<String[]>of() : rows) {
            for (int c = 0; c < row.length; c++) {
                sb.append(String.format(c < 4 ? "%-" + widths[c] + "s" : "%" + widths[c] + "s", row[c]));
                sb.append(c < row.length - 1 ? "  " : "\n");
            }
        }
        if (!retainedTopics.isEmpty()) {
            sb.append("Retained publications on: ").append(String.join(", ", retainedTopics)).append('\n');
        }
        return sb.toString().stripTrailing();
    }

    /** The topics that have a retained publication, sorted. */
    public List<String> retainedTopics() {
        List<String> topics = new ArrayList<>(retained.keySet());
        topics.sort(null);
        return topics;
    }

    /** Nodes and entries of the topic tree examined by all publishes so far (tests prove the cost by counting). */
    public long matchVisits() {
        return tree.visits();
    }

    /** Releases the retained publications; the server is stopping (subscription queues are cleared with it). */
    public void close() {
        synchronized (retained) {
            retained.values().forEach(r -> r.content.release());
            retained.clear();
        }
        List<Subscription> all;
        lock.lock();
        try {
            all = new ArrayList<>(byQueue.values());
        } finally {
            lock.unlock();
        }
        for (Subscription s : all) {
            s.queue().clear();
        }
    }

    // ---- messages ----

    private static String ofClient(String clientId) {
        return clientId == null ? "" : " of client ID '" + clientId + "'";
    }

    private static String selectorClause(String selector) {
        return selector == null ? "" : " and selector '" + selector + "'";
    }

    private static String kind(Subscription s) {
        return kind(s.durable(), s.shared());
    }

    private static String kind(boolean durable, boolean shared) {
        return (shared ? "shared " : "unshared ") + (durable ? "durable" : "non-durable");
    }
}
