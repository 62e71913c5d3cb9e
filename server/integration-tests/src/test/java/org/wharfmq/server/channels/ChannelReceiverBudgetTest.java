package org.wharfmq.server.channels;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.wharfmq.client.core.ClientException;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.message.BodyType;
import org.wharfmq.protocol.message.TransmissionHeader;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.protocol.message.WireMessage;
import org.wharfmq.server.Configuration;
import org.wharfmq.server.FreePorts;
import org.wharfmq.server.LogCapture;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.config.QueueConfiguration;
import org.wharfmq.server.config.QueueDefinition;
import org.wharfmq.server.config.QueueReference;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.it.Receive;
import org.wharfmq.server.management.ServerStatus;
import org.wharfmq.server.queue.QueueManager;

import javax.jms.BytesMessage;
import javax.jms.DeliveryMode;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.util.Map;
import java.util.UUID;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a receiver holds of its partner's batches counts against its queue manager's memory budget (maxMemoryBytes):
 * QM2 has a budget of 4 MiB, so a receiver holds at most 1 MiB of one batch (a quarter) and, of all batches, what the
 * budget has room for. A partner that sends larger batches never takes QM2 past its budget (as QM2's memory gauges
 * say); a batch the budget has no room for now is refused and sent again, and arrives, exactly once and in order, once
 * QM2's consumers free the budget; a batch larger than a receiver holds of one is refused for good, its sender stopped
 * with the reason, the limit and the settings, until its operator makes its batches smaller. What a held message
 * counts is the buffer it was read in, which it keeps. The channels' sync records stay in memory, even where a restart
 * pages them.
 */
class ChannelReceiverBudgetTest {

    private static final long BUDGET = 4L << 20;
    private static final int BODY = 64 * 1024;
    private static final String RECEIVER_LOG = ChannelReceiver.class.getName();

    private final ChannelServers servers = new ChannelServers();

    @AfterEach
    void stop() throws Exception {
        servers.close();
    }

    /** QM2 with a memory budget of {@link #BUDGET}, ORDERS with {@code policy}, and receiver TO.QM2. */
    private TestServer qm2(String policy, ChannelsPlugin[] plugin) throws Exception {
        UnaryOperator<ServerConfig.Builder> config = c -> c.name("QM2").autoCreate(false).maxMemoryBytes(BUDGET)
                .queue(QueueDefinition.named("ORDERS").with(QueueConfiguration.POLICY, policy));
        return servers.keep(AdminCli.start(config, plugin, ChannelDefinition.receiver("TO.QM2", null, "QM1")));
    }

    /** QM1 with sender TO.QM2 to {@code qm2} as {@code sender} makes it, served by wharf admin. */
    private TestServer qm1(TestServer qm2, ChannelsPlugin[] plugin, UnaryOperator<ChannelDefinition> sender)
            throws Exception {
        return servers.keep(AdminCli.start(c -> c.name("QM1").autoCreate(false)
                        .queue(QueueDefinition.transmissionQueue("QM2"))
                        .reference(QueueReference.remote("ORDERS", "ORDERS", "QM2", null)), plugin,
                sender.apply(ChannelDefinition.sender("TO.QM2", qm2.server().tcpUrl(), "QM2", null, null)
                        .withTimes(50, 60_000).withMaxRetry(200))));
    }

    /** Sends {@code count} persistent orders of {@link #BODY} bytes to ORDERS on QM1, each with its number. */
    private void sendOrders(TestServer qm1, int count) throws Exception {
        Session session = servers.connect(qm1.server().tcpUrl()).createSession(true, Session.SESSION_TRANSACTED);
        MessageProducer producer = session.createProducer(session.createQueue("ORDERS"));
        for (int i = 0; i < count; i++) {
            BytesMessage order = session.createBytesMessage();
            order.writeBytes(new byte[BODY]);
            order.setIntProperty("n", i);
            producer.send(order, DeliveryMode.PERSISTENT, 4, 0);
        }
        session.commit();
    }

