package org.wharfmq.server.topic;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.message.MessageHeaders;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.protocol.message.WireMessage;
import org.wharfmq.protocol.selector.Selector;
import org.wharfmq.protocol.selector.SelectorParseException;
import org.wharfmq.server.TestMessages;
import org.wharfmq.server.WharfException;
import org.wharfmq.server.config.MemoryPolicy;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.queue.CompactionArena;
import org.wharfmq.server.queue.LocalQueue;
import org.wharfmq.server.queue.QueueManager;
import org.wharfmq.server.queue.QueuedMessage;
import org.wharfmq.server.security.Identity;
import org.wharfmq.server.store.InMemoryMessageStore;

import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The topic manager on its own, over a queue manager with an in-memory store: which subscriptions a publication
 * reaches (wildcards, selectors, noLocal), the JMS rules of durable and shared subscriptions and their consumer counts,
 * a full subscription's queue, and retained publications. End-to-end publish/subscribe through the client is in
 * server/integration-tests.
 */
class TopicManagerTest {

    private static final Object CONNECTION_A = new Object();
    private static final Object CONNECTION_B = new Object();

    private final InMemoryMessageStore store = new InMemoryMessageStore();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    private final CompactionArena arena = new CompactionArena(ByteBufAllocator.DEFAULT);
    private QueueManager queues;
    private TopicManager topics;

    private void start(ServerConfig config) {
        queues = new QueueManager(config, store, InstantSource.system());
        topics = new TopicManager(config, queues);
    }

    @AfterEach
    void stop() {
        topics.close();
        queues.close();
        timer.shutdownNow();
        arena.release();
    }

    @Test
    void aPublicationReachesTheSubscriptionsWhoseFilterSelectorAndNoLocalAcceptIt() {
        start(ServerConfig.defaults());
        Subscription all = subscribe("prices/#", null, false, CONNECTION_A);
        Subscription oneLevel = subscribe("prices/+", null, false, CONNECTION_A);
        Subscription exact = subscribe("prices/eur/usd", null, false, CONNECTION_A);
        Subscription other = subscribe("news/#", null, false, CONNECTION_A);
        Subscription cheap = subscribe("prices/#", "bid < 2", false, CONNECTION_A);
        Subscription notMine = subscribe("prices/#", null, true, CONNECTION_B);

        publish("prices/eur/usd", "p1", 1.08, CONNECTION_B);
        publish("prices/gold", "p2", 2300.0, CONNECTION_A);

        assertEquals(List.of("p1", "p2"), waiting(all));
        assertEquals(List.of("p2"), waiting(oneLevel), "+ is one level");
        assertEquals(List.of("p1"), waiting(exact));
        assertEquals(List.of(), waiting(other));
        assertEquals(List.of("p1"), waiting(cheap), "its selector");
        assertEquals(List.of("p2"), waiting(notMine), "noLocal leaves out its own connection's");
    }

    @Test
    void aNonDurableSubscriptionEndsWithItsLastConsumerAndItsQueueWithIt() {
        start(ServerConfig.defaults());
        Subscription s = subscribe("a/b", null, false, CONNECTION_A);
        LocalQueue queue = s.queue();
        publish("a/b", "kept until the end", 0, CONNECTION_B);
        assertSame(queue, topics.subscriptionQueue(s.queueName()));

        topics.detach(s);

        assertThrows(IllegalArgumentException.class, () -> topics.subscriptionQueue(s.queueName()), "forgotten");
        assertEquals(0, queue.depth(), "its message discarded");
        assertEquals(List.of(), topics.describe());
    }

    @Test
    void anUnsharedDurableSubscriptionHasOneConsumerAtATimeAndIsUnsubscribedOnlyWithoutOne() {
        start(ServerConfig.defaults());
        Subscription first = durable("audit", "c1", false);
        WharfException second = assertThrows(WharfException.class, () -> durable("audit", "c1", false));
        assertEquals(ErrorCode.ILLEGAL_STATE, second.code());
        assertTrue(second.getMessage().contains("already has an active consumer"), second.getMessage());
        WharfException busy = assertThrows(WharfException.class,
                () -> topics.unsubscribe("c1", "audit", Identity.SERVER));
        assertTrue(busy.getMessage().contains("has 1 active consumer(s)"), busy.getMessage());

        publish("audit/x", "while it had a consumer", 0, CONNECTION_B);
        topics.detach(first); // durable: it stays, with its message
        assertEquals(1, first.queue().depth());
        Subscription resumed = durable("audit", "c1", false);
        assertSame(first, resumed, "the same subscription resumed");
        topics.detach(resumed);

        topics.unsubscribe("c1", "audit", Identity.SERVER);
        assertEquals(List.of(), topics.describe());
        assertEquals(0, first.queue().depth(), "its messages went with it");
    }

