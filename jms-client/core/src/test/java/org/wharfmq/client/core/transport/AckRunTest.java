package org.wharfmq.client.core.transport;

import org.junit.jupiter.api.Test;
import org.wharfmq.protocol.frame.Frame;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Which acknowledgements a run merges, and which end it (SocketLinkTest has the bytes on the wire). */
class AckRunTest {

    private final AckRun run = new AckRun();

    @Test
    void aConsumersLaterAcknowledgementTakesItsPlaceAndOthersKeepTheirs() {
        assertTrue(run.offer(ack(0, 1, 3, 9)));
        assertTrue(run.offer(ack(0, 1, 4, 2)));
        assertTrue(run.offer(ack(0, 1, 3, 10)));
        assertTrue(run.offer(ack(0, 2, 3, 1))); // consumer ids are per session
        assertEquals(3, run.size());
        assertEquals(ack(0, 1, 3, 10), run.get(0));
        assertEquals(ack(0, 1, 4, 2), run.get(1));
        assertEquals(ack(0, 2, 3, 1), run.get(2));
        run.clear();
        assertEquals(0, run.size());
    }

    @Test
    void framesItMustNotMergeAreRefused() {
        assertFalse(run.offer(new Frame.Credit(3, 1)), "not an acknowledgement");
        assertFalse(run.offer(ack(7, 1, 3, 9)), "answered: a request, its answer confirms what came before it");
        assertFalse(run.offer(new Frame.Ack(0, 1, List.of(new Frame.Consumed(3, 9), new Frame.Consumed(4, 1)))),
                "several consumers (DUPS_OK's batch)");
        assertTrue(run.offer(ack(0, 1, 3, 9)));
        assertFalse(run.offer(ack(0, 1, 3, 8)), "a lower id would acknowledge less than the one it replaced");
        assertEquals(ack(0, 1, 3, 9), run.get(0));
    }

    @Test
    void aFullRunTakesNoNewConsumerButStillMergesItsOwn() {
        for (int c = 0; c < AckRun.MAX; c++) {
            assertTrue(run.offer(ack(0, 1, c, 1)));
        }
        assertFalse(run.offer(ack(0, 1, AckRun.MAX, 1)));
        assertTrue(run.offer(ack(0, 1, 5, 2)));
        assertEquals(ack(0, 1, 5, 2), run.get(5));
    }

    private static Frame.Ack ack(int requestId, int sessionId, int consumerId, long deliveryId) {
        return new Frame.Ack(requestId, sessionId, List.of(new Frame.Consumed(consumerId, deliveryId)));
    }
}
