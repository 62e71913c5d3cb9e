package org.wharfmq.server.flow;

import org.wharfmq.flow.FlowMessage;
import org.wharfmq.flow.JavaComputeNode;
import org.wharfmq.flow.MessageAssembly;

/**
 * Test compute node: copies the message, marks it, propagates it to {@code out}, and then fails when the message's
 * {@code seq} property is the chosen one, or (with {@code firstDeliveryOnly}) only on the first delivery. The
 * output sent before the failure must vanish with the rollback of a transactional invocation.
 */
final class FailOnMessage extends JavaComputeNode {

    private final int failingSeq;
    private final boolean firstDeliveryOnly;

    FailOnMessage(int failingSeq, boolean firstDeliveryOnly) {
        this.failingSeq = failingSeq;
        this.firstDeliveryOnly = firstDeliveryOnly;
    }

    @Override
    public void evaluate(MessageAssembly assembly) throws Exception {
        MessageAssembly out = assembly.copy();
        int attempt = ((Number) assembly.message().headers().get(FlowMessage.JMSX_DELIVERY_COUNT)).intValue();
        out.message().setUserProperty("attempt", attempt);
        propagate("out", out);
        Object seq = assembly.message().userProperty("seq");
        boolean chosen = failingSeq < 0 || (seq != null && ((Number) seq).intValue() == failingSeq);
        if (chosen && (!firstDeliveryOnly || attempt == 1)) {
            throw new IllegalStateException("boom on seq " + seq + " attempt " + attempt);
        }
    }
}
