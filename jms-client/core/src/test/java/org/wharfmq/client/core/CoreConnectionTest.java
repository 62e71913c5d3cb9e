package org.wharfmq.client.core;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.wharfmq.client.core.transport.BrokerAddress;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.server.TestServer;

import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The core client's connection against a real server, through the core's API alone (no JMS): requests and the
 * server's refusals as {@link ClientException}s with the protocol's code, deliveries routed to their consumer with
 * its credit, sessions, consumers and the client ID re-created after the server comes back, the connection lost for
 * good, and close.
 */
class CoreConnectionTest {
    private static final WireDestination QUEUE = WireDestination.queue("CORE.Q");
    private static final ReconnectPolicy QUICKLY = new ReconnectPolicy(100, 20, 50);

    private TestServer server;
    private final List<CoreConnection> connections = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws Exception {
        server = TestServer.start();
    }

    @AfterEach
    void stop() {
        connections.forEach(CoreConnection::close);
        server.close();
    }

    private CoreConnection connect(ReconnectPolicy reconnect, ConnectionListener listener) throws ClientException {
        CoreConnection c = CoreConnection.connect(ConnectionSettings.of(BrokerAddress.tcp("127.0.0.1",
                server.server().tcpPort()), null, null, "core-test").withReconnect(reconnect), listener);
        connections.add(c);
        return c;
    }

    /** A CLIENT_ACKNOWLEDGE session of {@code c}, created on the server, telling {@code hooks}. */
    private static CoreSession open(CoreConnection c, CountingHooks hooks) throws ClientException {
        CoreSession session = new CoreSession(c, CoreSettlement.CLIENT_ACKNOWLEDGE, 10, false, hooks);
        session.open();
        return session;
    }

    @Test
    void requestsAreAnsweredAndARefusalCarriesTheProtocolsCode() throws Exception {
        CoreConnection c = connect(ReconnectPolicy.NONE, ConnectionListener.NONE);
        CoreSession session = open(c, new CountingHooks());
        session.createProducer(c.nextProducerId(), QUEUE);

        // a temporary queue of the connection's own, created and deleted; deleting it again is refused, with the code
        WireDestination temporary = new WireDestination(WireDestination.Kind.TEMPORARY_QUEUE, c.temporaries().nextName());
        c.temporaries().create(temporary);
        c.temporaries().delete(temporary);
        ClientException gone = assertThrows(ClientException.class, () -> c.temporaries().checkNotDeleted(temporary));
        assertEquals(ErrorCode.UNKNOWN_DESTINATION, gone.code(), gone.getMessage());
        ClientException refused = assertThrows(ClientException.class, () -> c.temporaries().delete(temporary));
        assertEquals(ErrorCode.UNKNOWN_DESTINATION, refused.code(), refused.getMessage());
    }

    /**
     * A temporary queue this connection deleted is refused by the client, naming it, before anything is sent: a
     * producer of it, a send to it (by a producer of no destination), a consumer and a browse of it. The server would
     * refuse them too, with the same code: the client's message, which says what to do, shows who refused.
     */
    @Test
    void aDeletedTemporaryQueueIsRefusedBeforeAnythingIsSent() throws Exception {
        CoreConnection c = connect(ReconnectPolicy.NONE, ConnectionListener.NONE);
        CoreSession session = open(c, new CountingHooks());
        WireDestination temporary = new WireDestination(WireDestination.Kind.TEMPORARY_QUEUE, c.temporaries().nextName());
        c.temporaries().create(temporary);
        int anonymous = c.nextProducerId();
        session.createProducer(anonymous, null);
        TestMessages.send(session, anonymous, temporary, "before"); // sent: it exists
        c.temporaries().delete(temporary);

        List<ClientException> refusals = List.of(
                assertThrows(ClientException.class, () -> session.createProducer(c.nextProducerId(), temporary)),
                assertThrows(ClientException.class, () -> TestMessages.send(session, anonymous, temporary, "after")),
                assertThrows(ClientException.class, () -> session.createConsumer(
                        new CoreConsumer.Spec(session.id(), temporary, null, 10, 0, null))),
                assertThrows(ClientException.class, () -> CoreBrowser.open(session, temporary, null, 0)));
        for (ClientException e : refusals) {
            assertEquals(ErrorCode.UNKNOWN_DESTINATION, e.code(), e.getMessage());
            assertTrue(e.getMessage().contains("Temporary queue '" + temporary.name() + "' has been deleted by this"
                    + " connection") && e.getMessage().contains("create a new temporary queue"), e.getMessage());
        }
    }

