package org.wharfmq.server.store;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.wharfmq.protocol.frame.WireXid;
import org.wharfmq.server.LogCapture;
import org.wharfmq.server.TestMessages;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.session.XaBranches;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A journal of an older version with two PREPAREs of one channel batch's Xid (its rollback of the batch after a
 * restart went unrecorded; the channel took the batch's first message again under the same batch id): the queue
 * manager starts with the branch in doubt once, holding the message the later PREPARE consumed, the message only the
 * older one consumed back on its queue, and says so with the Xid; at the next start nothing of the older is left.
 */
class PreparedTwiceRecordTest {

    private static final String QUEUE = "QM2";

    @Test
    void aBatchPreparedTwiceInAnOldJournalIsInDoubtOnceAndSaysSo() throws Exception {
        WireXid xid = new WireXid(0x57484348, "WHARF.CHANNEL/TO.QM2".getBytes(StandardCharsets.UTF_8),
                "7".getBytes(StandardCharsets.UTF_8));
        ByteBuf key = Unpooled.buffer();
        xid.write(key);
        byte[] branch = ByteBufUtil.getBytes(key);
        try (TestServer testServer = TestServer.start(c -> c.queue(QUEUE))) {
            testServer.stop();
            try (JournalMessageStore store = StoreHarness.open(testServer.config(), new StoreHarness.Recovered())) {
                StoreHarness.put(store, message(1, "in both batches"));
                StoreHarness.put(store, message(2, "in the older batch only"));
                store.removeInTransaction(1, message(1, ""));
                store.removeInTransaction(1, message(2, ""));
                prepare(store, 1, branch);
                store.removeInTransaction(2, message(1, ""));
                prepare(store, 2, branch);
            }
            try (LogCapture log = LogCapture.of(XaBranches.class.getName())) {
                WharfServer server = testServer.restart();
                assertEquals(1, server.management().preparedBranches().size(), "in doubt once");
                assertEquals(2, server.queueManager().queue(QUEUE).depth(), "one held by the branch, one back");
                assertTrue(log.messages().stream().anyMatch(m -> m.startsWith("XA branch " + xid + " was prepared"
                        + " twice in the journal")), log.messages().toString());
            }
            try (LogCapture log = LogCapture.of(XaBranches.class.getName())) {
                WharfServer server = testServer.restart();
                assertEquals(1, server.management().preparedBranches().size());
                assertEquals(2, server.queueManager().queue(QUEUE).depth());
                assertTrue(log.messages().stream().noneMatch(m -> m.contains("prepared twice")),
                        "the older PREPARE's rollback was recorded: " + log.messages());
            }
        }
    }

    private static StoreHarness.Message message(long sequence, String body) {
        return new StoreHarness.Message(QUEUE, sequence, TestMessages.encode(TestMessages.text(QUEUE, body)));
    }

    private static void prepare(JournalMessageStore store, long transaction, byte[] branch) throws Exception {
        StoreHarness.Done prepared = new StoreHarness.Done();
        store.prepare(transaction, branch, prepared);
        assertNull(prepared.await());
    }
}