    @Test
    void aSharedSubscriptionCountsItsConsumersAndEndsWithTheLast() {
        start(ServerConfig.defaults());
        Subscription a = topics.attach(WireDestination.topic("work/#"), null, Selector.ALL_MATCH, false, false, true,
                "workers", null, CONNECTION_A, Identity.SERVER);
        Subscription b = topics.attach(WireDestination.topic("work/#"), null, Selector.ALL_MATCH, false, false, true,
                "workers", null, CONNECTION_B, Identity.SERVER);
        assertSame(a, b, "one subscription, shared");
        assertEquals(2, topics.describe().get(0).consumers());

        topics.detach(a);
        assertEquals(1, topics.describe().get(0).consumers());
        topics.detach(b);
        assertEquals(List.of(), topics.describe(), "a non-durable shared subscription ends with its last consumer");
    }

    @Test
    void theSubscriptionObserverHearsOfEachSubscriptionMadeOrEndedAndOfNoPublication() {
        start(ServerConfig.defaults());
        java.util.concurrent.atomic.AtomicInteger changes = new java.util.concurrent.atomic.AtomicInteger();
        topics.observeSubscriptions(changes::incrementAndGet);
        Subscription s = subscribe("a/+", null, false, CONNECTION_A);
        assertEquals(1, changes.get(), "created");
        Subscription shared = topics.attach(WireDestination.topic("b/#"), null, Selector.ALL_MATCH, false, true, true,
                "proxy", null, CONNECTION_A, Identity.SERVER);
        topics.attach(WireDestination.topic("b/#"), null, Selector.ALL_MATCH, false, true, true, "proxy", null,
                CONNECTION_B, Identity.SERVER);
        assertEquals(2, changes.get(), "a second consumer of a subscription makes none");

        publish("a/x", "p1", 0, CONNECTION_B);
        assertEquals(2, changes.get(), "a publication is not a change");

        topics.detach(s);
        assertEquals(3, changes.get(), "a non-durable subscription ended with its consumer");
        topics.detach(shared);
        topics.detach(shared);
        assertEquals(3, changes.get(), "a durable one stays without consumers");
        topics.deleteDurable(null, "proxy");
        assertEquals(4, changes.get(), "deleted");
    }

    @Test
    void aFullSubscriptionMissesANonPersistentPublicationAndRefusesAPersistentOneForEveryone() {
        start(ServerConfig.builder().maxQueueDepth(1).build());
        Subscription full = durable("slow", "c1", false);
        Subscription roomy = subscribe("slow/#", null, false, CONNECTION_A);
        publish("slow/x", "first", 0, CONNECTION_B);
        roomy.queue().takeWaiting(Selector.ALL_MATCH, 1).forEach(roomy.queue()::acknowledge);

        publish("slow/x", "missed", 0, CONNECTION_B);
        assertEquals(1, full.missed(), "counted as missed by the full one");
        assertEquals(List.of("missed"), waiting(roomy), "delivered to the others");
        roomy.queue().takeWaiting(Selector.ALL_MATCH, 1).forEach(roomy.queue()::acknowledge);

        WharfException refused = assertThrows(WharfException.class, () -> route("slow/x", "persistent", 0, true,
                CONNECTION_B));
        assertEquals(ErrorCode.QUEUE_FULL, refused.code());
        assertTrue(refused.getMessage().contains("was delivered to no subscriber"), refused.getMessage());
        assertEquals(0, roomy.queue().depth(), "nothing reserved on the others");
    }