    @Test
    void deliveriesReachTheirConsumerAsFarAsItsCreditGoes() throws Exception {
        CoreConnection c = connect(ReconnectPolicy.NONE, ConnectionListener.NONE);
        CoreSession session = open(c, new CountingHooks());
        int producer = c.nextProducerId();
        session.createProducer(producer, QUEUE);
        for (int i = 1; i <= 3; i++) {
            TestMessages.send(session, producer, QUEUE, "m" + i);
        }

        TestConsumer first = new TestConsumer();
        int firstId = consume(c, session, first, 2);
        assertEquals("m1", first.next(c));
        assertEquals("m2", first.next(c));
        // its two of credit spent, the first consumer is sent no more: the third goes to a consumer that has credit
        TestConsumer second = new TestConsumer();
        int secondId = consume(c, session, second, 10);
        assertEquals("m3", second.next(c));
        assertTrue(first.messages.isEmpty(), "a delivery beyond the consumer's credit");

        c.requestOk(rid -> new Frame.Ack(rid, session.id(), List.of(new Frame.Consumed(firstId, first.lastId),
                new Frame.Consumed(secondId, second.lastId))), "ACK");
        // a PULL is answered once what it found is delivered: nothing is left
        c.current().write(new Frame.Pull(firstId, 1));
        assertEquals(1L, first.pullDone.poll(10, TimeUnit.SECONDS));
        assertTrue(first.messages.isEmpty());
    }

    /** Registers {@code consumer} under a fresh id and creates it on the server with {@code credit}. */
    private static int consume(CoreConnection c, CoreSession session, TestConsumer consumer, int credit)
            throws ClientException {
        int id = c.nextConsumerId();
        assertNull(c.establish(link -> c.consumers().registerConsumer(id, consumer),
                rid -> new Frame.CreateConsumer(rid, session.id(), id, QUEUE, null, credit, 0, null), "CREATE_CONSUMER"));
        return id;
    }

    @Test
    void aReconnectionCreatesTheSessionsAndTheClientIdAgain() throws Exception {
        int port = server.server().tcpPort();
        BlockingQueue<Reconnector.Step> steps = new LinkedBlockingQueue<>();
        CoreConnection c = connect(QUICKLY, new ConnectionListener() {
            @Override
            public void failover(Reconnector.Step step, BrokerAddress address, int attempts, ClientException cause) {
                steps.add(step);
            }
        });
        c.assignClientId("core-client-1");
        CountingHooks hooks = new CountingHooks();
        CoreSession session = open(c, hooks);
        ConnectedLink first = c.current();

        server.restart(config -> config.port(port));
        assertEquals(Reconnector.Step.DISCONNECTED, steps.poll(10, TimeUnit.SECONDS));
        assertEquals(Reconnector.Step.RECONNECTED, steps.poll(10, TimeUnit.SECONDS));

        ConnectedLink second = c.usableLink();
        assertEquals(first.generation() + 1, second.generation());
        assertEquals(1, hooks.linksLost.get());
        assertEquals("core-client-1", c.clientId());
        // the session exists on the new server: a producer on it is accepted
        session.createProducer(c.nextProducerId(), QUEUE);
        // and the client ID is this connection's again there
        CoreConnection other = connect(ReconnectPolicy.NONE, ConnectionListener.NONE);
        ClientException taken = assertThrows(ClientException.class, () -> other.assignClientId("core-client-1"));
        assertEquals(ErrorCode.INVALID_CLIENT_ID, taken.code());
    }

