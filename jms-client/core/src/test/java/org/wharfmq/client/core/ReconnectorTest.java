package org.wharfmq.client.core;

import org.junit.jupiter.api.Test;
import org.wharfmq.client.core.transport.BrokerAddress;
import org.wharfmq.protocol.frame.ErrorCode;

import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A reconnection whose rounds a replica of a replicated queue manager answers NOT_ACTIVE (its group electing or taking
 * over) goes on shortly, and those rounds do not count against {@code reconnectAttempts}; a round of plain failures
 * waits the policy's interval.
 */
class ReconnectorTest {

    private static final BrokerAddress LOST = BrokerAddress.tcp("lost", 1);
    private static final BrokerAddress NEXT = BrokerAddress.tcp("next", 2);

    @Test
    void roundsAReplicaAnswersNotActiveComeShortlyAndAreNotCounted() throws Exception {
        // two attempts, a minute apart: six rounds of NOT_ACTIVE succeed within seconds only if they are neither
        // counted nor backed off
        Rounds rounds = new Rounds(6, ErrorCode.NOT_ACTIVE);
        new Reconnector(rounds, List.of(LOST, NEXT), new ReconnectPolicy(2, 60_000, 60_000),
                new ConnectedLink(1, null, LOST, "QM", 1024, null, 0, false),
                new ClientException("lost", null)).start();
        assertEquals(Reconnector.Step.DISCONNECTED, rounds.steps.poll(10, TimeUnit.SECONDS));
        assertEquals(Reconnector.Step.RECONNECTED, rounds.steps.poll(10, TimeUnit.SECONDS),
                "the reconnection waited out the interval, or gave up, while a replica answered NOT_ACTIVE");
        assertTrue(rounds.opened.get() >= 7 * 2 - 1, "rounds: " + rounds.opened.get());
    }

    @Test
    void roundsOfPlainFailuresCountAgainstTheAttempts() throws Exception {
        Rounds rounds = new Rounds(6, null);
        new Reconnector(rounds, List.of(LOST, NEXT), new ReconnectPolicy(2, 1, 1),
                new ConnectedLink(1, null, LOST, "QM", 1024, null, 0, false),
                new ClientException("lost", null)).start();
        assertEquals(Reconnector.Step.DISCONNECTED, rounds.steps.poll(10, TimeUnit.SECONDS));
        assertEquals(Reconnector.Step.FAILED, rounds.steps.poll(10, TimeUnit.SECONDS));
        assertEquals(4, rounds.opened.get(), "two attempts over two addresses");
    }

    /** The connection's side: the first {@code failing} rounds fail at each address with {@code code}. */
    private static final class Rounds implements Reconnector.Connection {
        final BlockingQueue<Reconnector.Step> steps = new LinkedBlockingQueue<>();
        final AtomicInteger opened = new AtomicInteger();
        private final int failing;
        private final ErrorCode code;

        Rounds(int failing, ErrorCode code) {
            this.failing = failing;
            this.code = code;
        }

        @Override
        public ConnectedLink open(BrokerAddress address) throws ClientException {
            int n = opened.incrementAndGet();
            if (n <= 2 * failing || address.equals(LOST)) {
                throw new ClientException(code, "refused by " + address + " (" + n + ")");
            }
            return new ConnectedLink(2, null, address, "QM", 1024, null, 0, false);
        }

        @Override
        public void reestablish(ConnectedLink next) {
        }

        @Override
        public void giveUp(ClientException why, Reconnector stopped) {
        }

        @Override
        public void failover(Reconnector.Step step, BrokerAddress address, int attempts, ClientException cause) {
            steps.add(step);
        }
    }
}