    /** Receives orders 0 to {@code count - 1} from ORDERS on {@code qm2}, each once and in order, and nothing more. */
    private void receiveOrders(TestServer qm2, int count) throws Exception {
        Session session = servers.connect(qm2.server().tcpUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer orders = session.createConsumer(session.createQueue("ORDERS"));
        for (int i = 0; i < count; i++) {
            Message order = ChannelServers.next(orders);
            assertEquals(i, order.getIntProperty("n"), "out of order or twice");
        }
        Receive.nothingMore(orders);
    }

    private static void assertWithinBudget(TestServer qm) {
        ServerStatus s = qm.server().management().server();
        assertEquals(BUDGET, s.memoryMaxBytes());
        assertTrue(s.memoryUsedBytes() <= s.memoryMaxBytes(), "over the budget: " + s.memoryUsedBytes());
    }

    /**
     * ORDERS (policy block, nobody consuming) fills QM2's budget with the batches committed; the next batch finds no
     * room for its messages and is refused, QM2 staying within its budget, and sent again by its sender; once a
     * consumer takes ORDERS' messages every order arrives once, in order.
     */
    @Test
    void aBatchTheBudgetHasNoRoomForIsRefusedAndArrivesOnceTheBudgetFrees() throws Exception {
        try (LogCapture receiverLog = LogCapture.of(RECEIVER_LOG)) {
            TestServer qm2 = qm2("block", new ChannelsPlugin[1]);
            TestServer qm1 = qm1(qm2, new ChannelsPlugin[1], s -> s.with(ChannelConfiguration.BATCH_BYTES, 512L << 10)
                    .withPipelineLength(2));
            int count = 96; // 6 MiB: more than QM2's budget of 4 MiB
            sendOrders(qm1, count);
            ChannelServers.await(() -> receiverLog.messages().stream().anyMatch(m -> m.contains(
                    "not committed: queue manager QM2's memory budget for messages had no room for it")),
                    "a batch refused for want of room in QM2's memory budget");
            assertWithinBudget(qm2);
            assertTrue(qm2.server().management().queue("ORDERS").depth() < count, "every order put");
            receiveOrders(qm2, count);
            assertWithinBudget(qm2);
        }
    }

    /**
     * A batch of 1.5 MiB, more than the 1 MiB QM2's receiver holds of one batch whatever frees: refused for good, and
     * its sender stops, saying why, the limit and the settings; once its operator lowers its batchBytes and starts it,
     * every order arrives once, in order.
     */
    @Test
    void aBatchLargerThanAReceiverHoldsStopsItsSenderWithTheReasonUntilItsBatchesAreSmaller() throws Exception {
        ChannelsPlugin[] sending = new ChannelsPlugin[1];
        TestServer qm2 = qm2("page", new ChannelsPlugin[1]);
        int count = 24; // 1.5 MiB, sent together: one batch (batchSize ends it; it waits as long as it takes for them)
        TestServer qm1 = qm1(qm2, sending, s -> s.with(ChannelConfiguration.BATCH_BYTES, 2L << 20)
                .with(ChannelConfiguration.BATCH_SIZE, count)
                .with(ChannelConfiguration.BATCH_INTERVAL_MILLIS, 60_000L));
        sendOrders(qm1, count);
        ChannelStatus stopped = ChannelServers.awaitStopped(sending[0]);
        assertEquals(ChannelStatus.BATCH_REFUSED, stopped.stopCause());
        long perBatch = BUDGET / 4;
        assertTrue(stopped.reason().contains("Queue manager QM2 did not commit batch 1 of channel 'TO.QM2': batch 1"
                + " holds more than " + perBatch + " bytes") && stopped.reason().contains("more than a receiver holds"
                + " of one batch: 25 % of queue manager QM2's memory budget of " + BUDGET + " bytes (setting"
                + " maxMemoryBytes). Nothing of it is put, and the channel stops, the batch kept on the sending queue"
                + " manager. Lower the channel's batchBytes on the sending queue manager (wharf admin alter channel"
                + " TO.QM2 --batch-bytes N, N well under " + perBatch + ") or, for a message this long on its own,"
                + " raise maxMemoryBytes in queue manager QM2's configuration (a restart); then start the channel"
                + " again (wharf admin start channel TO.QM2)."), stopped.reason());
        assertEquals(0, qm2.server().management().queue("ORDERS").depth());
        assertWithinBudget(qm2);

        String url = qm1.server().tcpUrl();
        AdminCli.ok(url, "alter", "channel", "TO.QM2", "--batch-bytes", String.valueOf(256 << 10));
        AdminCli.ok(url, "start", "channel", "TO.QM2");
        receiveOrders(qm2, count);
        assertWithinBudget(qm2);
    }

    /**
     * A partner that sends one batch of 6 MiB to QM2, whose budget is 4 MiB: what QM2 holds of it counts in its memory
     * gauge while it is held, QM2 drops it once it passes what a receiver holds of one batch, so stays within its
     * budget, and refuses the batch when it ends, saying why.
     */
    @Test
    void aPartnersHeldBatchCountsInTheBudgetAndOneLargerThanAReceiverHoldsIsDropped() throws Exception {
        TestServer qm2 = qm2("page", new ChannelsPlugin[1]);
        CoreLink partner = partner(qm2, "TO.QM2");
        long before = qm2.server().management().server().memoryUsedBytes();
        for (int i = 0; i < 8; i++) {
            partner.write(new Frame.ChannelMessage(order(i)));
        }
        partner.call(Frame.ChannelFastConfirm::new, ChannelServers.EXPECTED_MS); // answered once all before are read
        long held = qm2.server().management().server().memoryUsedBytes() - before;
        assertTrue(held >= 8L * BODY, "what the receiver holds is not in the budget: " + held);
        assertWithinBudget(qm2);

        for (int i = 8; i < 96; i++) {
            partner.write(new Frame.ChannelMessage(order(i)));
        }
        partner.call(Frame.ChannelFastConfirm::new, ChannelServers.EXPECTED_MS);
        assertWithinBudget(qm2);
        assertTrue(qm2.server().management().server().memoryUsedBytes() - before < 8L * BODY,
                "the batch past a receiver's share is still held");
        ClientException refused = assertThrows(ClientException.class, () -> partner.call(
                id -> new Frame.ChannelEndBatch(id, 96, 1), ChannelServers.EXPECTED_MS));
        assertEquals(ErrorCode.CHANNEL_STOPPED, refused.code());
        assertTrue(refused.getMessage().contains("batch 1 holds more than " + BUDGET / 4 + " bytes"),
                refused.getMessage());
        assertEquals(0, qm2.server().management().queue("ORDERS").depth());
    }

    /**
     * A partner that sends each small message in a read of its own (it waits for the answer to a confirmation after
     * each): every message keeps the buffer it was read in (16 KiB or more), which is what QM2's gauge counts, not its
     * length; past QM2's budget of 4 MiB (some 256 such reads, though their lengths come to less than 200 KB) the batch
     * is dropped, QM2 stays within its budget, and the batch is refused when it ends, to be sent again.
     */
    @Test
    void aPartnersMessagesCountTheReadBuffersTheyKeepInTheBudget() throws Exception {
        TestServer qm2 = qm2("page", new ChannelsPlugin[1]);
        CoreLink partner = partner(qm2, "TO.QM2");
        long before = qm2.server().management().server().memoryUsedBytes();
        int reads = 32;
        for (int i = 0; i < reads; i++) {
            partner.write(new Frame.ChannelMessage(order(i, 100, "ORDERS")));
            partner.call(Frame.ChannelFastConfirm::new, ChannelServers.EXPECTED_MS); // the next message, a later read
        }
        long held = qm2.server().management().server().memoryUsedBytes() - before;
        assertTrue(held >= (long) reads * Configuration.CHANNEL_READ_BYTES, "the read buffers the held messages keep"
                + " are not in the budget: " + held + " bytes counted for " + reads + " messages");

        int count = 300; // 300 reads of 16 KiB: past the budget
        for (int i = reads; i < count; i++) {
            partner.write(new Frame.ChannelMessage(order(i, 100, "ORDERS")));
            partner.call(Frame.ChannelFastConfirm::new, ChannelServers.EXPECTED_MS);
        }
        assertWithinBudget(qm2);
        ClientException refused = assertThrows(ClientException.class, () -> partner.call(
                id -> new Frame.ChannelEndBatch(id, count, 1), ChannelServers.EXPECTED_MS));
        assertEquals(ErrorCode.QUEUE_FULL, refused.code());
        assertTrue(refused.getMessage().contains("memory budget for messages had no room for it"),
                refused.getMessage());
        assertTrue(refused.getMessage().contains("more (the buffers they were read in and 384 bytes each)"),
                refused.getMessage());
        assertEquals(0, qm2.server().management().queue("ORDERS").depth());
    }

    /**
     * The channels' sync records paged at QM2's restart (recovery restores BACKLOG, policy block, 2.5 MiB, before the
     * sync queue, past three quarters of the 3 MiB QM2 restarts with): TO.QM2's and that of OLD, a receiver deleted
     * since, whose record no receiver's start reads. The channels' start reads both back, so TO.QM2's commits find
     * their record, batch after batch (were one left paged, every record after it would be paged behind it, and the
     * next commit would find its record not waiting in memory).
     */
    @Test
    void syncRecordsPagedAtRecoveryAreReadBackAndTheChannelsCommitsGoOn() throws Exception {
        int port = FreePorts.one();
        ChannelsPlugin[] receiving = new ChannelsPlugin[1];
        TestServer qm2 = servers.keep(AdminCli.start(c -> c.name("QM2").port(port).autoCreate(false)
                .maxMemoryBytes(BUDGET).queue("ORDERS")
                .queue(QueueDefinition.named("BACKLOG").with(QueueConfiguration.POLICY, "block")), receiving,
                ChannelDefinition.receiver("TO.QM2", null, "QM1")));
        TestServer qm1 = qm1(qm2, new ChannelsPlugin[1], s -> s);
        String url1 = qm1.server().tcpUrl();
        String url2 = qm2.server().tcpUrl();
        MessageConsumer orders = ordersOn(qm2);
        ChannelServers.sendOrders(url1, 0, 1);
        assertEquals("order 0", ((TextMessage) ChannelServers.next(orders)).getText()); // TO.QM2's record

        // channel OLD's partner fills BACKLOG; then OLD is deleted, its record staying on the sync queue
        AdminCli.ok(url2, "define", "channel", "OLD", "--type", "receiver", "--partner-qmgr", "QM1");
        CoreLink partner = partner(qm2, "OLD");
        int sent = 0;
        for (int batch = 1; batch <= 6; batch++) {
            int size = batch < 6 ? 8 : 1; // five of 512 KiB, then one small message alone
            for (int i = 0; i < size; i++) {
                partner.write(new Frame.ChannelMessage(order(sent++, batch < 6 ? BODY : 10, "BACKLOG")));
            }
            long sequence = sent;
            long batchId = batch;
            partner.call(id -> new Frame.ChannelEndBatch(id, sequence, batchId), ChannelServers.EXPECTED_MS);
        }
        partner.close();
        ChannelServers.await(() -> receiving[0].status().stream().noneMatch(s -> s.name().equals("OLD")
                && s.state().equals("RUNNING")), "OLD's partner gone");
        AdminCli.ok(url2, "delete", "channel", "OLD");
        // its connection reconnects after the restart, its consumers with it: left open, this one came back beside the
        // next and took the order the test waited for (load 30)
        orders.close();

        try (LogCapture queues = LogCapture.of(QueueManager.class.getName())) {
            // recovery restores BACKLOG before the sync queue: its 2.5 MiB pass three quarters of 3 MiB, so both
            // records are paged (the queue of the server-wide policy page until the channels start)
            qm2.restart(c -> c.maxMemoryBytes(3L << 20));
            assertTrue(queues.messages().contains("Queue '" + ChannelConfiguration.SYNC_QUEUE + "' had 2 messages"
                    + " paged (at recovery, past three quarters of the memory budget, or by an older build): read back"
                    + " into memory, where they stay"), "the records were not paged: " + queues.messages());
        }
        assertEquals(0, qm2.server().queueManager().queue(ChannelConfiguration.SYNC_QUEUE).paged(),
                "a sync record is still paged");
        orders = ordersOn(qm2);
        for (int i = 1; i <= 3; i++) { // one batch each, each committed before the next is sent
            ChannelServers.sendOrders(url1, i, i + 1);
            assertEquals("order " + i, ((TextMessage) ChannelServers.next(orders)).getText());
        }
        Receive.nothingMore(orders);
        assertEquals(41, qm2.server().management().queue("BACKLOG").depth());
    }

    /** A partner of {@code qm} over the real client that has opened receiver {@code channel} as QM1. */
    private CoreLink partner(TestServer qm, String channel) throws Exception {
        CoreLink partner = servers.keep(CoreLink.open(qm.server().tcpUrl(), Map.of(), null, null,
                "partner of " + channel, 0, 5_000));
        partner.call(id -> new Frame.ChannelOpen(id, channel, "QM1", false, Frame.ChannelOpen.NO_RESET),
                ChannelServers.EXPECTED_MS);
        return partner;
    }

    /** A consumer of ORDERS on {@code qm}, on a connection that is closed at the end. */
    private MessageConsumer ordersOn(TestServer qm) throws Exception {
        Session session = servers.connect(qm.server().tcpUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        return session.createConsumer(session.createQueue("ORDERS"));
    }

    /** A persistent order a partner sends for ORDERS on QM2, of {@link #BODY} bytes. */
    private static ByteBuf order(int n) {
        return order(n, BODY, "ORDERS");
    }

    /** A persistent message numbered {@code n} a partner sends for {@code queue} on QM2, of {@code body} bytes. */
    private static ByteBuf order(int n, int body, String queue) {
        WireMessage m = new WireMessage();
        m.bodyType = BodyType.BYTES;
        m.body = new byte[body];
        m.persistent = true;
        m.messageId = "ID:" + UUID.randomUUID();
        m.destination = WireDestination.queue(queue);
        m.timestamp = System.currentTimeMillis();
        m.properties.put(TransmissionHeader.QUEUE_MANAGER, "QM2");
        m.properties.put(TransmissionHeader.QUEUE, queue);
        m.properties.put("n", n);
        ByteBuf out = ByteBufAllocator.DEFAULT.buffer();
        m.encode(out);
        return out;
    }
}