    /**
     * The listener hears of the loss on a thread of its own, where it may call the connection back (here: close it,
     * after the test has looked at the connection: it holds up no thread of the connection's).
     */
    @Test
    void aConnectionLostForGoodTellsItsListenerOnItsOwnThreadItsSessionsAndItsCallers() throws Exception {
        CountDownLatch lost = new CountDownLatch(1);
        CountDownLatch looked = new CountDownLatch(1);
        CountDownLatch closed = new CountDownLatch(1);
        List<String> listenerThread = new CopyOnWriteArrayList<>();
        CoreConnection[] connection = new CoreConnection[1];
        CoreConnection c = connect(ReconnectPolicy.NONE, new ConnectionListener() {
            @Override
            public void lost(ClientException why) {
                listenerThread.add(Thread.currentThread().getName());
                lost.countDown();
                try {
                    if (looked.await(30, TimeUnit.SECONDS)) {
                        connection[0].close();
                        closed.countDown();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        connection[0] = c;
        CountingHooks hooks = new CountingHooks();
        open(c, hooks);

        server.stop();
        assertTrue(lost.await(10, TimeUnit.SECONDS), "the listener hears of the loss");
        assertEquals(List.of("wharf-connection-lost"), listenerThread, "not on the connection's own thread for it");
        assertEquals(1, hooks.connectionsLost.get());
        ClientException why = assertThrows(ClientException.class, c::checkOpen);
        assertSame(c.lostCause(), why.getCause(), "said afresh on the caller's thread, the loss as its cause");
        assertTrue(why.getMessage().contains("was lost"), why.getMessage());
        assertThrows(ClientException.class, () -> c.request(rid -> new Frame.SetClientId(rid, "x"), "SET_CLIENT_ID"));
        looked.countDown();
        assertTrue(closed.await(10, TimeUnit.SECONDS), "the listener could not close the connection");
        assertEquals(List.of("wharf-connection-lost"), listenerThread, "told more than once");
    }

    /**
     * A listener that does not listen for the loss is asked so once, on the thread that found the loss out, before any
     * thread would be started for it; it is not told, and no {@code wharf-connection-lost} thread runs. A connection
     * that started the thread anyway and asked there, or never asked, fails here.
     */
    @Test
    void aLossNobodyListensForStartsNoThread() throws Exception {
        BlockingQueue<String> askedOn = new LinkedBlockingQueue<>();
        List<String> told = new CopyOnWriteArrayList<>();
        CoreConnection c = connect(ReconnectPolicy.NONE, new ConnectionListener() {
            @Override
            public boolean listensForLoss() {
                askedOn.add(Thread.currentThread().getName());
                return false;
            }

            @Override
            public void lost(ClientException why) {
                told.add(Thread.currentThread().getName());
            }
        });
        CountingHooks hooks = new CountingHooks();
        open(c, hooks);

        server.stop();
        String asked = askedOn.poll(10, TimeUnit.SECONDS);
        assertNotNull(asked, "the listener was not asked whether it listens");
        assertNotEquals("wharf-connection-lost", asked, "asked on a thread started for it");
        assertNotNull(c.lostCause());
        assertEquals(1, hooks.connectionsLost.get(), "the sessions hear of the loss all the same");
        assertEquals(List.of(), told, "told of a loss it does not listen for");
        assertNull(askedOn.poll(), "asked more than once");
    }

    @Test
    void closeClosesTheSessionsAndRefusesWhatFollows() throws Exception {
        CoreConnection c = connect(ReconnectPolicy.NONE, ConnectionListener.NONE);
        CountingHooks hooks = new CountingHooks();
        open(c, hooks);
        c.close();
        assertEquals(1, hooks.closed.get());
        assertEquals(ErrorCode.ILLEGAL_STATE, assertThrows(ClientException.class, c::checkOpen).code());
        assertEquals(ErrorCode.ILLEGAL_STATE, assertThrows(ClientException.class, () -> open(c, new CountingHooks())).code());
    }

    /** A consumer's side of the registry: what was delivered, decoded, and the PULLs answered. */
    private static final class TestConsumer implements DeliveryTarget {
        final BlockingQueue<String> messages = new LinkedBlockingQueue<>();
        final BlockingQueue<Long> pullDone = new LinkedBlockingQueue<>();
        volatile long lastId;

        @Override
        public void deliver(Frame.Deliver deliver) {
            lastId = deliver.deliveryId();
            messages.add(TestMessages.text(deliver));
        }

        @Override
        public void pullDone(long pullId) {
            pullDone.add(pullId);
        }

        String next(CoreConnection c) throws InterruptedException {
            c.flushSoonFrames();
            String m = messages.poll(10, TimeUnit.SECONDS);
            assertNotNull(m, "no delivery");
            return m;
        }
    }
}
