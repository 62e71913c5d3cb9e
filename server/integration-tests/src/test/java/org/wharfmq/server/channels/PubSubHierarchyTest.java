package org.wharfmq.server.channels;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.FreePorts;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.config.QueueDefinition;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.it.Receive;
import org.wharfmq.server.queue.DeadLetters;
import org.wharfmq.server.security.AccessControl;
import org.wharfmq.server.security.Permission;
import org.wharfmq.server.security.PermissionRules;
import org.wharfmq.server.topic.TopicManager;
import org.wharfmq.server.topic.TopicManager.SubscriptionInfo;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.jms.TextMessage;
import javax.jms.Topic;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.wharfmq.server.channels.HierarchyMessages.proxyName;

/**
 * A publish/subscribe hierarchy of three queue managers in one JVM, QM1 the parent of QM2 and QM3, each pair joined by
 * a sender and a receiver channel each way: subscriptions become proxy subscriptions on the other members, and a
 * publication made on any member reaches every matching subscriber of every member once, through the real JMS client
 * at every end.
 */
class PubSubHierarchyTest {

    private static final long EXPECTED_MS = ChannelServers.EXPECTED_MS;
    private static final List<String> NAMES = List.of("QM1", "QM2", "QM3");

    private final ChannelServers servers = new ChannelServers();
    /** Each member's port ({@link FreePorts}: the partners' channels name all three before QM2 and QM3 listen). */
    private final Map<String, Integer> ports = new ConcurrentHashMap<>();
    /** Each member's hierarchy plugin, the latest one after a restart. */
    private final Map<String, PubSubHierarchy> hierarchies = new ConcurrentHashMap<>();
    private final Map<String, TestServer> members = new ConcurrentHashMap<>();
    /** The most proxy subscriptions each partner may have on QM1. */
    private int qm1MaxProxies = HierarchyConfiguration.MAX_PROXY_SUBSCRIPTIONS.defaultValue();
    /** A receiver channel of QM1 defined with no partnerQueueManager, or null. */
    private String unboundReceiver;

    @AfterEach
    void stop() throws Exception {
        servers.close();
    }

    /** Starts QM1, QM2 and QM3; {@code qm1Rules} are QM1's permissions (null: everything allowed). */
    private void startHierarchy(AccessControl qm1Rules) throws Exception {
        startHierarchy(qm1Rules, c -> c);
    }

    /** Starts QM1, QM2 and QM3, QM1 with {@code qm1Rules} and {@code qm1Config}'s settings too. */
    private void startHierarchy(AccessControl qm1Rules, UnaryOperator<ServerConfig.Builder> qm1Config)
            throws Exception {
        for (String name : NAMES) {
            ports.put(name, FreePorts.one());
        }
        for (String name : NAMES) {
            members.put(name, name.equals("QM1") ? start(name, qm1Rules, qm1Config) : start(name, null, c -> c));
        }
    }

    private TestServer start(String name, AccessControl rules, UnaryOperator<ServerConfig.Builder> more)
            throws Exception {
        HierarchySettings hierarchy = name.equals("QM1")
                ? new HierarchySettings(null, List.of("QM2", "QM3"), qm1MaxProxies)
                : new HierarchySettings("QM1", List.of());
        UnaryOperator<ServerConfig.Builder> config = c -> {
            more.apply(c).name(name).port(ports.get(name)).autoCreate(false);
            for (String partner : hierarchy.partners()) {
                c.queue(QueueDefinition.transmissionQueue(partner));
            }
            return c;
        };
        return servers.keep(TestServer.start(config, c -> {
            List<ChannelDefinition> defined = new ArrayList<>();
            for (ChannelDefinition d : channels(name, hierarchy, ports)) {
                defined.add(!name.equals("QM1") || !d.name().equals(unboundReceiver) ? d
                        : ChannelDefinition.receiver(d.name(), null, null).withReceiving(d.nonPersistentSpeed(), 2));
            }
            ChannelsPlugin channels = new ChannelsPlugin(new ChannelSettings(defined));
            PubSubHierarchy plugin = new PubSubHierarchy(hierarchy, channels);
            hierarchies.put(name, plugin);
            WharfServer.Starter starter = WharfServer.builder(c).plugins(plugin, channels);
            return (rules == null ? starter : starter.accessControl(rules)).start();
        }));
    }

