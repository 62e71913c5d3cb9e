package org.wharfmq.server.channels;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import org.wharfmq.protocol.TemporaryNames;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.message.WireMessage;
import org.wharfmq.server.ServerPlugin;
import org.wharfmq.server.topic.TopicManager.SubscriptionInfo;
import org.wharfmq.server.topic.TopicNames;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Tells each partner of the hierarchy which topics are subscribed to on or through this queue manager: to partner
 * P, the filters of every subscription here but P's own proxy subscriptions (so a partner never hears its own
 * subscriptions back), its temporary topics' and the {@code $SYS} topics' left out. A set goes to P, as a persistent
 * message to its {@link HierarchyMessages#CONTROL_QUEUE} over the channels, when the queue manager starts and
 * whenever P's set changes ({@link org.wharfmq.server.management.Management#observeSubscriptions}), at most once per
 * {@link #SET_INTERVAL_MILLIS}; each replaces the last. A set tells this queue manager's ancestors
 * ({@link HierarchyAncestry}; a child learns from them, and so does a parent that names this queue manager as its own
 * parent, a loop of two), and goes again when they change; a parent this queue manager refuses is told of no
 * filters. Runs on a thread of its own ({@code wharf-pubsub-advertiser}),
 * which owns {@link #sent} and the in-VM link.
 */
final class ProxyAdvertiser implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(ProxyAdvertiser.class.getName());
    private static final int SESSION = 1;
    /** JMS's Session.AUTO_ACKNOWLEDGE: the session only sends. */
    private static final int AUTO_ACKNOWLEDGE = 1;
    private static final long TIMEOUT_MILLIS = ChannelConfiguration.ANSWER_TIMEOUT_MILLIS;
    /**
     * The least time between two rounds of sets, {@value} ms: the changes of subscriptions that come within it go in
     * the next round, a set per partner (each set replaces the last, so nothing is lost but that delay). A partner's
     * receiver so takes no more than one a second from this queue manager, within the
     * {@link ChannelConfiguration#MAX_SUBSCRIPTION_SETS_PER_MINUTE} it refuses past (60 by default, in bursts of as
     * many), however often applications here subscribe and unsubscribe.
     */
    static final long SET_INTERVAL_MILLIS = 1_000;

    /** What a partner was last sent: the filters, and this queue manager's ancestors. */
    private record Sent(SortedSet<String> filters, List<String> ancestors) {
    }

    private final ServerPlugin.Host host;
    private final List<String> partners;
    private final HierarchyAncestry ancestry;
    private final String queueManager;
    private final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "wharf-pubsub-advertiser");
        t.setDaemon(true);
        return t;
    });
    /** A recount is queued: changes that come meanwhile are in it. */
    private final AtomicBoolean queued = new AtomicBoolean();
    /** When the last recount began ({@link System#nanoTime}); written by the advertiser's thread. */
    private volatile long lastRoundNanos = System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(SET_INTERVAL_MILLIS);
    /** The set each partner was last sent (absent: none yet, or its sending failed). */
    private final Map<String, Sent> sent = new HashMap<>();
    /** The producer of each partner's control queue. */
    private final Map<String, Integer> producers = new HashMap<>();
    private volatile boolean closing;
    /** How many sets went out since the start (read by tests and status). */
    private volatile long setsSent;
    /** The size of the set each partner was last sent, absent after a failure (read by status, any thread). */
    private final Map<String, Integer> advertised = new java.util.concurrent.ConcurrentHashMap<>();
    /** Why the last sending to each partner failed, absent once one succeeds (read by status, any thread). */
    private final Map<String, String> failures = new java.util.concurrent.ConcurrentHashMap<>();
    private CoreLink local;

    ProxyAdvertiser(ServerPlugin.Host host, List<String> partners, HierarchyAncestry ancestry) {
        this.host = host;
        this.partners = List.copyOf(partners);
        this.ancestry = ancestry;
        this.queueManager = host.config().name();
    }

    /**
     * Connects, checks that every partner can be reached, sends every partner its set, and follows the subscriptions
     * from now on.
     *
     * @throws IllegalStateException naming a partner this queue manager has no way to, and the fix
     */
    void start() throws InterruptedException {
        try {
            thread.submit(() -> {
                for (String partner : partners) {
                    producer(partner);
                }
                return null;
            }).get();
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException("Queue manager " + queueManager + " cannot reach a partner of its"
                    + " publish/subscribe hierarchy (" + partners + "): " + e.getCause().getMessage(), e.getCause());
        }
        host.management().observeSubscriptions(this::changed);
        changed();
    }

    /**
     * A subscription was made or ended, or this queue manager's ancestors changed: count again, once for however many
     * changes come before the count runs, and not sooner than {@link #SET_INTERVAL_MILLIS} after the last count began.
     */
    void changed() {
        if (queued.compareAndSet(false, true)) {
            long wait = lastRoundNanos + TimeUnit.MILLISECONDS.toNanos(SET_INTERVAL_MILLIS) - System.nanoTime();
            try {
                thread.schedule(this::advertise, Math.max(0, wait), TimeUnit.NANOSECONDS);
            } catch (java.util.concurrent.RejectedExecutionException closed) {
                queued.set(false);
            }
        }
    }

    private void advertise() {
        queued.set(false);
        lastRoundNanos = System.nanoTime();
        List<SubscriptionInfo> subscriptions = host.management().subscriptions();
        for (String partner : partners) {
            // a refused parent is told of nothing, so that it forwards nothing here
            SortedSet<String> filters = ancestry.refuses(partner) ? new TreeSet<>()
                    : filtersFor(partner, subscriptions);
            Sent set = new Sent(filters, ancestry.ancestors());
            if (set.equals(sent.get(partner))) {
                continue;
            }
            try {
                send(partner, set);
                sent.put(partner, set);
                advertised.put(partner, filters.size());
                failures.remove(partner);
                setsSent++;
            } catch (Exception e) {
                if (closing) {
                    return; // the queue manager stops: the next start sends every set again
                }
                sent.remove(partner);
                advertised.remove(partner);
                failures.put(partner, "the last set of subscriptions could not be sent to it (" + e.getMessage()
                        + "); a set goes again with the next change of subscriptions here. Check that a transmission queue leads to "
                        + partner + " and that its channel runs ('wharf admin display chstatus').");
                LOG.log(System.Logger.Level.WARNING, "Queue manager " + queueManager + " could not send its"
                        + " subscriptions to queue manager " + partner + " (" + e.getMessage() + "); it sends them"
                        + " with the next change of its subscriptions. Check that a transmission queue leads to "
                        + partner + " (docs/distributed.md).");
                closeLocal();
            }
        }
    }

    /** How many topics partner {@code partner} was last told of; null when no set went out (or the last failed). */
    Integer advertisedTo(String partner) {
        return advertised.get(partner);
    }

    /** Why the last sending to {@code partner} failed, and the fix; null when it did not. */
    String failure(String partner) {
        return failures.get(partner);
    }

    /** The filters partner {@code partner} is told of. */
    static SortedSet<String> filtersFor(String partner, List<SubscriptionInfo> subscriptions) {
        SortedSet<String> filters = new TreeSet<>();
        for (SubscriptionInfo s : subscriptions) {
            if (HierarchyMessages.isProxyOf(s.name(), partner) || s.topic().startsWith(TemporaryNames.PREFIX)
                    || TopicNames.isSystemTopic(s.topic())) {
                continue;
            }
            filters.add(s.topic());
        }
        return filters;
    }

    private void send(String partner, Sent set) throws Exception {
        int producer = producer(partner);
        ByteBuf bytes = ByteBufAllocator.DEFAULT.buffer();
        WireMessage m = HierarchyMessages.subscriptionSet(queueManager, HierarchyMessages.controlQueueOf(partner),
                set.filters());
        HierarchyMessages.withAncestors(m, set.ancestors()).encode(bytes);
        local.call(id -> new Frame.Send(id, SESSION, producer, bytes), TIMEOUT_MILLIS);
    }

    /** The producer of {@code partner}'s control queue; its creation fails when nothing leads to the partner. */
    private int producer(String partner) throws Exception {
        if (local == null) {
            local = CoreLink.open(host.vmUrl(), Map.of(), null, null, "publish/subscribe hierarchy", 0,
                    ChannelConfiguration.CONNECT_TIMEOUT_MILLIS.defaultValue());
            local.call(id -> new Frame.CreateSession(id, SESSION, false, AUTO_ACKNOWLEDGE), TIMEOUT_MILLIS);
            producers.clear();
        }
        Integer known = producers.get(partner);
        if (known != null) {
            return known;
        }
        int next = producers.size() + 1;
        local.call(id -> new Frame.CreateProducer(id, SESSION, next, HierarchyMessages.controlQueueOf(partner)),
                TIMEOUT_MILLIS);
        producers.put(partner, next);
        return next;
    }

    /** How many proxy subscription sets this queue manager has sent since it started. */
    long setsSent() {
        return setsSent;
    }

    private void closeLocal() {
        if (local != null) {
            local.close();
            local = null;
        }
    }

    @Override
    public void close() {
        closing = true;
        host.management().observeSubscriptions(() -> { });
        thread.shutdownNow();
        try {
            thread.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        closeLocal();
    }
}
