package org.wharfmq.server.channels;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import org.wharfmq.client.core.ClientException;
import org.wharfmq.protocol.TemporaryNames;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.protocol.message.WireMessage;
import org.wharfmq.server.ServerPlugin;
import org.wharfmq.server.queue.DeadLetters;
import org.wharfmq.server.queue.SystemQueues;
import org.wharfmq.server.topic.TopicManager.SubscriptionInfo;
import org.wharfmq.server.topic.TopicNames;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The partners' proxy subscriptions on this queue manager, and the forwarding of what they receive. Runs on a thread
 * of its own ({@code wharf-pubsub}), which owns every field but the counters, over one transacted in-VM session:
 * <ul>
 *   <li>It takes the partners' proxy subscription sets from {@link HierarchyMessages#CONTROL_QUEUE} and makes each
 *       partner's proxy subscriptions those of its latest set: one shared durable subscription per filter, named
 *       {@link HierarchyMessages#proxyName}, whose selector ({@link HierarchyMessages#selectorFor}) leaves out what
 *       came from that partner. Durable, so they outlive a restart (attached again at the start) and a persistent
 *       publication's copy is journaled until forwarded.</li>
 *   <li>A publication a proxy subscription receives goes to its partner's {@link HierarchyMessages#PUBLICATIONS_QUEUE}
 *       over the channels ({@link HierarchyMessages#forwarded}), taken from the subscription and put on the
 *       transmission queue in one local transaction: once. A parent this queue manager refuses for making a loop
 *       ({@link HierarchyAncestry}, learnt from the parent's sets) has no proxy subscriptions here. When several of a partner's filters match its topic,
 *       only its oldest proxy subscription among them forwards it, so the partner gets it once.</li>
 *   <li>A publication that cannot be forwarded for what it is (too large once it carries the forwarding's
 *       properties and transmission header) goes to the dead-letter queue with the reason, so that it does not fail
 *       every transaction after it (found by forwarding one at a time once a transaction failed).</li>
 * </ul>
 * A failure (the in-VM link, a commit) rolls back what was under way, which is delivered again after the link is
 * opened again.
 */
final class ProxySubscriptions implements Runnable, AutoCloseable {
    private static final System.Logger LOG = System.getLogger(ProxySubscriptions.class.getName());
    private static final int SESSION = 1;
    private static final int CONTROL = 1;
    private static final long TIMEOUT_MILLIS = ChannelConfiguration.ANSWER_TIMEOUT_MILLIS;
    /** A refused forward with one of these codes would be refused every time: it goes to the dead-letter queue. */
    private static final Set<ErrorCode> POISON = EnumSet.of(ErrorCode.MESSAGE_TOO_LARGE, ErrorCode.MALFORMED_MESSAGE,
            ErrorCode.NOT_AUTHORISED);
    /** The key of the dead-letter queue's producer among the partners'. */
    private static final String DEAD_LETTERS = "";
    /** Deliveries a consumer may have outstanding, and the most handled in one transaction. */
    private static final int CREDIT = 100;

    /** One proxy subscription and the consumer this thread reads it with. */
    private record Proxy(int consumer, String partner, String filter) {
    }

    private final ServerPlugin.Host host;
    private final String queueManager;
    private final Set<String> partners;
    /** What this queue manager knows of its ancestors; learnt here, from the parent's sets. */
    private final HierarchyAncestry ancestry;
    /** Told when {@link #ancestry} changed: the children are sent the new ancestors. */
    private final Runnable ancestryChanged;
    /** The most proxy subscriptions each partner may have here ({@link HierarchySettings#maxProxySubscriptions}). */
    private final int maxProxies;
    private final long retryMillis;
    private final Thread thread;
    private volatile boolean stopping;
    private CoreLink local;
    private int nextConsumer;
    /** The proxy subscriptions by consumer id. */
    private final Map<Integer, Proxy> byConsumer = new HashMap<>();
    /** Each partner's proxy subscriptions, oldest first. */
    private final Map<String, List<Proxy>> byPartner = new HashMap<>();
    /** The partners a publication came back for round a loop, logged once each. */
    private final Set<String> loopsLogged = new java.util.HashSet<>();
    /** The forwarding producer of each partner. */
    private final Map<String, Integer> producers = new HashMap<>();
    /** The last delivery handled per consumer in the open transaction, and how many. */
    private final Map<Integer, Long> consumed = new HashMap<>();
    private final Map<Integer, Integer> consumedCounts = new HashMap<>();
    /** The last delivery taken per consumer, committed or not: where closing a consumer leaves off. */
    private final Map<Integer, Long> taken = new HashMap<>();
    /** Publications sent on to each partner since the start, for status and tests. */
    private final Map<String, Long> forwarded = new ConcurrentHashMap<>();
    /** Proxy subscription sets received from each partner since the start, for status. */
    private final Map<String, Long> setsReceived = new ConcurrentHashMap<>();
    /** Publications for each partner that went to the dead-letter queue since the start, for status and tests. */
    private final Map<String, Long> deadLettered = new ConcurrentHashMap<>();
    /**
     * Whether the last transaction failed: until one commits, each publication is forwarded answered, so that one
     * refused for what it is goes to the dead-letter queue rather than fail every transaction after it.
     */
    private boolean careful;
    /**
     * What the receiving channel left out of each partner's last set, and what was beyond {@link #maxProxies}, and why
     * (absent: nothing), for status.
     */
    private final Map<String, String> refused = new ConcurrentHashMap<>();
    /** How many filters of each partner's last set were beyond {@link #maxProxies} (absent: none), for status. */
    private final Map<String, Integer> overLimit = new ConcurrentHashMap<>();

    ProxySubscriptions(ServerPlugin.Host host, List<String> partners, HierarchyAncestry ancestry,
                       Runnable ancestryChanged, int maxProxies, long retryMillis) {
        this.host = host;
        this.queueManager = host.config().name();
        this.partners = new LinkedHashSet<>(partners);
        this.ancestry = ancestry;
        this.ancestryChanged = ancestryChanged;
        this.maxProxies = maxProxies;
        this.retryMillis = retryMillis;
        this.thread = new Thread(this, "wharf-pubsub");
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    /** Publications forwarded to {@code partner} since the start. */
    long forwardedTo(String partner) {
        return forwarded.getOrDefault(partner, 0L);
    }

    /** Publications for {@code partner} that went to the dead-letter queue since the start. */
    long deadLetteredFor(String partner) {
        return deadLettered.getOrDefault(partner, 0L);
    }

    /** Proxy subscription sets received from {@code partner} since the start. */
    long setsFrom(String partner) {
        return setsReceived.getOrDefault(partner, 0L);
    }

    /** What this queue manager refused of {@code partner}'s last proxy subscription set, and why; null: nothing. */
    String refusedFrom(String partner) {
        return refused.get(partner);
    }

    /** How many filters of {@code partner}'s last proxy subscription set the maxProxySubscriptions limit refused. */
    int refusedOverLimitFrom(String partner) {
        return overLimit.getOrDefault(partner, 0);
    }

    /** How many proxy subscriptions {@code partner} has here now, as the queue manager lists them. Any thread. */
    long proxiesOf(String partner) {
        long n = 0;
        for (SubscriptionInfo s : host.management().subscriptions()) {
            if (s.name() != null && HierarchyMessages.isProxyOf(s.name(), partner)) {
                n++;
            }
        }
        return n;
    }

    @Override
    public void run() {
        while (!stopping) {
            try {
                open();
                while (!stopping) {
                    Frame first = local.next(-1);
                    handle(first);
                    for (int n = 1; n < CREDIT; n++) {
                        Frame more = local.next(0);
                        if (more == null) {
                            break;
                        }
                        handle(more);
                    }
                    commit();
                }
            } catch (InterruptedException e) {
                break;
            } catch (Exception e) {
                if (stopping) {
                    break;
                }
                LOG.log(System.Logger.Level.WARNING, "Publish/subscribe hierarchy of queue manager " + queueManager
                        + ": " + e.getMessage() + "; what was under way is rolled back and taken again in "
                        + retryMillis + " ms, one publication at a time");
                careful = true;
                closeLocal();
                try {
                    Thread.sleep(retryMillis); // the retry interval, not a synchronisation
                } catch (InterruptedException stopped) {
                    break;
                }
            }
        }
        closeLocal();
    }

    /** Connects, reads the control queue, and attaches to the proxy subscriptions kept from before (oldest first). */
    private void open() throws ClientException {
        local = CoreLink.open(host.vmUrl(), Map.of(), null, null, "publish/subscribe hierarchy", 0,
                ChannelConfiguration.CONNECT_TIMEOUT_MILLIS.defaultValue());
        local.call(id -> new Frame.CreateSession(id, SESSION, true, 0), TIMEOUT_MILLIS);
        nextConsumer = CONTROL;
        local.receiveFor(CONTROL);
        local.call(id -> new Frame.CreateConsumer(id, SESSION, CONTROL,
                WireDestination.queue(HierarchyMessages.CONTROL_QUEUE), null, CREDIT, 0, null), TIMEOUT_MILLIS);
        List<SubscriptionInfo> kept = new ArrayList<>();
        for (SubscriptionInfo s : host.management().subscriptions()) {
            if (s.name() != null && s.name().startsWith(HierarchyMessages.PROXY_PREFIX)) {
                kept.add(s);
            }
        }
        kept.sort(Comparator.comparingLong(s -> queueNumber(s.queueName())));
        for (SubscriptionInfo s : kept) {
            String partner = partnerOf(s.name());
            if (partner == null) {
                forget(s.name());
            } else {
                attach(partner, s.topic());
            }
        }
    }

    /** Deletes the proxy subscription of a queue manager that is no longer a partner, with what it holds. */
    private void forget(String proxy) {
        try {
            host.management().deleteSubscription(null, proxy);
            LOG.log(System.Logger.Level.INFO, "Proxy subscription " + proxy + " deleted: its queue manager is no"
                    + " longer a partner of " + queueManager + " (hierarchy: in config/wharf.yaml)");
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "Proxy subscription " + proxy + " of a queue manager that is no"
                    + " longer a partner was not deleted: " + e.getMessage());
        }
    }

    private static long queueNumber(String queueName) {
        try {
            return Long.parseLong(queueName.substring(SystemQueues.DURABLE_SUBSCRIPTION_PREFIX.length()));
        } catch (RuntimeException e) {
            return Long.MAX_VALUE;
        }
    }

    private String partnerOf(String proxyName) {
        for (String partner : partners) {
            if (HierarchyMessages.isProxyOf(proxyName, partner)) {
                return partner;
            }
        }
        return null;
    }

    private void handle(Frame frame) throws Exception {
        if (!(frame instanceof Frame.Deliver d)) {
            return;
        }
        try {
            if (d.consumerId() == CONTROL) {
                commit(); // what the proxies took so far, before any of them goes
                WireMessage set = WireMessage.decode(d.message().duplicate());
                apply(set.properties);
                taken(d);
                commit();
                return;
            }
            Proxy proxy = byConsumer.get(d.consumerId());
            if (proxy == null) {
                return; // a proxy just deleted: its undelivered messages went with it
            }
            WireMessage publication = WireMessage.decode(d.message().duplicate());
            String topic = publication.destination.name();
            if (HierarchyMessages.passed(publication.properties, proxy.partner())) {
                droppedInLoop(proxy.partner(), topic); // it went round a loop not refused yet: not twice
            } else if (firstToForward(proxy, topic)) {
                ByteBuf bytes = ByteBufAllocator.DEFAULT.buffer(d.message().readableBytes() + 128);
                HierarchyMessages.forwarded(publication, queueManager, proxy.partner()).encode(bytes);
                int producer = producer(proxy.partner());
                if (!careful) {
                    // not answered: a put that fails makes the commit fail, and all is taken again, carefully
                    local.write(new Frame.Send(0, SESSION, producer, bytes));
                } else if (!forwardedOrDeadLettered(d, proxy.partner(), topic, producer, bytes)) {
                    taken(d);
                    return;
                }
                forwarded.merge(proxy.partner(), 1L, Long::sum);
            }
            taken(d);
        } finally {
            d.message().release();
        }
    }

    /**
     * Puts a forwarded publication on its way, answered (after a commit failed): true when it went; false when it was
     * refused for what it is (too large once it carries the forwarding's properties, say), so that it could never
     * go, and went to the dead-letter queue instead with the reason, in the same transaction, and the forwarding goes
     * on. Any other refusal (a full transmission queue) is thrown: all is taken again after the retry interval.
     */
    private boolean forwardedOrDeadLettered(Frame.Deliver d, String partner, String topic, int producer, ByteBuf bytes)
            throws ClientException {
        try {
            local.call(id -> new Frame.Send(id, SESSION, producer, bytes), TIMEOUT_MILLIS);
            return true;
        } catch (ClientException refusal) {
            if (!POISON.contains(refusal.code())) {
                throw refusal;
            }
            String target = HierarchyMessages.publicationsQueueOf(partner).name();
            String reason = "Publish/subscribe hierarchy: queue manager " + queueManager + " could not forward a"
                    + " publication on topic '" + topic + "' to queue manager " + partner + ": " + refusal.getMessage();
            WireMessage dead = WireMessage.decode(d.message().duplicate()); // as published, not as forwarded
            dead.destination = WireDestination.queue(SystemQueues.DEAD_LETTER_QUEUE);
            dead.properties.put(DeadLetters.REASON_PROPERTY, reason);
            dead.properties.put(DeadLetters.QUEUE_PROPERTY, target);
            ByteBuf out = ByteBufAllocator.DEFAULT.buffer(d.message().readableBytes() + 256);
            dead.encode(out);
            int deadLetters = producer(DEAD_LETTERS);
            local.call(id -> new Frame.Send(id, SESSION, deadLetters, out), TIMEOUT_MILLIS); // refused: all again
            deadLettered.merge(partner, 1L, Long::sum);
            LOG.log(System.Logger.Level.WARNING, reason + ". It went to the dead-letter queue "
                    + SystemQueues.DEAD_LETTER_QUEUE + "; the forwarding goes on.");
            return false;
        }
    }

    /** A publication that {@code partner} forwarded already came back for it: dropped, logged once per partner. */
    private void droppedInLoop(String partner, String topic) {
        if (loopsLogged.add(partner)) {
            LOG.log(System.Logger.Level.WARNING, "Publish/subscribe hierarchy of queue manager " + queueManager
                    + ": a publication on topic '" + topic + "' that queue manager " + partner + " forwarded already"
                    + " came back for it, round a loop of the hierarchy; it was not sent to " + partner + " again."
                    + " A loop is refused once its members have told each other their ancestors ('wharf admin"
                    + " display pubsub' names it; docs/distributed.md). Logged once per partner.");
        }
    }

    /** Whether no older proxy subscription of the partner matches {@code topic} (that one forwards it instead). */
    private boolean firstToForward(Proxy proxy, String topic) {
        for (Proxy older : byPartner.getOrDefault(proxy.partner(), List.of())) {
            if (older == proxy) {
                return true;
            }
            if (TopicNames.matches(older.filter(), topic)) {
                return false;
            }
        }
        return true;
    }

    private void taken(Frame.Deliver d) {
        taken.put(d.consumerId(), d.deliveryId());
        consumed.put(d.consumerId(), d.deliveryId());
        consumedCounts.merge(d.consumerId(), 1, Integer::sum);
    }

    /**
     * Makes a partner's proxy subscriptions those of the set it sent, up to {@link #maxProxies}: those it has keep
     * their place, and the filters beyond the limit are refused (named in its status and the log).
     */
    private void apply(Map<String, Object> properties) throws ClientException {
        Object from = properties.get(HierarchyMessages.QUEUE_MANAGER);
        if (!(from instanceof String partner) || !partners.contains(partner)) {
            LOG.log(System.Logger.Level.WARNING, "Queue manager " + queueManager + " ignored proxy subscriptions"
                    + " from " + from + ": it is not its parent or one of its children (hierarchy: in"
                    + " config/wharf.yaml has " + partners + ")");
            return;
        }
        setsReceived.merge(partner, 1L, Long::sum);
        if (ancestry.isParent(partner)) {
            List<String> told = HierarchyMessages.ancestors(properties);
            if (ancestry.learn(told == null ? List.of() : told)) {
                ancestryChanged.run();
            }
        }
        boolean refusedParent = ancestry.refuses(partner); // its proxy subscriptions go: no publication goes round
        Set<String> wanted = new LinkedHashSet<>();
        for (String filter : refusedParent ? List.<String>of() : HierarchyMessages.filters(properties)) {
            if (filter.startsWith(TemporaryNames.PREFIX) || TopicNames.isSystemTopic(filter)) {
                continue; // a partner's temporary topics and this queue manager's events stay where they are
            }
            wanted.add(filter);
        }
        int asked = wanted.size();
        List<String> over = new ArrayList<>();
        List<Proxy> current = new ArrayList<>(byPartner.getOrDefault(partner, List.of()));
        for (Proxy proxy : current) {
            if (!wanted.remove(proxy.filter())) {
                detach(proxy);
            }
        }
        List<Proxy> kept = byPartner.getOrDefault(partner, List.of());
        while (kept.size() > maxProxies) { // the limit was lowered since they were made: the newest go
            Proxy newest = kept.get(kept.size() - 1);
            over.add(newest.filter());
            detach(newest);
        }
        List<String> added = new ArrayList<>();
        for (String filter : wanted) {
            (kept.size() + added.size() < maxProxies ? added : over).add(filter);
        }
        String why = properties.get(HierarchyMessages.REFUSED) instanceof String w ? w : null;
        if (!over.isEmpty()) {
            String limit = overLimit(partner, asked, over);
            LOG.log(System.Logger.Level.WARNING, "Queue manager " + queueManager + " refused proxy subscriptions of"
                    + " queue manager " + partner + ": " + limit);
            why = why == null ? limit : why + "; " + limit;
        }
        if (over.isEmpty()) {
            overLimit.remove(partner);
        } else {
            overLimit.put(partner, over.size());
        }
        if (why == null) {
            refused.remove(partner);
        } else {
            refused.put(partner, why);
        }
        for (String filter : added) {
            try {
                attach(partner, filter);
            } catch (ClientException e) {
                LOG.log(System.Logger.Level.WARNING, "Queue manager " + queueManager + " refused proxy subscription"
                        + " '" + filter + "' of queue manager " + partner + ": " + e.getMessage());
            }
        }
    }

    /** Why the filters {@code over} of {@code partner}'s set of {@code asked} were refused, and the fix. */
    private String overLimit(String partner, int asked, List<String> over) {
        int shown = Math.min(over.size(), 10);
        String named = over.subList(0, shown) + (shown < over.size() ? " and " + (over.size() - shown) + " more" : "");
        return "queue manager " + partner + " asked for " + asked + " proxy subscriptions, more than the "
                + maxProxies + " a partner may have on queue manager " + queueManager + ", so " + named
                + (over.size() == 1 ? " was" : " were") + " refused and the others kept: raise maxProxySubscriptions"
                + " under hierarchy: in " + queueManager + "'s config/wharf.yaml, or subscribe to fewer topic filters"
                + " on " + partner + " (one wildcard covers many)";
    }

    /** Creates or resumes {@code partner}'s proxy subscription on {@code filter}. */
    private void attach(String partner, String filter) throws ClientException {
        int consumer = ++nextConsumer;
        local.receiveFor(consumer);
        local.call(id -> new Frame.CreateConsumer(id, SESSION, consumer, WireDestination.topic(filter),
                HierarchyMessages.selectorFor(partner), CREDIT, Frame.CONSUMER_DURABLE | Frame.CONSUMER_SHARED,
                HierarchyMessages.proxyName(partner, filter)), TIMEOUT_MILLIS);
        Proxy proxy = new Proxy(consumer, partner, filter);
        byConsumer.put(consumer, proxy);
        byPartner.computeIfAbsent(partner, p -> new ArrayList<>()).add(proxy);
    }

    /** Ends a proxy subscription (its partner no longer subscribes to its filter). */
    private void detach(Proxy proxy) throws ClientException {
        byConsumer.remove(proxy.consumer());
        byPartner.get(proxy.partner()).remove(proxy);
        long last = taken.getOrDefault(proxy.consumer(), 0L); // all committed: the rest goes with the subscription
        taken.remove(proxy.consumer());
        local.call(id -> new Frame.CloseConsumer(id, SESSION, proxy.consumer(), last), TIMEOUT_MILLIS);
        local.call(id -> new Frame.Unsubscribe(id, HierarchyMessages.proxyName(proxy.partner(), proxy.filter())),
                TIMEOUT_MILLIS);
    }

    /** The producer of {@code partner}'s forwarded publications, or of the dead-letter queue ({@link #DEAD_LETTERS}). */
    private int producer(String partner) throws ClientException {
        Integer known = producers.get(partner);
        if (known != null) {
            return known;
        }
        int producer = producers.size() + 1;
        WireDestination to = partner.equals(DEAD_LETTERS) ? WireDestination.queue(SystemQueues.DEAD_LETTER_QUEUE)
                : HierarchyMessages.publicationsQueueOf(partner);
        local.call(id -> new Frame.CreateProducer(id, SESSION, producer, to), TIMEOUT_MILLIS);
        producers.put(partner, producer);
        return producer;
    }

    /** Commits what was taken and forwarded, then gives the consumers their credit back. */
    private void commit() throws ClientException {
        if (consumed.isEmpty()) {
            return;
        }
        List<Frame.Consumed> all = new ArrayList<>();
        consumed.forEach((consumer, delivery) -> all.add(new Frame.Consumed(consumer, delivery)));
        local.call(id -> new Frame.Commit(id, SESSION, all), TIMEOUT_MILLIS);
        careful = false;
        consumedCounts.forEach((consumer, n) -> local.write(new Frame.Credit(consumer, n)));
        consumed.clear();
        consumedCounts.clear();
    }

    private void closeLocal() {
        byConsumer.clear();
        byPartner.clear();
        producers.clear();
        taken.clear();
        consumed.clear();
        consumedCounts.clear();
        if (local != null) {
            local.close();
            local = null;
        }
    }

    @Override
    public void close() {
        stopping = true;
        thread.interrupt();
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