    @Test
    void everyCopyHoldsOneReferenceToThePublicationsBytesAndARefusalLeavesNone() {
        start(ServerConfig.builder().maxQueueDepth(1).build());
        Subscription roomy = subscribe("slow/#", null, false, CONNECTION_A);
        Subscription full = durable("slow", "c1", false);
        Subscription exact = subscribe("slow/x", null, false, CONNECTION_A);
        ByteBuf content = rightSized(message("slow/x", "first", 0));
        topics.publish(topics.route(content, MessageHeaders.read(content), CONNECTION_B, null, arena, timer), timer);
        assertEquals(4, content.refCnt(), "the sender's reference and one for each of the three copies");
        content.release();
        List<QueuedMessage> copies = new ArrayList<>();
        for (Subscription s : List.of(roomy, full, exact)) {
            copies.addAll(s.queue().takeWaiting(Selector.ALL_MATCH, 1));
        }
        assertEquals(3, copies.size());
        for (int i = 0; i < 3; i++) {
            assertEquals(3 - i, copies.get(i).content().refCnt(), "the copies left");
            copies.get(i).queue().acknowledge(copies.get(i));
        }
        assertEquals(0, content.refCnt(), "freed with the last copy");

        publish("slow/x", "fills the durable one", 0, CONNECTION_B);
        roomy.queue().takeWaiting(Selector.ALL_MATCH, 1).forEach(roomy.queue()::acknowledge);
        exact.queue().takeWaiting(Selector.ALL_MATCH, 1).forEach(exact.queue()::acknowledge);
        WireMessage persistent = message("slow/x", "refused", 0);
        persistent.persistent = true;
        ByteBuf refused = rightSized(persistent); // not copied for the durable one's backlog: its own bytes are counted
        assertThrows(WharfException.class,
                () -> topics.route(refused, MessageHeaders.read(refused), CONNECTION_B, null, arena, timer));
        assertEquals(1, refused.refCnt(), "refused part-way: only the sender's reference is left");
        refused.release();
    }

    @Test
    void aPublicationNothingStoresIsOnEveryQueueOnceRoutedAndOneInATransactionOnlyReserved() {
        start(ServerConfig.defaults());
        Subscription plain = subscribe("prices/#", null, false, CONNECTION_A);
        Subscription durable = durable("prices", "c1", false); // a non-persistent publication is not stored for it
        ByteBuf content = TestMessages.encode(message("prices/x", "at once", 0));
        try {
            Publication publication = topics.route(content, MessageHeaders.read(content), CONNECTION_B, null, arena,
                    timer);
            assertEquals(List.of(), publication.copies(), "nothing left for publish to offer");
            assertEquals(2, publication.copyCount());
            assertEquals(List.of("at once"), waiting(plain), "offered as it was routed");
            assertEquals(List.of("at once"), waiting(durable));
        } finally {
            content.release();
        }

        ByteBuf transacted = TestMessages.encode(message("prices/x", "at commit", 0));
        try {
            Publication publication = topics.route(transacted, MessageHeaders.read(transacted), CONNECTION_B, null,
                    arena, null);
            assertEquals(2, publication.copies().size(), "reserved for the COMMIT");
            assertEquals(List.of("at once"), waiting(plain), "nothing offered before it");
            assertEquals(2, plain.queue().depth(), "its place taken");
            topics.publish(publication, timer);
            assertEquals(List.of("at once", "at commit"), waiting(plain));
        } finally {
            transacted.release();
        }
    }

    @Test
    void aSubscriptionThatCouldRefuseAPublicationHasItReservedEverywhereBeforeAnyCopyIsOffered() {
        // one message is more than the budget of the 'strict/#' subscriptions, whose policy fail refuses it
        start(ServerConfig.builder().topic("strict/#", 64, MemoryPolicy.FAIL).build());
        Subscription before = subscribe("#", null, false, CONNECTION_A);
        Subscription strict = subscribe("strict/x", null, false, CONNECTION_A);
        Subscription after = subscribe("+/x", null, false, CONNECTION_A); // block, as "#"
        WharfException refused = assertThrows(WharfException.class, () -> publish("strict/x", "refused", 0,
                CONNECTION_B));
        assertEquals(ErrorCode.QUEUE_FULL, refused.code());
        assertTrue(refused.getMessage().contains("was delivered to no subscriber"), refused.getMessage());
        for (Subscription s : List.of(before, strict, after)) {
            assertEquals(0, s.queue().depth(), () -> s + " kept a copy of the refused publication");
        }
        publish("other/x", "elsewhere", 0, CONNECTION_B); // no 'strict/#' subscription matches: offered as routed
        assertEquals(List.of("elsewhere"), waiting(before));
    }

