package org.wharfmq.server.session;

import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.queue.BudgetUse;
import org.wharfmq.server.queue.MemoryBudget;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * Two sessions' producer windows held back by the server's spent memory budget ({@link MemoryBudget#whenAvailable}),
 * each on an event loop of its own that the test runs by hand (EmbeddedChannel), so that the order in which the woken
 * windows run is the test's: the worst one for session 1, which waited first, each time. Each release that brings
 * room back wakes both; session 2's loop runs first, returns its credit, and its producer fills the budget again
 * before session 1's loop runs. A woken window that looked at the budget again would find it spent and wait again,
 * every time: starved for good while session 2 takes the room. A woken window's wait is over: it returns what it held.
 *
 * <p>What it held when the room came back, and no more: the wake-up hops to the window's event loop, which may handle
 * SENDs before it, of the credit the producer still had; returned with the rest, the producer could send a whole window
 * on top of them, past the budget by up to two windows.
 */
class BudgetWakeOrderTest {

    private static final int WINDOW = 100;
    /** What a producer sends before its credit is due back: more than half the window. */
    private static final int SENT = 60;

    private final EmbeddedChannel first = new EmbeddedChannel();
    private final EmbeddedChannel second = new EmbeddedChannel();

    @AfterEach
    void close() {
        first.finishAndReleaseAll();
        second.finishAndReleaseAll();
    }

    private ProducerWindow window(EmbeddedChannel connection, MemoryBudget budget) {
        ProducerWindow w = new ProducerWindow(1, new Replies(connection), connection.eventLoop(), WINDOW, 1L << 20,
                budget);
        w.open();
        assertEquals(WINDOW, ((Frame.ProducerCredit) connection.readOutbound()).bytes(), "the first window");
        return w;
    }

    @Test
    void aWindowWokenByTheBudgetReturnsItsCreditEvenWhenAnotherWokenWithItFilledTheBudgetFirst() {
        MemoryBudget budget = MemoryBudget.of(ServerConfig.builder().maxMemoryBytes(1_000).build());
        ProducerWindow one = window(first, budget);
        ProducerWindow two = window(second, budget);
        BudgetUse.add(budget, 1_000); // spent
        one.handled(SENT, null, false); // held back first
        two.handled(SENT, null, false);
        assertNull(first.readOutbound(), "held back while the budget is spent");
        assertNull(second.readOutbound(), "held back while the budget is spent");

        for (int round = 1; round <= 3; round++) {
            BudgetUse.release(budget, 1); // room: both are woken, each to its own event loop
            second.runPendingTasks(); // session 2's loop first
            assertEquals(SENT, ((Frame.ProducerCredit) second.readOutbound()).bytes(), "round " + round);
            BudgetUse.add(budget, 1); // its producer's next message fills the budget again
            two.handled(SENT, null, false); // held back again

            first.runPendingTasks(); // then session 1's
            Frame.ProducerCredit credit = first.readOutbound();
            assertEquals(SENT, credit == null ? 0 : credit.bytes(), "round " + round + ": session 1, woken first,"
                    + " got none of its credit back: the session woken with it took the room first");
            one.handled(SENT, null, false); // its producer sends again, and waits again
        }
    }

    @Test
    void aWindowWokenByTheBudgetReturnsWhatItHeldWhenTheRoomCameBackNotWhatItWasSentSince() {
        MemoryBudget budget = MemoryBudget.of(ServerConfig.builder().maxMemoryBytes(1_000).build());
        ProducerWindow one = window(first, budget);
        BudgetUse.add(budget, 1_000); // spent
        one.handled(SENT, null, false); // held back; the producer has WINDOW - SENT left
        assertNull(first.readOutbound(), "held back while the budget is spent");

        BudgetUse.release(budget, 1); // room: the window is woken, on its event loop
        BudgetUse.add(budget, SENT); // which first handles a SEND of the credit the producer had left
        one.handled(SENT, null, false); // (the last message of a window may take it below zero)
        returnsOnlyWhatItHeld(first, SENT);

        BudgetUse.release(budget, SENT); // room again: its turn now
        first.runPendingTasks();
        assertEquals(SENT, ((Frame.ProducerCredit) first.readOutbound()).bytes(), "returned at its turn");
    }

    /**
     * Runs the woken window's loop, which handled a SEND since the room came back: it returns the {@code held} bytes it
     * held when the room came back, and that SEND's wait for the holder again.
     */
    static void returnsOnlyWhatItHeld(EmbeddedChannel loop, int held) {
        loop.runPendingTasks();
        Frame.ProducerCredit credit = loop.readOutbound();
        assertEquals(held, credit == null ? 0 : credit.bytes(), "what it held when the room came back: with the SEND"
                + " handled since, the producer could send a window more on top of that SEND");
        assertNull(loop.readOutbound(), "the SEND handled since waits while its holder has no room");
    }
}
