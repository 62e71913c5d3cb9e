package org.wharfmq.server.channels;

import org.wharfmq.server.ServerPlugin;
import org.wharfmq.server.admin.AdminCommands;
import org.wharfmq.server.queue.SystemQueues;

import java.util.ArrayList;
import java.util.List;

/**
 * Publish/subscribe across queue managers (docs/distributed.md): a plugin of the broker that makes this queue manager
 * a member of a hierarchy (seed 001; IBM MQ's {@code ALTER QMGR PARENT}) over the channels. It tells its parent and
 * children which topics are subscribed to here ({@link ProxyAdvertiser}), keeps their proxy subscriptions here and
 * forwards what those receive to them ({@link ProxySubscriptions}); the receiving channel publishes a forwarded
 * publication on its topic with the channel user's authority ({@code ChannelReceivers}). A publication made anywhere
 * thus reaches every matching subscriber of every member once, and never goes back the way it came. Start it before
 * the {@link ChannelsPlugin}, so that its control queue exists before a partner's channel brings anything for it.
 *
 * <p>A local publication that no partner subscribes to costs nothing more: the proxies are subscriptions like any,
 * and only the publications they match are forwarded.
 */
public final class PubSubHierarchy implements ServerPlugin {
    private final HierarchySettings settings;
    private final ChannelsPlugin channels;
    private volatile Host host;
    private volatile ProxyAdvertiser advertiser;
    private volatile ProxySubscriptions proxies;
    private volatile HierarchyAncestry ancestry;
    private volatile String queueManager;

    /** {@code channels}: the queue manager's channels, which the status shows the senders to each partner of. */
    public PubSubHierarchy(HierarchySettings settings, ChannelsPlugin channels) {
        this.settings = settings;
        this.channels = channels;
    }

    /**
     * Starts following the subscriptions and forwarding.
     *
     * @throws IllegalStateException when a partner cannot be reached (no transmission queue leads to it)
     */
    @Override
    public void start(Host server) throws InterruptedException {
        queueManager = server.config().name();
        host = server;
        if (settings.partners().isEmpty()) {
            return;
        }
        server.management().systemQueue(HierarchyMessages.CONTROL_QUEUE);
        server.management().systemQueue(SystemQueues.DEAD_LETTER_QUEUE); // where a poison forward goes
        ancestry = new HierarchyAncestry(queueManager, settings.parent());
        advertiser = new ProxyAdvertiser(server, settings.partners(), ancestry);
        advertiser.start(); // first: it refuses a partner that nothing leads to
        ProxyAdvertiser told = advertiser;
        proxies = new ProxySubscriptions(server, settings.partners(), ancestry, told::changed,
                settings.maxProxySubscriptions(), ChannelConfiguration.RETRY_MILLIS.defaultValue());
        proxies.start();
    }

    /** The admin command of the hierarchy ({@code wharf admin display pubsub}): give it to the AdminPlugin. */
    public AdminCommands adminCommands() {
        return new HierarchyCommands(this);
    }

    /** This queue manager's parent and children, and what it knows of each. Any thread. */
    public HierarchyStatus status() {
        List<HierarchyStatus.Partner> partners = new ArrayList<>();
        ProxyAdvertiser a = advertiser;
        ProxySubscriptions p = proxies;
        Host h = host;
        List<ChannelStatus> all = h == null || settings.partners().isEmpty() ? List.of() : channels.status();
        for (String partner : settings.partners()) {
            Integer sent = a == null ? null : a.advertisedTo(partner);
            HierarchyAncestry known = ancestry;
            String loop = known != null && known.refuses(partner) ? known.refusal() : null;
            String failure = loop != null ? loop : a == null ? null : a.failure(partner);
            String state = loop != null ? "REFUSED" : failure != null ? "ERROR" : sent == null ? "STARTING" : "ACTIVE";
            String transmissionQueue = h == null ? null : h.management().transmissionQueueTo(partner);
            List<HierarchyStatus.Channel> senders = new ArrayList<>();
            for (ChannelStatus c : all) {
                if (c.type().equals("sender") && transmissionQueue != null
                        && transmissionQueue.equals(c.transmissionQueue())) {
                    senders.add(new HierarchyStatus.Channel(c.name(), c.state()));
                }
            }
            partners.add(new HierarchyStatus.Partner(partner, partner.equals(settings.parent()) ? "parent" : "child",
                    state, p == null ? 0 : p.proxiesOf(partner), p == null ? 0 : p.refusedOverLimitFrom(partner), sent,
                    p == null ? 0 : p.setsFrom(partner), p == null ? 0 : p.forwardedTo(partner), failure,
                    p == null ? null : p.refusedFrom(partner), transmissionQueue, senders));
        }
        return new HierarchyStatus(queueManager, settings.parent(), settings.children(), partners);
    }

    /** Publications forwarded to partner {@code partner} since the start. */
    public long forwardedTo(String partner) {
        return proxies == null ? 0 : proxies.forwardedTo(partner);
    }

    /** Publications for partner {@code partner} that could not be forwarded and went to the dead-letter queue. */
    public long deadLetteredFor(String partner) {
        return proxies == null ? 0 : proxies.deadLetteredFor(partner);
    }

    /** How many proxy subscription sets this queue manager has sent its partners since it started. */
    public long setsSent() {
        return advertiser == null ? 0 : advertiser.setsSent();
    }

    @Override
    public void close() {
        if (advertiser != null) {
            advertiser.close();
        }
        if (proxies != null) {
            proxies.close();
        }
    }
}
