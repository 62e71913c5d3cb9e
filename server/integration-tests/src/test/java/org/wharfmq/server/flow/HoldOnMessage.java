package org.wharfmq.server.flow;

import org.wharfmq.flow.JavaComputeNode;
import org.wharfmq.flow.MessageAssembly;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Test compute node: passes messages on to {@code out}, and holds the one whose {@code seq} property is the chosen one
 * until the test releases it ({@link #release}); {@link #arrived} tells the test that invocation is being held.
 */
final class HoldOnMessage extends JavaComputeNode {

    final CountDownLatch arrived = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    private final int holding;

    HoldOnMessage(int holding) {
        this.holding = holding;
    }

    @Override
    public void evaluate(MessageAssembly assembly) throws Exception {
        Object seq = assembly.message().userProperty("seq");
        if (seq != null && ((Number) seq).intValue() == holding) {
            arrived.countDown();
            if (!release.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the test never released message " + holding);
            }
        }
        propagate("out", assembly);
    }
}
