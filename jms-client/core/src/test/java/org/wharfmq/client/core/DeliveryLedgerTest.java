package org.wharfmq.client.core;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Which message a session marks JMSRedelivered after a reconnection: one handed out before it and not settled, once;
 * never one settled (committed, acknowledged with an answer, confirmed), nor one first seen after it.
 */
class DeliveryLedgerTest {

    @Test
    void anUnsettledMessageSeenAgainOverANewLinkIsMarkedOnce() {
        DeliveryLedger ledger = new DeliveryLedger();
        assertFalse(ledger.handOut("ID:a", 1));
        assertFalse(ledger.handOut("ID:b", 1));
        ledger.settle(1); // a's commit: b is still open
        assertFalse(ledger.handOut("ID:a", 1), "over the same link the server marks what it delivers again itself");

        assertTrue(ledger.handOut("ID:b", 2), "handed out over link 1, not settled, back over link 2");
        assertFalse(ledger.handOut("ID:b", 2), "marked once: a later delivery is the server's to count");
        assertFalse(ledger.handOut("ID:c", 2), "never handed out before");
        assertTrue(ledger.handOut("ID:a", 2), "the second a, of link 1, was not settled either");
    }

    @Test
    void whatAnAnsweredAcknowledgementConfirmedIsNotWatched() {
        DeliveryLedger ledger = new DeliveryLedger();
        for (int i = 0; i < 10; i++) {
            ledger.handOut("ID:" + i, 1);
            assertEquals(i == 3 || i == 7, ledger.confirmationDue(4), "every 4 handed out, an acknowledgement asks for"
                    + " an answer (after " + (i + 1) + ")");
        }
        ledger.confirm(4); // the answer to the acknowledgement asked after ID:3 (another thread, in the client)
        assertFalse(ledger.handOut("ID:0", 2));
        assertFalse(ledger.handOut("ID:3", 2));
        assertTrue(ledger.handOut("ID:4", 2));
        assertTrue(ledger.handOut("ID:9", 2));
    }

    @Test
    void theRingGrowsWhileNothingIsSettledAndKeepsEveryId() {
        DeliveryLedger ledger = new DeliveryLedger();
        for (int i = 0; i < 1000; i++) {
            ledger.handOut("ID:" + i, 1); // one long transaction
        }
        assertEquals(1000, ledger.position());
        int marked = 0;
        for (int i = 999; i >= 0; i--) {
            marked += ledger.handOut("ID:" + i, 2) ? 1 : 0;
        }
        assertEquals(1000, marked);
    }

    @Test
    void aMessageTakenOverALinkAlreadyReplacedIsWatchedForAtOnce() {
        DeliveryLedger ledger = new DeliveryLedger();
        ledger.handOut("ID:new", 2); // another consumer of the session already had one over link 2
        assertFalse(ledger.handOut("ID:late", 1), "taken from link 1's buffer before it was replaced");
        assertTrue(ledger.handOut("ID:late", 2), "it comes back over link 2: marked");
    }

    @Test
    void aMessageWithoutAnIdCannotBeRecognised() {
        DeliveryLedger ledger = new DeliveryLedger();
        assertFalse(ledger.handOut(null, 1));
        assertFalse(ledger.handOut(null, 2));
    }
}
