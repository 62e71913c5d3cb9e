package org.wharfmq.server.channels;

import org.wharfmq.server.ServerPlugin;
import org.wharfmq.server.admin.AdminCommands;

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
    private volatile ProxyAdvertiser advertiser;
    private volatile ProxySubscriptions proxies;
    private volatile String queueManager;

    public PubSubHierarchy(HierarchySettings settings) {
        this.settings = settings;
    }

    /**
     * Starts following the subscriptions and forwarding.
     *
     * @throws IllegalStateException when a partner cannot be reached (no transmission queue leads to it)
     */
    @Override
    public void start(Host server) throws InterruptedException {
        queueManager = server.config().name();
        if (settings.partners().isEmpty()) {
            return;
        }
        server.management().systemQueue(HierarchyMessages.CONTROL_QUEUE);
        advertiser = new ProxyAdvertiser(server, settings.partners());
        advertiser.start(); // first: it refuses a partner that nothing leads to
        proxies = new ProxySubscriptions(server, settings.partners(), ChannelConfiguration.DEFAULT_RETRY_MILLIS);
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
        for (String partner : settings.partners()) {
            Integer sent = a == null ? null : a.advertisedTo(partner);
            String failure = a == null ? null : a.failure(partner);
            String state = failure != null ? "ERROR" : sent == null ? "STARTING" : "ACTIVE";
            partners.add(new HierarchyStatus.Partner(partner, partner.equals(settings.parent()) ? "parent" : "child",
                    state, p == null ? 0 : p.proxiesOf(partner), sent, p == null ? 0 : p.setsFrom(partner),
                    p == null ? 0 : p.forwardedTo(partner), failure));
        }
        return new HierarchyStatus(queueManager, settings.parent(), settings.children(), partners);
    }

    /** Publications forwarded to partner {@code partner} since the start. */
    public long forwardedTo(String partner) {
        return proxies == null ? 0 : proxies.forwardedTo(partner);
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
