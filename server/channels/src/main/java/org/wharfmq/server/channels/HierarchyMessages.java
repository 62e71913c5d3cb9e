package org.wharfmq.server.channels;

import org.wharfmq.protocol.message.BodyType;
import org.wharfmq.protocol.message.TransmissionHeader;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.protocol.message.WireMessage;
import org.wharfmq.server.topic.TopicNames;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Collection;

/**
 * What the queue managers of a publish/subscribe hierarchy send each other over their channels, as IBM MQ's:
 * <ul>
 *   <li>to {@value #CONTROL_QUEUE}, a partner's <em>proxy subscription set</em>: every topic filter subscribed to on
 *       or through the queue manager that sends it (property {@value #QUEUE_MANAGER}), as properties
 *       {@value #FILTER}{@code 0..n-1}. Each message replaces the last, so a lost or repeated one costs nothing
 *       the next does not mend;</li>
 *   <li>to {@value #PUBLICATIONS_QUEUE}, a <em>forwarded publication</em>: the publication as it was, but addressed
 *       to that queue, its topic in {@value #TOPIC}, the queue manager it was forwarded by in {@value #FROM}, the
 *       one it was first published on in {@value #ORIGIN} and those that forwarded it in {@value #PATH}. The receiving channel publishes it on its topic there
 *       (ChannelReceivers), with the channel user's authority.</li>
 * </ul>
 */
final class HierarchyMessages {

    /** Where a partner's proxy subscription sets arrive (IBM MQ's SYSTEM.INTER.QMGR.CONTROL). */
    static final String CONTROL_QUEUE = "SYSTEM.INTER.QMGR.CONTROL";
    /** The name a forwarded publication is addressed to (IBM MQ's SYSTEM.INTER.QMGR.PUBS); the receiver publishes it. */
    static final String PUBLICATIONS_QUEUE = "SYSTEM.INTER.QMGR.PUBS";
    /** A proxy subscription set: the queue manager it is from. */
    static final String QUEUE_MANAGER = "WHARF_PUBSUB_QMGR";
    /** A proxy subscription set: how many filters it has. */
    static final String FILTERS = "WHARF_PUBSUB_FILTERS";
    /** A proxy subscription set: the prefix of each filter's property. */
    static final String FILTER = "WHARF_PUBSUB_FILTER_";
    /**
     * A proxy subscription set as the receiving queue manager took it: the filters it left out, which the channel's
     * user may not subscribe to, and why (set by the receiver channel, never taken from the partner).
     */
    static final String REFUSED = "WHARF_PUBSUB_REFUSED";
    /** A forwarded publication: its topic. */
    static final String TOPIC = "WHARF_PUBSUB_TOPIC";
    /**
     * A forwarded publication: the queue manager that forwarded it last (never sent back there); the receiver writes
     * it anew as the partner its channel is bound to.
     */
    static final String FROM = "WHARF_PUBSUB_FROM";
    /**
     * A forwarded publication: the queue manager it was published on (never sent back there); the partner's word,
     * which can only keep it from the queue manager it names.
     */
    static final String ORIGIN = "WHARF_PUBSUB_ORIGIN";
    /**
     * A forwarded publication: the members that forwarded it, each name between {@code /} ({@code /QM1/QM2/}); a
     * member never forwards it to one of them, so that it cannot go round a loop the members have not found yet. The
     * partners' word, which can only keep it from the members it names.
     */
    static final String PATH = "WHARF_PUBSUB_PATH";
    /**
     * A forwarded publication: the JMSXUserID it was published with (a queue manager's own connection sends none); the
     * partner's word, against which nothing is checked.
     */
    static final String PUBLISHER = "WHARF_PUBSUB_PUBLISHER";
    /**
     * A proxy subscription set: the sender's ancestors, its parent up to the root as far as it knows
     * them, each name followed by {@code /} (no queue manager's name has one). Optional: a set without it (from a
     * member that predates it) tells the child nothing of the ancestors. At most {@link #MAX_ANCESTORS} are read.
     */
    static final String ANCESTORS = "WHARF_PUBSUB_ANCESTORS";
    /** The most ancestors a member reads from or sends in a set, {@value}: a hierarchy deeper than that is not told. */
    static final int MAX_ANCESTORS = 64;
    /**
     * The names of proxy subscriptions: this, the partner's name, {@code :}, the filter. Reserved to the queue
     * manager's own code ({@link TopicNames#RESERVED_SUBSCRIPTION_PREFIX}).
     */
    static final String PROXY_PREFIX = TopicNames.RESERVED_SUBSCRIPTION_PREFIX;
    private static final String USER_ID = "JMSXUserID";

    private HierarchyMessages() {
    }

    /** The name of {@code partner}'s proxy subscription on {@code filter}. */
    static String proxyName(String partner, String filter) {
        return PROXY_PREFIX + partner + ":" + filter;
    }

