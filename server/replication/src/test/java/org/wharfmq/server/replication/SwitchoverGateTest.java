package org.wharfmq.server.replication;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The gate a switchover closes on the journal's batches: closing waits for the batches appended before; batches
 * handed over while closed are held, then appended in the journal's order before any later one when the switchover
 * fails, or failed when it succeeds. The appends here are futures the test completes, standing for the log's.
 */
class SwitchoverGateTest {

    private final List<String> appended = new ArrayList<>();
    private final List<CompletableFuture<Object>> commits = new ArrayList<>();
    private final SwitchoverGate gate = new SwitchoverGate(this::append);

    private CompletionStage<?> append(ByteBuffer records) {
        appended.add(new String(records.array()));
        CompletableFuture<Object> commit = new CompletableFuture<>();
        commits.add(commit);
        return commit;
    }

    private static ByteBuffer batch(String name) {
        return ByteBuffer.wrap(name.getBytes());
    }

    @Test
    void closingWaitsForTheBatchesAppendedBeforeAndHoldsLaterOnesUntilAFailedSwitchoverOpensItInOrder() {
        CompletionStage<?> one = gate.pass(batch("one"));
        CompletableFuture<Void> drained = gate.close();
        assertFalse(drained.isDone(), "closed while a batch was in flight");
        CompletionStage<?> two = gate.pass(batch("two"));
        CompletionStage<?> three = gate.pass(batch("three"));
        assertEquals(List.of("one"), appended, "a batch was appended while the gate was closed");
        assertEquals(2, gate.heldBatches());

        commits.get(0).complete(1L);
        assertTrue(one.toCompletableFuture().isDone());
        assertTrue(drained.isDone(), "the batch in flight was committed, but the gate did not say so");

        gate.open(null); // the switchover failed: the held ones go on, first
        CompletionStage<?> four = gate.pass(batch("four"));
        assertEquals(List.of("one", "two", "three", "four"), appended);
        commits.get(1).complete(2L);
        commits.get(2).complete(3L);
        assertEquals(2L, two.toCompletableFuture().join());
        assertEquals(3L, three.toCompletableFuture().join());
        assertFalse(four.toCompletableFuture().isDone());
        assertEquals(0, gate.heldBatches());
    }

    @Test
    void aSuccessfulSwitchoverFailsTheHeldBatchesWithoutAppendingThem() {
        CompletableFuture<Void> drained = gate.close();
        assertTrue(drained.isDone(), "nothing was in flight");
        CompletionStage<?> held = gate.pass(batch("held"));
        IllegalStateException handedOver = new NotActiveException("handed over", "b");
        gate.open(handedOver);
        assertEquals(List.of(), appended);
        Throwable failure = assertThrows(Exception.class, () -> held.toCompletableFuture().join()).getCause();
        assertSame(handedOver, failure);
    }

    @Test
    void aFailedAppendStillCountsAsLeavingTheGate() {
        gate.pass(batch("one"));
        CompletableFuture<Void> drained = gate.close();
        commits.get(0).completeExceptionally(new IllegalStateException("not committed"));
        assertTrue(drained.isDone());
        assertThrows(IllegalStateException.class, gate::close, "a second switchover while one runs");
    }
}