    /** Member {@code name}'s channels: a sender to each partner of {@code hierarchy} and a receiver from each. */
    static List<ChannelDefinition> channels(String name, HierarchySettings hierarchy, Map<String, Integer> ports) {
        List<ChannelDefinition> channels = new ArrayList<>();
        for (String partner : hierarchy.partners()) {
            channels.add(ChannelDefinition.sender(name + ".TO." + partner, "tcp://127.0.0.1:" + ports.get(partner),
                    partner, null, null).withTimes(50, 60_000));
            // a batch refused twice is put message by message, a message refused going to the dead-letter queue
            channels.add(ChannelDefinition.receiver(partner + ".TO." + name, null, partner)
                    .withReceiving(ChannelConfiguration.NON_PERSISTENT_SPEED.defaultValue(), 2));
        }
        return channels;
    }

    private Session session(String member) throws Exception {
        return servers.connect(members.get(member).server().tcpUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
    }

    /** Waits until {@code member} has the proxy subscriptions {@code names} (and maybe others). */
    private void awaitProxies(String member, String... names) {
        Set<String> expected = new TreeSet<>(List.of(names));
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(EXPECTED_MS);
        while (!proxies(member).containsAll(expected) && System.nanoTime() < deadline) {
            LockSupport.parkNanos(1_000_000); // asks the queue manager for its subscriptions again
        }
        assertTrue(proxies(member).containsAll(expected), member + " has " + proxies(member) + ", not " + expected);
    }

    /** Waits until {@code member} no longer has proxy subscription {@code name}. */
    private void awaitNoProxy(String member, String name) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(EXPECTED_MS);
        while (proxies(member).contains(name) && System.nanoTime() < deadline) {
            LockSupport.parkNanos(1_000_000);
        }
        assertTrue(!proxies(member).contains(name), member + " still has " + name);
    }

    private Set<String> proxies(String member) {
        Set<String> names = new TreeSet<>();
        for (SubscriptionInfo s : members.get(member).server().management().subscriptions()) {
            if (s.name() != null && s.name().startsWith(HierarchyMessages.PROXY_PREFIX)) {
                names.add(s.name());
            }
        }
        return names;
    }

