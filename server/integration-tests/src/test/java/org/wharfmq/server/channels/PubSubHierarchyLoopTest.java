package org.wharfmq.server.channels;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.wharfmq.server.FreePorts;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.admin.AdminPlugin;
import org.wharfmq.server.config.QueueDefinition;
import org.wharfmq.server.it.Receive;
import org.wharfmq.server.topic.TopicManager.SubscriptionInfo;

import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.wharfmq.server.channels.HierarchyMessages.proxyName;

/**
 * Three queue managers in one JVM configured as a ring, each naming the next as its parent (QM1's parent QM3, QM2's
 * QM1, QM3's QM2), joined by a sender and a receiver channel each way: the loop is found by passing the ancestors down,
 * QM1 (the loop's first name) refuses its parent QM3 and names the loop in {@code display pubsub}, and the rest, the
 * tree QM1 -> QM2 -> QM3, carries each publication to each subscriber once; the proxy subscriptions go with the last
 * subscriber.
 */
class PubSubHierarchyLoopTest {

    private static final List<String> NAMES = List.of("QM1", "QM2", "QM3");

    private final ChannelServers servers = new ChannelServers();
    private final Map<String, Integer> ports = new ConcurrentHashMap<>();
    private final Map<String, TestServer> members = new ConcurrentHashMap<>();
    private final Map<String, PubSubHierarchy> hierarchies = new ConcurrentHashMap<>();

    @AfterEach
    void stop() throws Exception {
        servers.close();
    }

    private void startRing() throws Exception {
        for (String name : NAMES) {
            ports.put(name, FreePorts.one());
        }
        start("QM1", new HierarchySettings("QM3", List.of("QM2")));
        start("QM2", new HierarchySettings("QM1", List.of("QM3")));
        start("QM3", new HierarchySettings("QM2", List.of("QM1")));
    }

    private void start(String name, HierarchySettings hierarchy) throws Exception {
        members.put(name, servers.keep(TestServer.start(c -> {
            c.name(name).port(ports.get(name)).autoCreate(false);
            hierarchy.partners().forEach(partner -> c.queue(QueueDefinition.transmissionQueue(partner)));
            return c;
        }, c -> {
            ChannelsPlugin channels = new ChannelsPlugin(new ChannelSettings(
                    PubSubHierarchyTest.channels(name, hierarchy, ports)));
            PubSubHierarchy plugin = new PubSubHierarchy(hierarchy, channels);
            hierarchies.put(name, plugin);
            return WharfServer.builder(c).plugins(plugin, channels,
                    new AdminPlugin(channels.adminCommands(), plugin.adminCommands())).start();
        })));
    }

    private HierarchyStatus.Partner partner(String member, String partner) {
        for (HierarchyStatus.Partner p : hierarchies.get(member).status().partners()) {
            if (p.queueManager().equals(partner)) {
                return p;
            }
        }
        throw new AssertionError(member + " has no partner " + partner);
    }

    private List<String> proxies(String member) {
        List<String> names = new ArrayList<>();
        for (SubscriptionInfo s : members.get(member).server().management().subscriptions()) {
            if (s.name() != null && s.name().startsWith(HierarchyMessages.PROXY_PREFIX)) {
                names.add(s.name());
            }
        }
        return names;
    }

    /**
     * Whether nothing is on its way between the members: no proxy subscription holds a publication and no
     * transmission queue a message (a publication leaves its proxy subscription and its transmission queue only once
     * the partner has published it).
     */
    private boolean settled() {
        for (String member : NAMES) {
            for (SubscriptionInfo s : members.get(member).server().management().subscriptions()) {
                if (s.name() != null && s.name().startsWith(HierarchyMessages.PROXY_PREFIX) && s.depth() > 0) {
                    return false;
                }
            }
            for (String other : NAMES) {
                if (!other.equals(member)
                        && members.get(member).server().queueManager().queue(other).depth() > 0) {
                    return false;
                }
            }
        }
        return true;
    }

