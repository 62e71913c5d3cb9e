package org.wharfmq.server.channels;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.protocol.auth.ScramCredential;
import org.wharfmq.protocol.message.BodyType;
import org.wharfmq.protocol.message.TransmissionHeader;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.protocol.message.WireMessage;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.security.file.SecurityFileRealm;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The queue managers and connections of a channel test, closed in the reverse order when the test ends. */
final class ChannelServers implements AutoCloseable {

    /** How long a message that is expected may take to arrive: it bounds a hang only (a loaded machine is slow). */
    static final long EXPECTED_MS = 30_000;

    private final List<AutoCloseable> open = new ArrayList<>();

    /** Keeps {@code resource} to close at the end. */
    <T extends AutoCloseable> T keep(T resource) {
        open.add(resource);
        return resource;
    }

    /** A queue manager with the channels plugin running {@code channels}. */
    TestServer start(UnaryOperator<ServerConfig.Builder> config, ChannelDefinition... channels) throws Exception {
        return keep(TestServer.start(config, c -> WharfServer.builder(c)
                .plugins(new ChannelsPlugin(new ChannelSettings(List.of(channels)))).start()));
    }

    /** The status of the one channel of {@code plugin} once {@code condition} holds (it polls what it reports). */
    static ChannelStatus await(ChannelsPlugin plugin, java.util.function.Predicate<ChannelStatus> condition) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(EXPECTED_MS);
        ChannelStatus status = plugin.status().get(0);
        while (!condition.test(status) && System.nanoTime() < deadline) {
            LockSupport.parkNanos(1_000_000);
            status = plugin.status().get(0);
        }
        assertTrue(condition.test(status), "the channel did not get there: " + status);
        return status;
    }

    /** Waits until {@code condition} holds (it polls what the queue manager reports); fails naming {@code what}. */
    static void await(java.util.function.BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(EXPECTED_MS);
        while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
            LockSupport.parkNanos(1_000_000);
        }
        assertTrue(condition.getAsBoolean(), "did not happen: " + what);
    }

    /** Waits until the first of {@code channels} reports STOPPED, with a reason, and returns its status. */
    static ChannelStatus awaitStopped(ChannelsPlugin channels) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(EXPECTED_MS);
        while (System.nanoTime() < deadline) {
            ChannelStatus status = channels.status().get(0);
            if (status.state().equals("STOPPED")) {
                assertNotNull(status.reason());
                return status;
            }
            LockSupport.parkNanos(1_000_000); // polls the state the channel reports
        }
        throw new AssertionError("the channel did not stop: " + channels.status());
    }

    /**
     * A security file in {@code dir} with {@code users}, each with the password USER-pw, and {@code permissions} (the
     * lines under {@code permissions:}), opened as a realm that is closed at the end.
     */
    SecurityFileRealm realm(Path dir, List<String> users, String permissions) throws Exception {
        StringBuilder yaml = new StringBuilder("users:\n");
        for (String user : users) {
            yaml.append("  ").append(user).append(":\n    password: \"").append(ScramCredential.create(
                    (user + "-pw").toCharArray(), 4096, new SecureRandom()).verifier()).append("\"\n");
        }
        Path file = Files.writeString(dir.resolve("security.yaml"), yaml + "permissions:\n" + permissions);
        return keep(SecurityFileRealm.open(file));
    }

    /** A started connection, anonymous. */
    Connection connect(String url) throws Exception {
        Connection connection = keep(new WharfConnectionFactory(url).createConnection());
        connection.start();
        return connection;
    }

    /**
     * Sends "order FROM" to "order TO-1", persistent, to ORDERS on the queue manager at {@code url} in one transaction
     * (on QM1 with a sender of batch size five: one batch of up to five).
     */
    static void sendOrders(String url, int from, int to) throws Exception {
        sendOrders(url, from, to, DeliveryMode.PERSISTENT);
    }

    /** {@link #sendOrders(String, int, int)} with {@code deliveryMode} ({@link DeliveryMode}). */
    static void sendOrders(String url, int from, int to, int deliveryMode) throws Exception {
        try (Connection c = new WharfConnectionFactory(url).createConnection()) {
            Session s = c.createSession(true, Session.SESSION_TRANSACTED);
            MessageProducer producer = s.createProducer(s.createQueue("ORDERS"));
            producer.setDeliveryMode(deliveryMode);
            for (int i = from; i < to; i++) {
                producer.send(s.createTextMessage("order " + i));
            }
            s.commit();
        }
    }

    /**
     * Sends "order 0" to "order {@code count - 1}" to ORDERS on the queue manager at {@code url} in one transaction,
     * non-persistent and persistent by turns (order 0 non-persistent).
     */
    void sendOrdersByTurns(String url, int count) throws Exception {
        Session session = connect(url).createSession(true, Session.SESSION_TRANSACTED);
        MessageProducer producer = session.createProducer(session.createQueue("ORDERS"));
        for (int i = 0; i < count; i++) {
            producer.send(session.createTextMessage("order " + i),
                    i % 2 == 0 ? DeliveryMode.NON_PERSISTENT : DeliveryMode.PERSISTENT, 4, 0);
        }
        session.commit();
    }

    static Message next(MessageConsumer consumer) throws Exception {
        Message message = consumer.receive(EXPECTED_MS);
        assertNotNull(message, "no message within " + EXPECTED_MS + " ms");
        return message;
    }

    /** A message a partner would send for ORDERS on QM2, transmission header and all, with a message id. */
    static ByteBuf forged(boolean persistent) {
        WireMessage m = new WireMessage();
        m.bodyType = BodyType.MESSAGE;
        m.persistent = persistent;
        m.messageId = "ID:" + UUID.randomUUID();
        m.destination = WireDestination.queue("ORDERS");
        m.timestamp = System.currentTimeMillis();
        m.properties.put(TransmissionHeader.QUEUE_MANAGER, "QM2");
        m.properties.put(TransmissionHeader.QUEUE, "ORDERS");
        ByteBuf out = ByteBufAllocator.DEFAULT.buffer();
        m.encode(out);
        return out;
    }

    /**
     * A persistent text message a partner would send, its transmission header naming {@code queueManager} and
     * {@code queue} (its JMSDestination {@code queue}), with a message id.
     */
    static ByteBuf addressed(String queueManager, String queue, String text) {
        WireMessage m = new WireMessage();
        m.bodyType = BodyType.TEXT;
        m.body = text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        m.persistent = true;
        m.messageId = "ID:" + UUID.randomUUID();
        m.destination = WireDestination.queue(queue);
        m.timestamp = System.currentTimeMillis();
        m.properties.put(TransmissionHeader.QUEUE_MANAGER, queueManager);
        m.properties.put(TransmissionHeader.QUEUE, queue);
        ByteBuf out = ByteBufAllocator.DEFAULT.buffer();
        m.encode(out);
        return out;
    }

    @Override
    public void close() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
        open.clear();
    }
}