    private static List<String> texts(MessageConsumer consumer, int count) throws JMSException {
        List<String> texts = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Message m = consumer.receive(EXPECTED_MS);
            assertTrue(m != null, "only " + texts + " arrived of " + count);
            texts.add(((TextMessage) m).getText());
        }
        return texts;
    }

    private static void publishRetained(Session session, String topic, String text) throws JMSException {
        TextMessage retained = session.createTextMessage(text);
        retained.setBooleanProperty(TopicManager.RETAIN_PROPERTY, true);
        session.createProducer(session.createTopic(topic)).send(retained);
    }

    private static void publish(Session session, String topic, String... texts) throws JMSException {
        MessageProducer producer = session.createProducer(session.createTopic(topic));
        for (String text : texts) {
            producer.send(session.createTextMessage(text));
        }
        producer.close();
    }

    @Test
    void aQueueManagerDoesNotStartWithAPartnerNothingLeadsTo() {
        IllegalStateException refused = assertThrows(IllegalStateException.class, () -> TestServer.start(
                c -> c.name("QM9"), c -> WharfServer.builder(c).plugins(new PubSubHierarchy(
                        new HierarchySettings("QM1", List.of()), new ChannelsPlugin(ChannelSettings.none()))).start()));
        assertTrue(refused.getMessage().startsWith("Queue manager QM9 cannot reach a partner of its publish/subscribe"
                + " hierarchy ([QM1]): "), refused.getMessage());
        assertTrue(refused.getMessage().contains("no transmission queue is named QM1"), refused.getMessage());
    }

    @Test
    void eachSubscriberOfEachChildReceivesEachPublicationOfTheParentOnceWhereFiltersOverlap() throws Exception {
        startHierarchy(null);
        Session onQm2 = session("QM2");
        Session onQm3 = session("QM3");
        MessageConsumer all2 = onQm2.createConsumer(onQm2.createTopic("prices/#"));
        MessageConsumer all3 = onQm3.createConsumer(onQm3.createTopic("prices/#"));
        MessageConsumer euro3 = onQm3.createConsumer(onQm3.createTopic("prices/eur/+")); // overlaps prices/#
        awaitProxies("QM1", proxyName("QM2", "prices/#"), proxyName("QM3", "prices/#"),
                proxyName("QM3", "prices/eur/+"));

        Session onQm1 = session("QM1");
        for (int i = 0; i < 5; i++) {
            publish(onQm1, "prices/eur/usd", "eur " + i);
            publish(onQm1, "prices/gold", "gold " + i);
        }
        List<String> all = List.of("eur 0", "gold 0", "eur 1", "gold 1", "eur 2", "gold 2", "eur 3", "gold 3",
                "eur 4", "gold 4");
        assertEquals(all, texts(all2, 10));
        assertEquals(all, texts(all3, 10), "once, though two of QM3's filters match the euro prices");
        assertEquals(List.of("eur 0", "eur 1", "eur 2", "eur 3", "eur 4"), texts(euro3, 5));
        Receive.nothingMore(all2);
        Receive.nothingMore(all3);
        Receive.nothingMore(euro3);
        assertEquals(10, hierarchies.get("QM1").forwardedTo("QM3"), "each publication forwarded to QM3 once");
        assertEquals(10, hierarchies.get("QM1").forwardedTo("QM2"));
    }

    @Test
    void aPublicationOfAChildReachesTheParentAndTheOtherChildOnceAndNeverComesBack() throws Exception {
        startHierarchy(null);
        Session onQm1 = session("QM1");
        Session onQm2 = session("QM2");
        Session onQm3 = session("QM3");
        MessageConsumer on1 = onQm1.createConsumer(onQm1.createTopic("news/+"));
        MessageConsumer on2 = onQm2.createConsumer(onQm2.createTopic("news/#")); // the publisher's own member
        MessageConsumer on3 = onQm3.createConsumer(onQm3.createTopic("news/#"));
        // QM2 knows QM1's news/+ and, through QM1, QM3's news/#; QM1 knows both children's
        awaitProxies("QM1", proxyName("QM2", "news/#"), proxyName("QM3", "news/#"));
        awaitProxies("QM2", proxyName("QM1", "news/+"), proxyName("QM1", "news/#"));

        publish(onQm2, "news/today", "n1", "n2", "n3");

        assertEquals(List.of("n1", "n2", "n3"), texts(on1, 3));
        assertEquals(List.of("n1", "n2", "n3"), texts(on3, 3), "through the parent");
        assertEquals(List.of("n1", "n2", "n3"), texts(on2, 3));
        Receive.nothingMore(on1);
        Receive.nothingMore(on3);
        Receive.nothingMore(on2); // nothing came back to QM2 from QM1
        assertEquals(3, hierarchies.get("QM2").forwardedTo("QM1"), "once, though both of QM1's filters match");
        assertEquals(0, hierarchies.get("QM1").forwardedTo("QM2"), "never back where it came from");
        assertEquals(3, hierarchies.get("QM1").forwardedTo("QM3"));
    }

    @Test
    void aDurableSubscriberKeepsReceivingAcrossRestartsOfTheParentAndItsMemberAndGetsNoMoreOnceUnsubscribed()
            throws Exception {
        startHierarchy(null);
        Connection durable3 = servers.keep(new WharfConnectionFactory(members.get("QM3").server().tcpUrl())
                .createConnection());
        durable3.setClientID("audit-3");
        durable3.start();
        Session onQm3 = durable3.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Topic orders = onQm3.createTopic("orders/#");
        onQm3.createDurableSubscriber(orders, "audit").close();
        Session onQm2 = session("QM2");
        MessageConsumer shipping = onQm2.createConsumer(onQm2.createTopic("orders/shipped"));
        awaitProxies("QM1", proxyName("QM3", "orders/#"), proxyName("QM2", "orders/shipped"));

        Connection toQm1 = servers.connect(members.get("QM1").server().tcpUrl());
        Session onQm1 = toQm1.createSession(false, Session.AUTO_ACKNOWLEDGE);
        onQm1.createProducer(onQm1.createTopic("orders/placed")).send(onQm1.createTextMessage("before"),
                DeliveryMode.PERSISTENT, 4, 0);
        toQm1.close();
        members.get("QM1").restart();
        assertTrue(proxies("QM1").contains(proxyName("QM3", "orders/#")), "the proxy subscription is durable");
        onQm1 = session("QM1");
        onQm1.createProducer(onQm1.createTopic("orders/placed")).send(onQm1.createTextMessage("after"),
                DeliveryMode.PERSISTENT, 4, 0);

        durable3.close();
        members.get("QM3").restart();
        onQm1.createProducer(onQm1.createTopic("orders/placed")).send(onQm1.createTextMessage("later"),
                DeliveryMode.PERSISTENT, 4, 0);
        durable3 = servers.keep(new WharfConnectionFactory(members.get("QM3").server().tcpUrl()).createConnection());
        durable3.setClientID("audit-3");
        durable3.start();
        onQm3 = durable3.createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer audit = onQm3.createDurableSubscriber(orders, "audit");
        assertEquals(List.of("before", "after", "later"), texts(audit, 3), "across restarts of QM1 and of QM3");
        Receive.nothingMore(audit);

        audit.close();
        onQm3.unsubscribe("audit");
        awaitNoProxy("QM1", proxyName("QM3", "orders/#"));
        long forwarded = hierarchies.get("QM1").forwardedTo("QM3");
        onQm1.createProducer(onQm1.createTopic("orders/shipped")).send(onQm1.createTextMessage("shipped"));
        assertEquals("shipped", ((TextMessage) ChannelServers.next(shipping)).getText());
        assertEquals(forwarded, hierarchies.get("QM1").forwardedTo("QM3"), "QM3 subscribes to nothing any more");
    }

    @Test
    void aRetainedPublicationOfTheParentReachesLaterSubscribersOfAChildOnce() throws Exception {
        startHierarchy(null);
        Session onQm1 = session("QM1");
        publishRetained(onQm1, "prices/gold", "gold 2300");

        Session onQm3 = session("QM3");
        MessageConsumer all = onQm3.createConsumer(onQm3.createTopic("prices/#"));
        assertEquals(List.of("gold 2300"), texts(all, 1), "QM1's retained publication, given to the new proxy");
        MessageConsumer exact = onQm3.createConsumer(onQm3.createTopic("prices/gold"));
        assertEquals(List.of("gold 2300"), texts(exact, 1), "QM3 retained it too");
        awaitProxies("QM1", proxyName("QM3", "prices/gold")); // which got it again, and did not forward it
        onQm1.createProducer(onQm1.createTopic("prices/gold")).send(onQm1.createTextMessage("gold 2310"));
        assertEquals(List.of("gold 2310"), texts(all, 1));
        assertEquals(List.of("gold 2310"), texts(exact, 1));
        Receive.nothingMore(all);
        Receive.nothingMore(exact);
        assertEquals(List.of("prices/gold"), members.get("QM3").server().topicManager().retainedTopics());
    }

    @Test
    void aRetainedPublicationAChildKeepsIsGivenOnceToItsNextSubscriberAcrossItsRestart() throws Exception {
        startHierarchy(null);
        Session onQm1 = session("QM1");
        publishRetained(onQm1, "prices/gold", "gold 2300");
        Session onQm3 = session("QM3");
        MessageConsumer first = onQm3.createConsumer(onQm3.createTopic("prices/#"));
        assertEquals(List.of("gold 2300"), texts(first, 1), "QM1's retained publication, forwarded");
        first.close();
        awaitNoProxy("QM1", proxyName("QM3", "prices/#"));

        // QM3 keeps its copy across its restart; its next subscriber gets that one, and the copy QM1's new proxy
        // subscription receives (and forwards, QM3 having lost it as far as QM1 knows) is not given to it again
        members.get("QM3").restart();
        onQm3 = session("QM3");
        MessageConsumer second = onQm3.createConsumer(onQm3.createTopic("prices/#"));
        assertEquals(List.of("gold 2300"), texts(second, 1), "QM3's own retained copy");
        awaitProxies("QM1", proxyName("QM3", "prices/#"));
        // the barrier: what the new proxy subscription forwards comes in order, its retained copy first
        publish(onQm1, "prices/gold", "gold 2310");
        assertEquals(List.of("gold 2310"), texts(second, 1), "the retained publication once, then the next");
        Receive.nothingMore(second);
        MessageConsumer third = onQm3.createConsumer(onQm3.createTopic("prices/gold"));
        assertEquals(List.of("gold 2300"), texts(third, 1), "still QM3's retained publication (2310 was not retained)");
    }

    @Test
    void aForwardedPublicationIsPublishedWithTheChannelUsersAuthorityAndAClientCannotInjectProxies()
            throws Exception {
        startHierarchy(new AccessControl(PermissionRules.builder().connect("anyone").channel("anyone")
                .topic("news/#", Permission.PUBLISH, "anyone").topic("#", Permission.SUBSCRIBE, "anyone")
                .queue("**", Permission.SEND, "anyone").build(), "security file test.yaml"));
        Session onQm1 = session("QM1");
        MessageConsumer secret = onQm1.createConsumer(onQm1.createTopic("secret/#"));
        MessageConsumer news = onQm1.createConsumer(onQm1.createTopic("news/#"));
        Session onQm3 = session("QM3");
        MessageConsumer newsOnQm3 = onQm3.createConsumer(onQm3.createTopic("news/#"));
        awaitProxies("QM2", proxyName("QM1", "secret/#"), proxyName("QM1", "news/#"));
        awaitProxies("QM1", proxyName("QM3", "news/#"));

        Session onQm2 = session("QM2");
        publish(onQm2, "secret/plans", "forged");
        publish(onQm2, "news/today", "fine");

        assertEquals("fine", ((TextMessage) ChannelServers.next(news)).getText());
        assertEquals("fine", ((TextMessage) ChannelServers.next(newsOnQm3)).getText());
        Session inside = servers.connect(members.get("QM1").server().vmUrl())
                .createSession(false, Session.AUTO_ACKNOWLEDGE); // the dead-letter queue is the admins'
        Message dead = ChannelServers.next(inside.createConsumer(inside.createQueue(DeadLetters.QUEUE)));
        assertEquals("forged", ((TextMessage) dead).getText());
        assertEquals("Channel: the channel's user, an anonymous client, may not publish to topic 'secret/plans' (no"
                + " 'publish' permission on it)", dead.getStringProperty(DeadLetters.REASON_PROPERTY));
        Receive.nothingMore(secret);

        // a hostile QM2 (its own administrator) forwards a publication as if from QM3, with an origin that is no
        // name: QM1 takes it as from QM2, the partner its channel is bound to, so it still goes on to QM3
        Session hostile = servers.connect(members.get("QM2").server().vmUrl())
                .createSession(false, Session.AUTO_ACKNOWLEDGE);
        Message posing = hostile.createTextMessage("posing");
        posing.setStringProperty(HierarchyMessages.TOPIC, "news/posing");
        posing.setStringProperty(HierarchyMessages.FROM, "QM3");
        posing.setIntProperty(HierarchyMessages.ORIGIN, 3);
        hostile.createProducer(hostile.createQueue("QM1/" + HierarchyMessages.PUBLICATIONS_QUEUE)).send(posing);
        Message here = ChannelServers.next(news);
        assertEquals("posing", ((TextMessage) here).getText());
        assertEquals("QM2", here.getStringProperty(HierarchyMessages.FROM));
        assertEquals("QM2", here.getStringProperty(HierarchyMessages.ORIGIN));
        Message there = ChannelServers.next(newsOnQm3);
        assertEquals("posing", ((TextMessage) there).getText());
        assertEquals("QM1", there.getStringProperty(HierarchyMessages.FROM));

        // a client of QM1, which may send to every queue, cannot pose as a partner
        JMSException refused = assertThrows(JMSException.class, () -> onQm1.createProducer(
                onQm1.createQueue(HierarchyMessages.CONTROL_QUEUE)).send(onQm1.createTextMessage("proxy")));
        assertTrue(refused.getMessage().contains("the SYSTEM.* queues need the admin permission"),
                refused.getMessage());
    }

    /**
     * A client of QM1 that may subscribe to everything cannot share in QM2's proxy subscription on QM1 (a consumer of
     * it would take, and acknowledge, publications owed to QM2's subscribers, which would never be forwarded), nor
     * end it, nor make one first under a partner's name for a filter not yet subscribed: the names are the queue
     * manager's own. Each is refused, naming the subscription, why and the fix; QM2's subscriber gets every
     * publication. (Before, the proxy subscriptions were owned by nobody, so anyone's.)
     */
    @Test
    void aClientCannotShareInEndOrTakeTheNameOfAProxySubscription() throws Exception {
        startHierarchy(null);
        Session onQm2 = session("QM2");
        MessageConsumer prices = onQm2.createConsumer(onQm2.createTopic("prices/#"));
        awaitProxies("QM1", proxyName("QM2", "prices/#"));

        Session onQm1 = session("QM1"); // a client over TCP, anonymous: it may do everything a client may
        Topic topic = onQm1.createTopic("prices/#");
        JMSException shared = assertThrows(JMSException.class, () -> onQm1.createSharedDurableConsumer(topic,
                proxyName("QM2", "prices/#"), HierarchyMessages.selectorFor("QM2")));
        assertEquals("An anonymous client may not use subscription '" + proxyName("QM2", "prices/#") + "': a name"
                + " beginning 'WHARF.PROXY:' is one of the queue manager's own, the proxy subscriptions of its"
                + " publish/subscribe hierarchy, which hold what it forwards to other queue managers"
                + " (docs/distributed.md). Choose a subscription name that does not begin so.", shared.getMessage());
        assertThrows(JMSException.class, () -> onQm1.unsubscribe(proxyName("QM2", "prices/#")));
        assertThrows(JMSException.class, () -> onQm1.createSharedConsumer(onQm1.createTopic("news/#"),
                proxyName("QM3", "news/#")));
        assertEquals(Set.of(proxyName("QM2", "prices/#")), proxies("QM1"), "made by a client");

        publish(onQm1, "prices/gold", "gold 0", "gold 1", "gold 2", "gold 3");
        assertEquals(List.of("gold 0", "gold 1", "gold 2", "gold 3"), texts(prices, 4));
        Receive.nothingMore(prices);
        assertEquals(4, hierarchies.get("QM1").forwardedTo("QM2"));
    }

    @Test
    void aPartnerSpeaksOnlyForItselfAndOnlyForTopicsItsChannelUserMaySubscribeTo() throws Exception {
        startHierarchy(new AccessControl(PermissionRules.builder().connect("anyone").channel("anyone")
                .topic("#", Permission.PUBLISH, "anyone").topic("news/#", Permission.SUBSCRIBE, "anyone")
                .queue("**", Permission.SEND, "anyone").build(), "security file test.yaml"));
        // QM2's own subscribers: secret/# its channel's user may not subscribe to on QM1, then news/#
        Session onQm2 = session("QM2");
        onQm2.createConsumer(onQm2.createTopic("secret/#"));
        MessageConsumer news = onQm2.createConsumer(onQm2.createTopic("news/#"));
        awaitProxies("QM1", proxyName("QM2", "news/#")); // from a set that holds secret/# too
        assertTrue(!proxies("QM1").contains(proxyName("QM2", "secret/#")), proxies("QM1").toString());
        HierarchyStatus.Partner qm2 = hierarchies.get("QM1").status().partners().get(0);
        assertEquals("QM2", qm2.queueManager());
        assertEquals("the channel's user, an anonymous client, may not subscribe to [secret/#] (no 'subscribe'"
                + " permission on it)", qm2.refused());
        Session onQm1 = session("QM1");
        publish(onQm1, "secret/plans", "hidden");
        publish(onQm1, "news/today", "fine");
        assertEquals("fine", ((TextMessage) ChannelServers.next(news)).getText());

        // a hostile QM2 (its own administrator) sends QM1 a set in QM3's name, over its own channel
        Session hostile = servers.connect(members.get("QM2").server().vmUrl())
                .createSession(false, Session.AUTO_ACKNOWLEDGE);
        Message forged = hostile.createMessage();
        forged.setStringProperty(HierarchyMessages.QUEUE_MANAGER, "QM3");
        forged.setIntProperty(HierarchyMessages.FILTERS, 1);
        forged.setStringProperty(HierarchyMessages.FILTER + "0", "news/#");
        hostile.createProducer(hostile.createQueue("QM1/" + HierarchyMessages.CONTROL_QUEUE)).send(forged);

        Session inside = servers.connect(members.get("QM1").server().vmUrl())
                .createSession(false, Session.AUTO_ACKNOWLEDGE); // the dead-letter queue is the admins'
        Message dead = ChannelServers.next(inside.createConsumer(inside.createQueue(DeadLetters.QUEUE)));
        assertEquals("QM3", dead.getStringProperty(HierarchyMessages.QUEUE_MANAGER));
        assertEquals("Channel: the proxy subscriptions of queue manager QM3 came over the receiver channel of queue"
                + " manager QM2 (its partnerQueueManager): a partner may send its own subscriptions only",
                dead.getStringProperty(DeadLetters.REASON_PROPERTY));
        assertTrue(!proxies("QM1").contains(proxyName("QM3", "news/#")), proxies("QM1").toString());
        Receive.nothingMore(news);
    }

    /**
     * A hostile QM2 (its own administrator) sends QM1 a set naming a filter as long as a message, and forwards a
     * publication on such a topic: neither is taken, subscribed, published, logged or copied whole; the rest of the
     * set is.
     */
    @Test
    void aPartnersFiltersAndTopicsLongerThanAReceiverTakesAreRefusedCutShort() throws Exception {
        startHierarchy(null);
        Session onQm2 = session("QM2");
        MessageConsumer news = onQm2.createConsumer(onQm2.createTopic("news/#"));
        awaitProxies("QM1", proxyName("QM2", "news/#")); // QM2's own set went first

        Session hostile = servers.connect(members.get("QM2").server().vmUrl())
                .createSession(false, Session.AUTO_ACKNOWLEDGE);
        String longFilter = "news/" + "x".repeat(2_000) + "/#";
        Message set = hostile.createMessage();
        set.setStringProperty(HierarchyMessages.QUEUE_MANAGER, "QM2");
        set.setIntProperty(HierarchyMessages.FILTERS, 2);
        set.setStringProperty(HierarchyMessages.FILTER + "0", "news/#");
        set.setStringProperty(HierarchyMessages.FILTER + "1", longFilter);
        hostile.createProducer(hostile.createQueue("QM1/" + HierarchyMessages.CONTROL_QUEUE)).send(set);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(EXPECTED_MS);
        while (hierarchies.get("QM1").status().partners().get(0).refused() == null && System.nanoTime() < deadline) {
            LockSupport.parkNanos(1_000_000); // asks QM1 for its status again
        }
        assertEquals("the set names [a filter of " + longFilter.length() + " characters ('"
                + longFilter.substring(0, 64) + "...'), longer than the " + ChannelConfiguration.MAX_DESTINATION_CHARS
                + " a receiver takes]", hierarchies.get("QM1").status().partners().get(0).refused());
        assertEquals(Set.of(proxyName("QM2", "news/#")), proxies("QM1"));

        String longTopic = "news/" + "y".repeat(2_000);
        Message posing = hostile.createTextMessage("a topic as long as a message");
        posing.setStringProperty(HierarchyMessages.TOPIC, longTopic);
        hostile.createProducer(hostile.createQueue("QM1/" + HierarchyMessages.PUBLICATIONS_QUEUE)).send(posing);
        Session inside = servers.connect(members.get("QM1").server().vmUrl())
                .createSession(false, Session.AUTO_ACKNOWLEDGE); // the dead-letter queue is the admins'
        Message dead = ChannelServers.next(inside.createConsumer(inside.createQueue(DeadLetters.QUEUE)));
        assertEquals("a topic as long as a message", ((TextMessage) dead).getText());
        assertEquals("Channel: the forwarded publication names a topic of " + longTopic.length() + " characters ('"
                + longTopic.substring(0, 64) + "...'), longer than the " + ChannelConfiguration.MAX_DESTINATION_CHARS
                + " a receiver takes", dead.getStringProperty(DeadLetters.REASON_PROPERTY));
        assertEquals(null, dead.getStringProperty(DeadLetters.QUEUE_PROPERTY), "the name copied whole");
        publish(session("QM1"), "news/today", "fine"); // the proxy kept forwards
        assertEquals("fine", ((TextMessage) ChannelServers.next(news)).getText());
    }

    @Test
    void aPartnerHasNoMoreProxySubscriptionsThanTheLimitAndKeepsThoseItHad() throws Exception {
        qm1MaxProxies = 2;
        startHierarchy(null);
        Session onQm2 = session("QM2");
        onQm2.createConsumer(onQm2.createTopic("a/#"));
        MessageConsumer c = onQm2.createConsumer(onQm2.createTopic("c/#"));
        awaitProxies("QM1", proxyName("QM2", "a/#"), proxyName("QM2", "c/#"));
        onQm2.createConsumer(onQm2.createTopic("b/#")); // its set [a/#, b/#, c/#]: b/# is one too many

        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(EXPECTED_MS);
        while (hierarchies.get("QM1").status().partners().get(0).refused() == null && System.nanoTime() < deadline) {
            LockSupport.parkNanos(1_000_000); // asks QM1 for its status again
        }
        assertEquals("queue manager QM2 asked for 3 proxy subscriptions, more than the 2 a partner may have on queue"
                + " manager QM1, so [b/#] was refused and the others kept: raise maxProxySubscriptions under"
                + " hierarchy: in QM1's config/wharf.yaml, or subscribe to fewer topic filters on QM2 (one wildcard"
                + " covers many)", hierarchies.get("QM1").status().partners().get(0).refused());
        assertEquals(Set.of(proxyName("QM2", "a/#"), proxyName("QM2", "c/#")), proxies("QM1"));
        publish(session("QM1"), "c/one", "kept");
        assertEquals("kept", ((TextMessage) ChannelServers.next(c)).getText());
    }

    @Test
    void aReceiverBoundToNoPartnerQueueManagerTakesNeitherSetsNorPublications() throws Exception {
        unboundReceiver = "QM2.TO.QM1";
        startHierarchy(null);
        Session onQm1 = session("QM1");
        MessageConsumer news = onQm1.createConsumer(onQm1.createTopic("news/#"));
        awaitProxies("QM2", proxyName("QM1", "news/#")); // QM2's receiver from QM1 is bound: it takes QM1's sets
        publish(session("QM2"), "news/today", "unbound");

        Session inside = servers.connect(members.get("QM1").server().vmUrl())
                .createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer deadLetters = inside.createConsumer(inside.createQueue(DeadLetters.QUEUE));
        Message dead = ChannelServers.next(deadLetters);
        for (; !(dead instanceof TextMessage); dead = ChannelServers.next(deadLetters)) { // QM2's sets, then it
            assertEquals("QM2", dead.getStringProperty(HierarchyMessages.QUEUE_MANAGER));
            assertEquals("Channel: the proxy subscriptions of queue manager QM2 came over a receiver channel bound to"
                    + " no partner queue manager, which could be any queue manager's: set the receiver's"
                    + " partnerQueueManager (and partnerUser) to the partner it is for",
                    dead.getStringProperty(DeadLetters.REASON_PROPERTY));
        }
        assertEquals("unbound", ((TextMessage) dead).getText());
        assertEquals("Channel: a publication forwarded on topic 'news/today' came over a receiver channel bound to no"
                + " partner queue manager, which could be any queue manager's: set the receiver's partnerQueueManager"
                + " (and partnerUser) to the partner it is for", dead.getStringProperty(DeadLetters.REASON_PROPERTY));
        assertEquals(0, hierarchies.get("QM1").status().partners().get(0).proxySubscriptions());
        Receive.nothingMore(news);
    }

    @Test
    void aPublicationThatCannotBeForwardedGoesToTheDeadLetterQueueAndTheForwardingGoesOn() throws Exception {
        int max = 4096; // QM1's; QM2's is the default, larger
        startHierarchy(null, c -> c.maxMessageLength(max));
        Session onQm2 = session("QM2");
        MessageConsumer big = onQm2.createConsumer(onQm2.createTopic("big/#"));
        Session onQm1 = session("QM1");
        MessageConsumer large = onQm1.createConsumer(onQm1.createTopic("large/#"));
        awaitProxies("QM1", proxyName("QM2", "big/#"));
        awaitProxies("QM2", proxyName("QM1", "large/#"));

        // QM2 forwards one larger than QM1 takes: QM1's channel puts it on its dead-letter queue and goes on
        MessageProducer onLarge = onQm2.createProducer(onQm2.createTopic("large/one"));
        String longer = "y".repeat(max + 1000);
        onLarge.send(onQm2.createTextMessage(longer));
        onLarge.send(onQm2.createTextMessage("small"));
        assertEquals("small", ((TextMessage) ChannelServers.next(large)).getText());
        Session inside = servers.connect(members.get("QM1").server().vmUrl())
                .createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer deadLetters = inside.createConsumer(inside.createQueue(DeadLetters.QUEUE));
        Message refused = ChannelServers.next(deadLetters);
        assertEquals(longer, ((TextMessage) refused).getText());
        String why = refused.getStringProperty(DeadLetters.REASON_PROPERTY);
        assertTrue(why.startsWith("Channel: queue manager QM1 could not put it on 'large/one'"), why);
        assertTrue(why.contains("maxMessageLength"), why);

        // QM1 cannot forward one: too large once it carries the forwarding's properties
        MessageProducer producer = onQm1.createProducer(onQm1.createTopic("big/one"));
        producer.send(onQm1.createTextMessage("before"));
        // the largest publication QM1 takes: its forwarding's properties and transmission header make it too large
        String poison = null;
        for (int length = max; poison == null; length -= 8) {
            try {
                producer.send(onQm1.createTextMessage("x".repeat(length)));
                poison = "x".repeat(length);
            } catch (JMSException tooLarge) {
                assertTrue(tooLarge.getMessage().contains("maxMessageLength"), tooLarge.getMessage());
            }
        }
        producer.send(onQm1.createTextMessage("after"));

        assertEquals(List.of("before", "after"), texts(big, 2), "the forwarding went on past the one it could not");
        Message dead = ChannelServers.next(deadLetters);
        assertEquals(poison, ((TextMessage) dead).getText());
        String reason = dead.getStringProperty(DeadLetters.REASON_PROPERTY);
        assertTrue(reason.startsWith("Publish/subscribe hierarchy: queue manager QM1 could not forward a publication"
                + " on topic 'big/one' to queue manager QM2: "), reason);
        assertTrue(reason.contains("maxMessageLength"), reason);
        assertEquals("QM2/" + HierarchyMessages.PUBLICATIONS_QUEUE, dead.getStringProperty(DeadLetters.QUEUE_PROPERTY));
        assertEquals(1, hierarchies.get("QM1").deadLetteredFor("QM2"));
        Receive.nothingMore(big);
        Receive.nothingMore(large);
        Receive.nothingMore(deadLetters);
    }
}
