package org.wharfmq.server.channels;

import java.util.List;

/**
 * This queue manager's place in its publish/subscribe hierarchy as {@code wharf admin display pubsub} shows it (IBM
 * MQ's DISPLAY PUBSUB), the metrics count it ({@code wharf_hierarchy_*}) and the console lists it.
 *
 * @param queueManager this queue manager's name
 * @param parent       its parent's name, or null
 * @param children     its children's names
 * @param partners     the parent, then the children, each with what this queue manager knows of it
 */
public record HierarchyStatus(String queueManager, String parent, List<String> children, List<Partner> partners) {

    /** The states of a partner, as {@link Partner#state()} names them. */
    public static final List<String> STATES = List.of("STARTING", "ACTIVE", "ERROR", "REFUSED");

    public HierarchyStatus {
        children = List.copyOf(children);
        partners = List.copyOf(partners);
    }

    /**
     * One partner of the hierarchy.
     *
     * @param queueManager             its name
     * @param relation                 {@code parent} or {@code child}
     * @param state                    STARTING (this queue manager's subscriptions not yet sent to it), ACTIVE (sent),
     *                                 ERROR (the last sending failed: {@code reason} says why and the fix),
     *                                 REFUSED (a parent refused for making a loop: {@code reason} names the loop and
     *                                 the fix; nothing is exchanged with it)
     * @param proxySubscriptions       its proxy subscriptions held here: the topics it wants publications of
     * @param proxySubscriptionsRefused the filters of its last proxy subscription set refused for the
     *                                 {@code maxProxySubscriptions} limit ({@code refused} names them)
     * @param subscriptionsSent        the topics this queue manager last told it of (null until a set went out)
     * @param subscriptionSetsReceived the proxy subscription sets it sent here since this queue manager started
     * @param publicationsForwarded    the publications forwarded to it since this queue manager started
     * @param reason                   why the last sending failed, or the parent is refused, and the fix; null
     *                                 otherwise
     * @param refused                  the filters of its last proxy subscription set this queue manager refused, and
     *                                 why (its channel's user may not subscribe to them); null when none were
     * @param transmissionQueue        the transmission queue that leads to it (what is sent to it waits there); null
     *                                 when none does
     * @param channels                 the sender channels of that transmission queue, and their states (as
     *                                 {@code display chstatus} shows them); empty when none serves it
     */
    public record Partner(String queueManager, String relation, String state, long proxySubscriptions,
                          int proxySubscriptionsRefused, Integer subscriptionsSent, long subscriptionSetsReceived,
                          long publicationsForwarded, String reason, String refused, String transmissionQueue, List<Channel> channels) {
        public Partner {
            channels = List.copyOf(channels);
        }
    }

    /**
     * A sender channel to a partner.
     *
     * @param name  its name
     * @param state its state: STARTING, WAITING, RUNNING, RETRYING or STOPPED
     */
    public record Channel(String name, String state) {
    }
}
