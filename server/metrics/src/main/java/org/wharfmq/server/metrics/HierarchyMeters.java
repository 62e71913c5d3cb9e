package org.wharfmq.server.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import org.wharfmq.server.channels.HierarchyStatus;
import org.wharfmq.server.channels.PubSubHierarchy;

import java.util.HashMap;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The meters of each partner of the publish/subscribe hierarchy ({@code wharf_hierarchy_proxy_subscriptions{partner=
 * "QM0", relation="parent"}}, the filters of its last set the limit refused, the topics it was last told of, the subscription sets it sent, the publications forwarded
 * to it, and its state as one gauge per state, 1 for the one it is in), read from what {@code wharf admin display
 * pubsub} shows ({@link HierarchyStatus}): one listing per scrape ({@link Snapshot}). The partners come from the
 * configuration, so they are registered once.
 */
final class HierarchyMeters {

    private final Snapshot<Map<String, HierarchyStatus.Partner>> partners;

    HierarchyMeters(MeterRegistry registry, PubSubHierarchy hierarchy) {
        this.partners = new Snapshot<>(() -> {
            Map<String, HierarchyStatus.Partner> byName = new HashMap<>();
            for (HierarchyStatus.Partner p : hierarchy.status().partners()) {
                byName.put(p.queueManager(), p);
            }
            return byName;
        });
        for (HierarchyStatus.Partner p : partners.get().values()) {
            register(registry, p);
        }
    }

    private void register(MeterRegistry registry, HierarchyStatus.Partner p) {
        String name = p.queueManager();
        Tags tags = Tags.of("partner", name, "relation", p.relation());
        gauge(registry, "wharf.hierarchy.proxy.subscriptions", "The partner's proxy subscriptions held here: the"
                + " topics it wants publications of", tags, name, HierarchyStatus.Partner::proxySubscriptions);
        gauge(registry, "wharf.hierarchy.proxy.subscriptions.refused", "The filters of the partner's last proxy"
                + " subscription set refused for the maxProxySubscriptions limit", tags, name,
                HierarchyStatus.Partner::proxySubscriptionsRefused);
        gauge(registry, "wharf.hierarchy.subscriptions.sent", "The topics this queue manager last told the partner"
                + " of (NaN until a set went out)", tags, name,
                s -> s.subscriptionsSent() == null ? Double.NaN : s.subscriptionsSent());
        counter(registry, "wharf.hierarchy.subscription.sets.received", "Proxy subscription sets the partner sent"
                + " since this queue manager started", tags, name, HierarchyStatus.Partner::subscriptionSetsReceived);
        counter(registry, "wharf.hierarchy.publications.forwarded", "Publications forwarded to the partner since this"
                + " queue manager started", tags, name, HierarchyStatus.Partner::publicationsForwarded);
        for (String state : HierarchyStatus.STATES) {
            gauge(registry, "wharf.hierarchy.state", "1 for the state the partner is in, 0 for the others",
                    tags.and("state", state), name, s -> s.state().equals(state) ? 1 : 0);
        }
    }

    /** Lists the partners anew (before a scrape). */
    void refresh() {
        partners.refresh();
    }

    private void gauge(MeterRegistry registry, String meter, String description, Tags tags, String partner,
                       ToDoubleFunction<HierarchyStatus.Partner> f) {
        Gauge.builder(meter, this, m -> m.value(partner, f)).tags(tags).description(description).register(registry);
    }

    private void counter(MeterRegistry registry, String meter, String description, Tags tags, String partner,
                         ToDoubleFunction<HierarchyStatus.Partner> f) {
        FunctionCounter.builder(meter, this, m -> m.value(partner, f)).tags(tags).description(description)
                .register(registry);
    }

    private double value(String partner, ToDoubleFunction<HierarchyStatus.Partner> f) {
        HierarchyStatus.Partner p = partners.get().get(partner);
        return p == null ? Double.NaN : f.applyAsDouble(p);
    }
}
