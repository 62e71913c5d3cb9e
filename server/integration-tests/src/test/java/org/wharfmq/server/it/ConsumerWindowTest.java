package org.wharfmq.server.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.wharfmq.protocol.ProtocolVersion;
import org.wharfmq.protocol.selector.Selector;
import org.wharfmq.server.queue.LocalQueue;

import javax.jms.JMSException;
import javax.jms.MessageConsumer;
import javax.jms.Session;
import java.util.concurrent.TimeUnit;

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
        LargeMessages.put(WHARF, name, LARGE_COUNT, LARGE);
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
        LargeMessages.put(WHARF, name, 150, 10_000);
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
        LargeMessages.put(WHARF, name, LARGE_COUNT, LARGE);
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
        LargeMessages.put(WHARF, name, LARGE_COUNT, LARGE);
        try (VersionTwoGate gate = VersionTwoGate.start(WHARF.server().tcpPort())) {
            Session session = WHARF.startedSession(gate.url() + "?consumerWindowBytes=" + WINDOW_BYTES);
            MessageConsumer consumer = session.createConsumer(session.createQueue(name));
            Send.barrier(session);
            assertEquals(1, gate.refused(), "one HELLO of version " + ProtocolVersion.CURRENT + " refused");
            assertEquals(1, gate.relayed(), "one connection of version " + ProtocolVersion.OLDEST + " relayed");
            assertEquals(LARGE_COUNT, handedOver(name), "a version 2 consumer has no window in bytes");
            receiveInOrder(consumer, LARGE_COUNT);
        }
    }

    private static Session connect(String options) throws JMSException {
        return WHARF.startedSession(WHARF.server().tcpUrl() + "?" + options);
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
}
