package org.wharfmq.server.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.protocol.ProtocolVersion;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.selector.Selector;
import org.wharfmq.server.queue.LocalQueue;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.JMSException;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Queue;
import javax.jms.Session;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A consumer's window in messages ({@code prefetch}) and in bytes ({@code consumerWindowBytes}; docs/jms-client.md,
 * "Consumer windows") through the real client and server: a consumer that joins a backlog of large messages is
 * handed at most its window in bytes and gets every message in order; small messages keep the whole count window; a
 * consumer without a window in bytes, and a client connected with protocol version 2 (to a gate that answers a
 * version 3 HELLO as a server before version 3 does), are bounded by the count alone and get everything too. What a
 * consumer was handed is asked of the server after a barrier: the queue's depth less the messages still waiting.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ConsumerWindowTest {

    @RegisterExtension
    static final WharfServerExtension WHARF = WharfServerExtension.withDefaults();

    private static final int LARGE = 1_000_000;
    private static final int LARGE_COUNT = 40;
    private static final int WINDOW_BYTES = 4 * 1024 * 1024;

    /**
     * Forty messages of 1 MB wait; a consumer with a 4 MiB window in bytes (and its 1000 of prefetch) joins: the server
     * hands it five (4 MiB of them and the one that crosses it), not forty, and it receives all forty in order.
     */
    @Test
    void aConsumerJoiningABacklogOfLargeMessagesIsHandedAtMostItsWindowInBytes() throws Exception {
        String name = WHARF.queueName("large");
        fill(name, LARGE_COUNT, LARGE);
        Session session = connect("consumerWindowBytes=" + WINDOW_BYTES);
        MessageConsumer consumer = session.createConsumer(session.createQueue(name));
        Send.barrier(session); // the server has handled CREATE_CONSUMER: what it hands over then, it has handed
        long handed = handedOver(name);
        assertTrue(handed >= 1 && handed <= WINDOW_BYTES / LARGE + 1, "a consumer with a window of " + WINDOW_BYTES
                + " bytes was handed " + handed + " messages of " + LARGE + " bytes");
        receiveInOrder(consumer, LARGE_COUNT);
    }

    /** 150 messages of 10 KB wait: a consumer of prefetch 100 and the default window in bytes is handed 100. */
    @Test
    void smallMessagesKeepTheWholeCountWindow() throws Exception {
        String name = WHARF.queueName("small");
        fill(name, 150, 10_000);
        Session session = connect("prefetch=100");
        MessageConsumer consumer = session.createConsumer(session.createQueue(name));
        Send.barrier(session);
        assertEquals(100, handedOver(name), "the count window, not the bytes one, bounds small messages");
        receiveInOrder(consumer, 150);
    }

    /** A consumer with consumerWindowBytes=0 is bounded by its prefetch count alone, as before protocol version 3. */
    @Test
    void aConsumerWithoutAWindowInBytesIsBoundedByItsCountAlone() throws Exception {
        String name = WHARF.queueName("count");
        fill(name, LARGE_COUNT, LARGE);
        Session session = connect("consumerWindowBytes=0");
        MessageConsumer consumer = session.createConsumer(session.createQueue(name));
        Send.barrier(session);
        assertEquals(LARGE_COUNT, handedOver(name));
        receiveInOrder(consumer, LARGE_COUNT);
    }

    /**
     * A server before protocol version 3 answers the client's version 3 HELLO with UNSUPPORTED_VERSION: the client
     * connects again with version 2, and there its consumer asks for no window in bytes and returns none (the server,
     * which refuses trailing bytes, would end the connection): it is bounded by its count and gets everything.
     */
    @Test
    void aClientConnectsWithVersionTwoToAServerThatRefusesVersionThree() throws Exception {
        String name = WHARF.queueName("v2");
        fill(name, LARGE_COUNT, LARGE);
        try (VersionTwoGate gate = VersionTwoGate.start(WHARF.server().tcpPort())) {
            WharfConnectionFactory factory = new WharfConnectionFactory(gate.url() + "?consumerWindowBytes="
                    + WINDOW_BYTES);
            Connection connection = WHARF.track(factory.createConnection());
            connection.start();
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer consumer = session.createConsumer(session.createQueue(name));
            Send.barrier(session);
            assertEquals(1, gate.refused(), "one HELLO of version " + ProtocolVersion.CURRENT + " refused");
            assertEquals(1, gate.relayed(), "one connection of version " + ProtocolVersion.OLDEST + " relayed");
            assertEquals(LARGE_COUNT, handedOver(name), "a version 2 consumer has no window in bytes");
            receiveInOrder(consumer, LARGE_COUNT);
        }
    }

    private static Session connect(String options) throws JMSException {
        Connection connection = WHARF.track(new WharfConnectionFactory(WHARF.server().tcpUrl() + "?" + options)
                .createConnection());
        connection.start();
        return connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
    }

    /** Puts {@code count} non-persistent messages of {@code size} bytes, seeds 0 to count - 1, on queue {@code name}.*/
    private static void fill(String name, int count, int size) throws JMSException {
        Session session = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue queue = session.createQueue(name);
        MessageProducer producer = session.createProducer(queue);
        producer.setDeliveryMode(DeliveryMode.NON_PERSISTENT);
        for (int i = 0; i < count; i++) {
            producer.send(LargeMessages.message(session, size, i));
        }
        Send.barrier(session);
        assertEquals(count, WHARF.depth(name));
    }

    private static void receiveInOrder(MessageConsumer consumer, int count) throws JMSException {
        for (int i = 0; i < count; i++) {
            assertEquals(i, LargeMessages.assertIntact(Receive.next(consumer)), "the messages in the order sent");
        }
    }

    /**
     * The messages of queue {@code name} handed to consumers and not yet acknowledged: its depth less those still
     * waiting (what a browse of it sees) and those paged.
     */
    private static long handedOver(String name) {
        LocalQueue queue = WHARF.server().queueManager().queue(name);
        long[] waiting = {queue.paged()};
        queue.browse(queue.browse(Selector.ALL_MATCH), Integer.MAX_VALUE, (content, deliveryCount) -> {
            content.release();
            waiting[0]++;
        });
        return queue.depth() - waiting[0];
    }

    /**
     * A gate in front of the server that answers a HELLO of another version than 2 as a server before version 3 does
     * (ERROR UNSUPPORTED_VERSION, then close) and relays every other connection as it is.
     */
    private static final class VersionTwoGate implements AutoCloseable {
        private final ServerSocket listener;
        private final int serverPort;
        private final AtomicInteger refused = new AtomicInteger();
        private final AtomicInteger relayed = new AtomicInteger();

        private VersionTwoGate(ServerSocket listener, int serverPort) {
            this.listener = listener;
            this.serverPort = serverPort;
        }

        static VersionTwoGate start(int serverPort) throws IOException {
            VersionTwoGate gate = new VersionTwoGate(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()),
                    serverPort);
            Thread accept = new Thread(gate::accept, "version-2-gate");
            accept.setDaemon(true);
            accept.start();
            return gate;
        }

        String url() {
            return "tcp://127.0.0.1:" + listener.getLocalPort();
        }

        int refused() {
            return refused.get();
        }

        int relayed() {
            return relayed.get();
        }

        private void accept() {
            while (!listener.isClosed()) {
                try {
                    Socket client = listener.accept();
                    Thread handler = new Thread(() -> handle(client), "version-2-gate-connection");
                    handler.setDaemon(true);
                    handler.start();
                } catch (IOException e) {
                    return; // closed
                }
            }
        }

        /** Reads the HELLO: {@code int length, byte type, int magic, short version, ...}. */
        private void handle(Socket client) {
            try {
                DataInputStream in = new DataInputStream(client.getInputStream());
                int length = in.readInt();
                byte[] hello = new byte[length];
                in.readFully(hello);
                int version = ((hello[5] & 0xff) << 8) | (hello[6] & 0xff);
                if (version != 2) {
                    refused.incrementAndGet();
                    client.getOutputStream().write(RawFrameClient.encode(new Frame.Error(0,
                            ErrorCode.UNSUPPORTED_VERSION, "Protocol version " + version + " is not supported: this"
                            + " server speaks version 2; upgrade the client to a Wharf client of the server's"
                            + " version.", 0, 0)));
                    client.close();
                    return;
                }
                relayed.incrementAndGet();
                Socket server = new Socket(InetAddress.getLoopbackAddress(), serverPort);
                OutputStream toServer = server.getOutputStream();
                toServer.write(new byte[] {(byte) (length >>> 24), (byte) (length >>> 16), (byte) (length >>> 8),
                        (byte) length});
                toServer.write(hello);
                Thread back = new Thread(() -> pump(server, client), "version-2-gate-back");
                back.setDaemon(true);
                back.start();
                pump(client, server);
            } catch (IOException e) {
                closeQuietly(client);
            }
        }

        private static void pump(Socket from, Socket to) {
            byte[] buffer = new byte[64 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    out.write(buffer, 0, n);
                }
            } catch (IOException e) {
                // one side ended: so does the other
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }

        private static void closeQuietly(Socket socket) {
            try {
                socket.close();
            } catch (IOException e) {
                // closing
            }
        }

        @Override
        public void close() throws IOException {
            listener.close();
        }
    }
}
