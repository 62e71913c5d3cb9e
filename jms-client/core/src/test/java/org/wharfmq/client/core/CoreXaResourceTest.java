package org.wharfmq.client.core;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.message.WireDestination;

import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The core client's XA resource against a real server, through the core's API alone: a send in a branch is seen only
 * once the branch is prepared and committed, a prepared branch is recovered by its Xid, and XA's error codes.
 */
class CoreXaResourceTest extends ConnectedTest {
    private static final WireDestination QUEUE = WireDestination.queue("CORE.XA");

    @BeforeEach
    void start() throws Exception {
        connection.start();
    }

    @Test
    void aBranchsSendIsSeenOnceItIsPreparedAndCommitted() throws Exception {
        CoreSession xaSession = new CoreSession(connection, Frame.SESSION_XA, 10, false, CoreSession.Hooks.NONE);
        xaSession.open();
        CoreXaResource resource = new CoreXaResource(xaSession);
        int producer = connection.nextProducerId();
        xaSession.createProducer(producer, QUEUE);
        Xid xid = xid(1);

        resource.start(xid, XAResource.TMNOFLAGS);
        TestMessages.send(xaSession, producer, QUEUE, "in the branch");
        resource.end(xid, XAResource.TMSUCCESS);

        CoreSession reader = new CoreSession(connection, CoreSettlement.AUTO_ACKNOWLEDGE, 10, false, CoreSession.Hooks.NONE);
        reader.open();
        CoreConsumer consumer = reader.createConsumer(new CoreConsumer.Spec(reader.id(), QUEUE, null, 10, 0, null));
        assertNull(consumer.takeNow(), "a send of a branch not committed was delivered");

        assertEquals(XAResource.XA_OK, resource.prepare(xid));
        Xid[] prepared = resource.recover(XAResource.TMSTARTRSCAN | XAResource.TMENDRSCAN);
        assertEquals(1, prepared.length);
        assertEquals(xid.getFormatId(), prepared[0].getFormatId());
        assertArrayEquals(xid.getGlobalTransactionId(), prepared[0].getGlobalTransactionId());

        resource.commit(xid, false);
        TestMessages.Received d = TestSessions.receive(consumer, TimeUnit.SECONDS.toNanos(10));
        assertNotNull(d, "the committed branch's send did not come");
        assertEquals("in the branch", d.text);
        assertEquals(XAException.XAER_NOTA, assertThrows(XAException.class, () -> resource.commit(xid, false)).errorCode);
    }

    private static Xid xid(int n) {
        byte[] gtrid = ("core-xa-" + n).getBytes(StandardCharsets.UTF_8);
        byte[] bqual = {1};
        return new Xid() {
            @Override
            public int getFormatId() {
                return 4660;
            }

            @Override
            public byte[] getGlobalTransactionId() {
                return gtrid;
            }

            @Override
            public byte[] getBranchQualifier() {
                return bqual;
            }
        };
    }
}