    @Test
    void aNewSubscriptionGetsTheRetainedPublicationsItMatchesFirst() {
        start(ServerConfig.defaults());
        WireMessage old = message("status/a", "old", 0);
        old.properties.put("WHARF_RETAIN", true);
        WireMessage latest = message("status/a", "latest", 0);
        latest.properties.put("WHARF_RETAIN", true);
        send(old, CONNECTION_B);
        send(latest, CONNECTION_B);
        assertEquals(List.of("status/a"), topics.retainedTopics());

        Subscription late = subscribe("status/#", null, false, CONNECTION_A);
        assertEquals(List.of("latest"), waiting(late), "the last one retained, not the one it replaced");
        Subscription elsewhere = subscribe("other/#", null, false, CONNECTION_A);
        assertEquals(List.of(), waiting(elsewhere));
    }

    @Test
    void theRetainedPublicationPublishedAgainReachesNoSubscriberAgain() {
        start(ServerConfig.defaults());
        WireMessage gold = message("prices/gold", "gold", 0);
        gold.properties.put("WHARF_RETAIN", true);
        send(gold, CONNECTION_B);
        Subscription early = subscribe("prices/#", null, false, CONNECTION_A);
        assertEquals(List.of("gold"), waiting(early), "given as it subscribed");

        send(gold, CONNECTION_B); // the same message (its JMSMessageID), as a hierarchy partner forwards it back
        WireMessage other = message("prices/gold", "other", 0); // another message, not retained: published
        send(other, CONNECTION_B);
        assertEquals(List.of("gold", "other"), waiting(early), "the retained publication once, then the next");
        Subscription late = subscribe("prices/gold", null, false, CONNECTION_A);
        assertEquals(List.of("gold"), waiting(late), "still retained");
    }

    // ---- helpers ----

    private Subscription subscribe(String filter, String selector, boolean noLocal, Object connection) {
        Selector parsed;
        try {
            parsed = selector == null ? Selector.ALL_MATCH : Selector.parse(selector);
        } catch (SelectorParseException e) {
            throw new AssertionError(e);
        }
        return topics.attach(WireDestination.topic(filter), selector, parsed, noLocal, false, false, null, null,
                connection, Identity.SERVER);
    }

    private Subscription durable(String name, String clientId, boolean shared) {
        return topics.attach(WireDestination.topic(name + "/#"), null,
                Selector.ALL_MATCH, false, true, shared, name, clientId, CONNECTION_A, Identity.SERVER);
    }

    private static WireMessage message(String topic, String body, double bid) {
        WireMessage m = TestMessages.text("unused", body);
        m.destination = WireDestination.topic(topic);
        m.properties.put("bid", bid);
        return m;
    }

    /** The message encoded in a buffer of its own length, which a waiting copy keeps as it is (no compaction). */
    private static ByteBuf rightSized(WireMessage m) {
        ByteBuf encoded = TestMessages.encode(m);
        try {
            return Unpooled.copiedBuffer(encoded);
        } finally {
            encoded.release();
        }
    }

    private void publish(String topic, String body, double bid, Object connection) {
        send(message(topic, body, bid), connection);
    }

    private void route(String topic, String body, double bid, boolean persistent, Object connection) {
        WireMessage m = message(topic, body, bid);
        m.persistent = persistent;
        send(m, connection);
    }

    /** Routes and publishes, as a session does for a send outside a transaction (stored first when anything is). */
    private void send(WireMessage m, Object connection) {
        ByteBuf content = TestMessages.encode(m);
        try {
            Publication publication = topics.route(content, MessageHeaders.read(content), connection, null, arena,
                    timer);
            if (topics.stores(publication)) {
                topics.store(publication, failure -> { });
            }
            topics.publish(publication, timer);
        } finally {
            content.release();
        }
    }

    /** The bodies waiting on the subscription's queue, in order; they stay there. */
    private static List<String> waiting(Subscription s) {
        List<QueuedMessage> taken = s.queue().takeWaiting(Selector.ALL_MATCH, 100);
        List<String> bodies = new ArrayList<>();
        for (QueuedMessage m : taken) {
            bodies.add(TestMessages.body(m.content()));
        }
        s.queue().giveBack(new ArrayList<>(taken));
        return bodies;
    }
}