    /** Whether subscription {@code name} is one of {@code partner}'s proxy subscriptions. */
    static boolean isProxyOf(String name, String partner) {
        return name != null && name.startsWith(PROXY_PREFIX + partner + ":");
    }

    /**
     * The selector of {@code partner}'s proxy subscriptions: a publication that came from it, or was first published
     * there, does not go back.
     */
    static String selectorFor(String partner) {
        String quoted = "'" + partner.replace("'", "''") + "'";
        return FROM + " IS NULL OR (" + FROM + " <> " + quoted + " AND " + ORIGIN + " <> " + quoted + ")";
    }

    /** The proxy subscription set {@code filters} of {@code queueManager}, for {@code to} (a control queue). */
    static WireMessage subscriptionSet(String queueManager, WireDestination to, Collection<String> filters) {
        WireMessage m = new WireMessage();
        m.bodyType = BodyType.MESSAGE;
        m.persistent = true;
        m.timestamp = System.currentTimeMillis();
        m.destination = to;
        m.properties.put(QUEUE_MANAGER, queueManager);
        m.properties.put(FILTERS, filters.size());
        int i = 0;
        for (String filter : filters) {
            m.properties.put(FILTER + i++, filter);
        }
        return m;
    }

    /** {@code set} with the sender's {@code ancestors} (its parent first), for a child. */
    static WireMessage withAncestors(WireMessage set, List<String> ancestors) {
        StringBuilder names = new StringBuilder();
        for (String name : ancestors.subList(0, Math.min(ancestors.size(), MAX_ANCESTORS))) {
            names.append(name).append('/');
        }
        set.properties.put(ANCESTORS, names.toString());
        return set;
    }

    /**
     * The sender's ancestors in a proxy subscription set (its parent first), at most {@link #MAX_ANCESTORS}; null when
     * the set does not tell them.
     */
    static List<String> ancestors(Map<String, Object> properties) {
        if (!(properties.get(ANCESTORS) instanceof String names)) {
            return null;
        }
        List<String> ancestors = new ArrayList<>();
        int from = 0;
        for (int end = names.indexOf('/'); end > from && ancestors.size() < MAX_ANCESTORS;
             end = names.indexOf('/', from)) {
            ancestors.add(names.substring(from, end));
            from = end + 1;
        }
        return ancestors;
    }

    /** {@code partner}'s control queue, as this queue manager names it. */
    static WireDestination controlQueueOf(String partner) {
        return WireDestination.queue(partner + TransmissionHeader.QUALIFIER + CONTROL_QUEUE);
    }

    /** {@code partner}'s queue of forwarded publications, as this queue manager names it. */
    static WireDestination publicationsQueueOf(String partner) {
        return WireDestination.queue(partner + TransmissionHeader.QUALIFIER + PUBLICATIONS_QUEUE);
    }

    /** The filters of a proxy subscription set. */
    static List<String> filters(Map<String, Object> properties) {
        List<String> filters = new ArrayList<>();
        if (properties.get(FILTERS) instanceof Integer n) {
            for (int i = 0; i < Math.min(n, properties.size()); i++) { // a forged count reads no further than it has
                if (properties.get(FILTER + i) instanceof String f) {
                    filters.add(f);
                }
            }
        }
        return filters;
    }

    /**
     * {@code publication} (as a subscription delivered it, JMSDestination its topic) made a forwarded publication for
     * {@code partner}, forwarded by {@code queueManager}.
     */
    static WireMessage forwarded(WireMessage publication, String queueManager, String partner) {
        publication.properties.put(TOPIC, publication.destination.name());
        publication.properties.putIfAbsent(ORIGIN, queueManager);
        publication.properties.put(FROM, queueManager);
        publication.properties.put(PATH, (publication.properties.get(PATH) instanceof String path ? path : "/")
                + queueManager + "/");
        Object user = publication.properties.remove(USER_ID);
        if (user != null) {
            publication.properties.put(PUBLISHER, user);
        }
        publication.destination = publicationsQueueOf(partner);
        return publication;
    }

    /** Whether {@code publication} (its properties) was forwarded by {@code member} already ({@link #PATH}). */
    static boolean passed(Map<String, Object> publication, String member) {
        return publication.get(PATH) instanceof String path && path.contains("/" + member + "/");
    }

    /**
     * Whether a message that arrived on a channel for queue manager {@code here} (its transmission header names
     * {@code queueManager} and {@code queue}) is a forwarded publication, whose topic is its {@link #TOPIC} property.
     */
    static boolean isForwardedPublication(Object queueManager, Object queue, String here) {
        return PUBLICATIONS_QUEUE.equals(queue) && (queueManager == null || queueManager.equals(here));
    }
}
