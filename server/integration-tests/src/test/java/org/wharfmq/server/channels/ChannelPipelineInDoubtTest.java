package org.wharfmq.server.channels;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.server.FreePorts;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.it.Receive;
import org.wharfmq.server.it.TcpProxy;
import org.wharfmq.server.store.ServerProcess;

import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A sender with pipelineLength 2, a process of its own, killed with SIGKILL with two batches in doubt, the receiver
 * having committed the first and not the second: its answers held on their way back (a {@link TcpProxy}), the second
 * refused for want of room on the receiver's queue. Started again, the channel resolves each with its receiver; stopped
 * and resolved by hand, each batch needs its own command, in the order the receiver commits them, and a command that
 * names no batch is refused, naming both. Either way every message arrives once, in order.
 */
@Tag("slow")
class ChannelPipelineInDoubtTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** Messages a batch, and room on QM2's ORDERS: the first batch fills it, the second is refused. */
    private static final int BATCH = 10;

    private final ChannelServers servers = new ChannelServers();
    private final ChannelsPlugin[] qm2Channels = new ChannelsPlugin[1];
    @TempDir
    Path dir;
    private TestServer qm2;
    private TcpProxy proxy;
    private ServerProcess qm1;
    private Path qm1Data;
    private Path qm1Config;
    private int qm1Port;

    @AfterEach
    void stop() throws Exception {
        if (qm1 != null) {
            qm1.close();
        }
        servers.close();
    }

    @Test
    void theChannelStartedAgainCommitsTheFirstBatchAndSendsTheSecondAgain() throws Exception {
        twoBatchesInDoubtAndTheSenderKilled();
        proxy.releaseReplies(); // to a connection that is gone
        MessageConsumer orders = ordersOnQm2();
        receiveOrders(orders, 1, BATCH); // the first batch, committed on QM2 before the kill: room for the second

        qm1 = ServerProcess.start(qm1Data, qm1Port, "--config", qm1Config.toString());
        receiveOrders(orders, BATCH + 1, 2 * BATCH, 60_000); // once: the first batch was not sent again
        Receive.nothingMore(orders);
        String said = qm1.outputSoFar();
        assertTrue(said.contains("Channel TO.QM2: batch 2 was in doubt; the receiver has it (its last batch is 2):"
                + " removed from QM2"), said);
        assertTrue(said.contains("Channel TO.QM2: batch 3 was in doubt; the receiver does not have it (its last batch"
                + " is 2): back on QM2"), said);
        JsonNode sender = chstatus(qm1.url());
        assertFalse(sender.get("inDoubt").asBoolean(), sender.toString());
        assertEquals(0, sender.get("transmissionQueueDepth").asLong());
    }

    @Test
    void eachBatchIsResolvedByHandOnItsOwnInTheOrderTheReceiverCommitsThem() throws Exception {
        twoBatchesInDoubtAndTheSenderKilled();
        proxy.cut(); // the receiver cannot be asked
        proxy.releaseReplies();
        qm1 = ServerProcess.start(qm1Data, qm1Port, "--config", qm1Config.toString());
        String url = qm1.url();
        String batch2 = "batch 2 (10 messages, sequence numbers 2 to 11)";
        String batch3 = "batch 3 (10 messages, sequence numbers 12 to 21)";
        // stopped with both in doubt: the answer says so, each batch with its command
        assertEquals("Channel TO.QM2 stopped with 2 batches in doubt, " + batch2 + " and " + batch3 + ": their"
                + " messages stay held on transmission queue QM2 until the channel starts again and settles them with"
                + " its receiver; when the receiver cannot be asked, resolve each by the receiver's LAST BATCH, the"
                + " oldest committed first, the newest backed out first: 'wharf admin resolve channel TO.QM2 --batch 2"
                + " --action commit' if the receiver's LAST BATCH is at least 2, --action backout if it is less than 2;"
                + " 'wharf admin resolve channel TO.QM2 --batch 3 --action commit' if the receiver's LAST BATCH is at"
                + " least 3, --action backout if it is less than 3 (docs/distributed.md, \"Resolving by hand\")\n",
                AdminCli.ok(url, "stop", "channel", "TO.QM2"));

        String rule = " Its receiver commits batches in order: by its LAST BATCH (display chstatus on the receiving"
                + " queue manager), commit every batch up to it, oldest first, and back out every later one, newest"
                + " first ('wharf admin resolve channel TO.QM2 --batch ID --action commit|backout').";
        // one command for both would lose batch 3 (commit) or send batch 2 twice (backout)
        assertEquals("Channel 'TO.QM2' has 2 batches in doubt, " + batch2 + " and " + batch3 + ", and each may need its"
                + " own outcome: name one with --batch." + rule,
                AdminCli.refused(url, "resolve", "channel", "TO.QM2", "--action", "commit"));
        JsonNode status = chstatus(url);
        assertEquals("STOPPED", status.get("state").asText());
        JsonNode batches = status.get("batchesInDoubt");
        assertEquals(2, batches.size(), status.toString());
        assertBatch(batches.get(0), 2, 2, 11);
        assertBatch(batches.get(1), 3, 12, 21);
        String shown = AdminCli.ok(url, "display", "chstatus");
        assertTrue(shown.contains("\nChannel TO.QM2 has 2 batches in doubt: it settles them with its receiver when it"
                + " runs again. When the receiver cannot be asked, resolve each by the receiver's LAST BATCH, the"
                + " oldest committed first, the newest backed out first:\n"
                + "  " + batch2 + ": 'wharf admin resolve channel TO.QM2 --batch 2 --action commit' if the receiver's"
                + " LAST BATCH is at least 2, --action backout if it is less than 2\n"
                + "  " + batch3 + ": 'wharf admin resolve channel TO.QM2 --batch 3 --action commit' if the receiver's"
                + " LAST BATCH is at least 3, --action backout if it is less than 3\n"), shown);

        assertEquals("Channel 'TO.QM2': batch 3 is not committed while batch 2 is in doubt: a receiver that has batch 3"
                + " has batch 2 too. Commit batch 2 first ('wharf admin resolve channel TO.QM2 --batch 2 --action"
                + " commit')." + rule, AdminCli.refused(url, "resolve", "channel", "TO.QM2", "--batch", "3", "--action",
                "commit"));
        assertEquals("Channel 'TO.QM2': batch 2 is not backed out while batch 3 is in doubt: a receiver that does not"
                + " have batch 2 does not have batch 3 either. Back out batch 3 first ('wharf admin resolve channel"
                + " TO.QM2 --batch 3 --action backout')." + rule, AdminCli.refused(url, "resolve", "channel", "TO.QM2",
                "--batch", "2", "--action", "backout"));
        assertEquals("Channel 'TO.QM2' has no batch 4 in doubt; in doubt: " + batch2 + " and " + batch3 + ".",
                AdminCli.refused(url, "resolve", "channel", "TO.QM2", "--batch", "4", "--action", "commit"));
        assertEquals(2, chstatus(url).get("batchesInDoubt").size(), "the refusals changed nothing");

        // what the operator compares: the receiver's LAST BATCH is 2, so batch 2 is committed and batch 3 backed out
        assertEquals(2, qm2Channels[0].status().get(0).lastBatchId());
        assertEquals("Channel TO.QM2: " + batch2 + " committed: its messages are removed from QM2; still in doubt: "
                + batch3 + "\n", AdminCli.ok(url, "resolve", "channel", "TO.QM2", "--batch", "2", "--action",
                "commit"));
        assertEquals("Channel TO.QM2: " + batch3 + " backed out: its messages are back on QM2, sent again when the"
                + " channel starts\n", AdminCli.ok(url, "resolve", "channel", "TO.QM2", "--action",
                "backout")); // the only one left: no --batch needed
        status = chstatus(url);
        assertFalse(status.get("inDoubt").asBoolean(), status.toString());
        assertEquals(BATCH, status.get("transmissionQueueDepth").asLong(), "the second batch, back on QM2");

        MessageConsumer orders = ordersOnQm2();
        receiveOrders(orders, 1, BATCH);
        proxy.heal();
        AdminCli.ok(url, "start", "channel", "TO.QM2");
        receiveOrders(orders, BATCH + 1, 2 * BATCH);
        Receive.nothingMore(orders); // had both been committed, 11 to 20 would be lost; backed out, 1 to 10 twice
    }

    /**
     * QM2 (in this JVM, its ORDERS holding {@link #BATCH} messages at most) behind a proxy, QM1 a process whose sender
     * TO.QM2 goes through it: order 0 crosses as batch 1; then, QM2's answers held by the proxy, orders 1 to 20 go as
     * batches 2 and 3 at once (pipelineLength 2), both prepared on QM1; QM2 commits batch 2 and cannot put batch 3
     * (ORDERS is full); QM1 is killed with SIGKILL.
     */
    private void twoBatchesInDoubtAndTheSenderKilled() throws Exception {
        int qm2Port = FreePorts.one();
        qm2 = servers.keep(AdminCli.start(c -> c.name("QM2").port(qm2Port).autoCreate(false).queue("ORDERS", BATCH),
                qm2Channels, ChannelDefinition.receiver("TO.QM2", null, "QM1")));
        proxy = servers.keep(TcpProxy.start(qm2Port));
        qm1Data = dir.resolve("qm1-data");
        qm1Port = FreePorts.one();
        qm1Config = Files.writeString(dir.resolve("qm1.yaml"), "name: QM1\nautoCreate: false\nqueues:\n"
                + "  - name: QM2\n    usage: transmission\n"
                + "  - name: ORDERS\n    type: remote\n    remoteQueue: ORDERS\n    remoteQueueManager: QM2\n"
                + "channels:\n  - name: TO.QM2\n    type: sender\n    connection: " + proxy.url() + "\n"
                + "    transmissionQueue: QM2\n    batchSize: " + BATCH + "\n    pipelineLength: 2\n"
                + "    batchIntervalMillis: 1000\n" // each batch waits for its ten: 2 to 11, then 12 to 21
                + "    disconnectIntervalMillis: 600000\n    heartbeatMillis: 0\n"
                + "    retryMillis: 50\n    maxRetryMillis: 500\n");
        qm1 = ServerProcess.start(qm1Data, qm1Port, "--config", qm1Config.toString());

        ChannelServers.sendOrders(qm1.url(), 0, 1);
        MessageConsumer orders = ordersOnQm2();
        receiveOrders(orders, 0, 0);
        orders.close(); // ORDERS is left alone until the kill: batch 2 fills it
        awaitSender(s -> s.get("messages").asLong() == 1, "batch 1 confirmed");

        proxy.holdReplies();
        ChannelServers.sendOrders(qm1.url(), 1, 2 * BATCH + 1);
        awaitSender(s -> s.get("batchesInDoubt").size() == 2, "batches 2 and 3 prepared, both in doubt");
        ChannelServers.await(qm2Channels[0], s -> s.lastBatchId() == 2);
        assertEquals(BATCH, qm2.server().queueManager().queue("ORDERS").depth(), "batch 3 has no room on QM2");
        qm1.kill();
        qm1 = null;
    }

    private static void assertBatch(JsonNode batch, long id, long first, long last) {
        assertEquals(id, batch.get("batch").asLong(), batch.toString());
        assertEquals(first, batch.get("firstSequence").asLong(), batch.toString());
        assertEquals(last, batch.get("lastSequence").asLong(), batch.toString());
        assertEquals(last - first + 1, batch.get("messages").asLong(), batch.toString());
    }

    /** Asks QM1 ({@code display chstatus}) until {@code condition} holds for its sender TO.QM2. */
    private void awaitSender(java.util.function.Predicate<JsonNode> condition, String what) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        JsonNode status = chstatus(qm1.url());
        while (!condition.test(status) && System.nanoTime() < deadline) {
            LockSupport.parkNanos(20_000_000); // polls what the queue manager reports
            status = chstatus(qm1.url());
        }
        assertTrue(condition.test(status), "not within 60 s: " + what + "; " + status + "; QM1 said:\n"
                + qm1.outputSoFar());
    }

    private static JsonNode chstatus(String url) throws Exception {
        return JSON.readTree(AdminCli.ok(url, "--json", "display", "chstatus")).get("result").get(0);
    }

    private MessageConsumer ordersOnQm2() throws Exception {
        Session s = servers.connect(qm2.server().tcpUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        return s.createConsumer(s.createQueue("ORDERS"));
    }

    /** Receives "order FROM" to "order TO", in order, the first within {@code firstMillis}. */
    private static void receiveOrders(MessageConsumer orders, int from, int to, long firstMillis) throws Exception {
        for (int i = from; i <= to; i++) {
            Message m = orders.receive(i == from ? firstMillis : ChannelServers.EXPECTED_MS);
            assertNotNull(m, "order " + i + " did not arrive");
            assertEquals("order " + i, ((TextMessage) m).getText());
        }
    }

    /** Receives "order FROM" to "order TO", in order. */
    private static void receiveOrders(MessageConsumer orders, int from, int to) throws Exception {
        receiveOrders(orders, from, to, ChannelServers.EXPECTED_MS);
    }
}
