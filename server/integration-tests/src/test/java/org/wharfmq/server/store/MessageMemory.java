package org.wharfmq.server.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.wharfmq.server.cli.FlowCommandAccess;
import org.wharfmq.server.it.LargeMessages;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a server process says of its memory for messages, asked as an operator would ({@code wharf admin --json}): a
 * queue's depth, bytes in memory and messages paged ({@code display queue}), and the server's memory budget for
 * messages, heap and direct memory ({@code display server}). For the tests of 100 MB messages paged past a queue's
 * budget ({@link LargeMessageProcessTest}, {@link ReplicatedLargeMessageTest}).
 */
final class MessageMemory {

    /**
     * How long a paged message's bytes may take to leave memory: the paging thread writes 100 MB, on a loaded machine.
     * A bound for a hang only: the figures are read until they are within the budget.
     */
    private static final long PAGING_MILLIS = TimeUnit.MINUTES.toMillis(2);
    /** How often the server is asked: each question is an admin session, which takes CPU from the server. */
    private static final long ASK_EVERY_MILLIS = 100;
    private static final ObjectMapper JSON = new ObjectMapper();

    private MessageMemory() {
    }

    /** A queue's figures and the server's, read one after the other. */
    record Figures(JsonNode queue, JsonNode server) {

        /** The queue holds {@code depth} messages, the last one ({@link LargeMessages#HUNDRED_MB}) paged. */
        void assertHoldsWithTheLargestPaged(long depth) {
            assertEquals(depth, queue.get("depth").asLong(), this::toString);
            assertTrue(queue.get("paged").asLong() >= 1 && queue.get("pagedBytes").asLong() > LargeMessages.HUNDRED_MB,
                    () -> "the 100 MB message came past the queue's budget: it is paged: " + this);
        }

        /** The server's memory budget for messages (maxMemoryBytes) is {@code budget}. */
        void assertServerBudget(long budget) {
            assertEquals(budget, server.get("memoryMaxBytes").asLong(), this::toString);
        }

        @Override
        public String toString() {
            return String.format("the queue holds %d messages, %d bytes in memory, %d paged (%d bytes); the server's "
                            + "budget for messages holds %d of %d; heap %d of %d, direct memory %d",
                    queue.get("depth").asLong(), queue.get("memoryBytes").asLong(), queue.get("paged").asLong(),
                    queue.get("pagedBytes").asLong(), server.get("memoryUsedBytes").asLong(),
                    server.get("memoryMaxBytes").asLong(), server.get("heapUsedBytes").asLong(),
                    server.get("heapMaxBytes").asLong(), server.get("directUsedBytes").asLong());
        }
    }

    /**
     * Asks the server at {@code url} until queue {@code queue} and its memory budget for messages each hold at most
     * {@code most} bytes, prints the figures then ({@code when} names the moment) and returns them; fails, with the
     * last answer, when they are not within {@code most} after {@link #PAGING_MILLIS}. A paged message holds its bytes
     * until the paging thread has written it (docs/resilience.md, "Paging"); an admin command that fails (a member
     * that has just taken over) is asked again.
     */
    static Figures awaitWithin(String url, String queue, long most, String when) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(PAGING_MILLIS);
        while (true) {
            FlowCommandAccess.Result q = run(url, "display", "queue", queue);
            FlowCommandAccess.Result s = run(url, "display", "server");
            String last;
            if (q.status() == 0 && s.status() == 0) {
                Figures figures = new Figures(result(q), result(s));
                if (figures.queue().get("memoryBytes").asLong() <= most
                        && figures.server().get("memoryUsedBytes").asLong() <= most) {
                    System.out.println(when + ": " + figures);
                    return figures;
                }
                last = figures.toString();
            } else {
                last = q.err() + q.out() + s.err() + s.out();
            }
            String answer = last;
            assertTrue(System.nanoTime() < deadline, () -> when + ": not within " + most + " bytes of memory after "
                    + PAGING_MILLIS + " ms: " + answer);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(ASK_EVERY_MILLIS)); // polls what the server reports
        }
    }

    /** {@code wharf admin --url URL --json display queue NAME}: the server's management view of the queue. */
    static JsonNode queue(String url, String name) throws Exception {
        FlowCommandAccess.Result r = run(url, "display", "queue", name);
        assertEquals(0, r.status(), r.err() + r.out());
        return result(r);
    }

    /** {@code wharf admin --url URL --json COMMAND}. */
    private static FlowCommandAccess.Result run(String url, String... command) {
        List<String> args = new ArrayList<>(List.of("admin", "--url", url, "--json"));
        args.addAll(List.of(command));
        return FlowCommandAccess.run(args.toArray(String[]::new));
    }

    private static JsonNode result(FlowCommandAccess.Result r) throws Exception {
        return JSON.readTree(r.out()).get("result");
    }
}