    @Test
    void aRingOfThreeIsRefusedAtOneMemberNamingTheLoopAndEachPublicationArrivesOnceThroughTheRest()
            throws Exception {
        startRing();
        ChannelServers.await(() -> partner("QM1", "QM3").state().equals("REFUSED"),
                "QM1 refuses its parent QM3: " + hierarchies.get("QM1").status());
        HierarchyStatus.Partner refused = partner("QM1", "QM3");
        assertEquals("parent", refused.relation());
        assertTrue(refused.reason().startsWith("QM1 names QM3 as its parent, but QM3 is below QM1"
                + " (QM3 -> QM2 -> QM1), which would make a loop in which each publication arrives more than once:"
                + " remove one parent"), refused.reason());
        String display = AdminCli.ok(members.get("QM1").server().tcpUrl(), "display", "pubsub");
        assertTrue(display.contains("Queue manager QM3: QM1 names QM3 as its parent, but QM3 is below QM1"), display);
        assertTrue(!partner("QM2", "QM1").state().equals("REFUSED") && !partner("QM3", "QM2").state().equals("REFUSED"),
                "one relation of the loop is refused, the others kept: " + hierarchies.get("QM2").status() + " "
                        + hierarchies.get("QM3").status());

        Map<String, MessageConsumer> subscribers = new TreeMap<>();
        Map<String, Session> sessions = new TreeMap<>();
        for (String member : NAMES) {
            Session session = servers.connect(members.get(member).server().tcpUrl())
                    .createSession(false, Session.AUTO_ACKNOWLEDGE);
            sessions.put(member, session);
            subscribers.put(member, session.createConsumer(session.createTopic("ring/#")));
        }
        // the tree that holds, QM1 -> QM2 -> QM3: proxies along it, none across the refused relation
        ChannelServers.await(() -> proxies("QM1").equals(List.of(proxyName("QM2", "ring/#")))
                        && proxies("QM2").containsAll(List.of(proxyName("QM1", "ring/#"), proxyName("QM3", "ring/#")))
                        && proxies("QM2").size() == 2 && proxies("QM3").equals(List.of(proxyName("QM2", "ring/#"))),
                "proxy subscriptions along the tree only: QM1 " + proxies("QM1") + ", QM2 " + proxies("QM2")
                        + ", QM3 " + proxies("QM3"));

        List<String> published = new ArrayList<>();
        for (String member : NAMES) {
            MessageProducer producer = sessions.get(member).createProducer(sessions.get(member).createTopic("ring/x"));
            for (int i = 0; i < 3; i++) {
                producer.send(sessions.get(member).createTextMessage(member + " " + i));
                published.add(member + " " + i);
            }
        }
        for (String member : NAMES) {
            List<String> received = texts(subscribers.get(member), published.size());
            received.sort(null);
            assertEquals(published, received, "each publication once on " + member);
        }
        ChannelServers.await(this::settled, "nothing left on its way between the members");
        for (MessageConsumer subscriber : subscribers.values()) {
            Receive.nothingMore(subscriber); // no second copy
        }
        assertEquals(0, hierarchies.get("QM1").forwardedTo("QM3"), "nothing across the refused relation");
        assertEquals(0, hierarchies.get("QM3").forwardedTo("QM1"), "nothing across the refused relation");

        for (MessageConsumer subscriber : subscribers.values()) {
            subscriber.close();
        }
        ChannelServers.await(() -> proxies("QM1").isEmpty() && proxies("QM2").isEmpty() && proxies("QM3").isEmpty(),
                "the proxy subscriptions go with the last subscriber: QM1 " + proxies("QM1") + ", QM2 "
                        + proxies("QM2") + ", QM3 " + proxies("QM3"));
    }

    @Test
    void twoMembersNamingEachOtherAsParentAreALoopOfTwoRefusedByTheFirstName() throws Exception {
        ports.put("QM1", FreePorts.one());
        ports.put("QM2", FreePorts.one());
        start("QM1", new HierarchySettings("QM2", List.of()));
        start("QM2", new HierarchySettings("QM1", List.of()));
        ChannelServers.await(() -> partner("QM1", "QM2").state().equals("REFUSED"), "QM1 refuses its parent QM2");
        assertTrue(partner("QM1", "QM2").reason().startsWith("QM1 names QM2 as its parent, but QM2 is below QM1"
                + " (QM2 -> QM1)"), partner("QM1", "QM2").reason());
        ChannelServers.await(() -> partner("QM2", "QM1").subscriptionSetsReceived() > 0
                && partner("QM2", "QM1").state().equals("ACTIVE"), "QM2 keeps its parent QM1 "
                + hierarchies.get("QM2").status());
    }

    private static List<String> texts(MessageConsumer consumer, int count) throws JMSException {
        List<String> texts = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Message m = consumer.receive(ChannelServers.EXPECTED_MS);
            assertTrue(m != null, "only " + texts + " arrived of " + count);
            texts.add(((TextMessage) m).getText());
        }
        return texts;
    }
}
