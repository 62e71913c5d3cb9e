package org.wharfmq.client.core;

import org.wharfmq.protocol.frame.Frame;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A session as its core connection sees it, for the core's tests: its consumers settled by a {@link CoreSettlement}
 * (transacted, or in CLIENT_ACKNOWLEDGE mode), created again after a reconnection, counting what the connection tells
 * it.
 */
final class TestSession implements SessionMember {
    final CoreConnection connection;
    final int id;
    final boolean transacted;
    /** Acknowledgement and transactions, which hold the session's consumers. */
    final CoreSettlement settlement;
    final AtomicInteger created = new AtomicInteger();
    final AtomicInteger linksLost = new AtomicInteger();
    final AtomicInteger connectionsLost = new AtomicInteger();
    final AtomicInteger closed = new AtomicInteger();

    /** A transacted session, or one in CLIENT_ACKNOWLEDGE mode, of {@code connection}; not yet created. */
    TestSession(CoreConnection connection, boolean transacted) {
        this.connection = connection;
        this.id = connection.nextSessionId();
        this.transacted = transacted;
        this.settlement = new CoreSettlement(connection, new CoreSettlement.Session() {
            @Override
            public boolean isClosing() {
                return closed.get() > 0;
            }

            @Override
            public boolean isClosed() {
                return closed.get() > 0;
            }

            @Override
            public void forgetHandedOn() {
            }
        }, id, transacted ? CoreSettlement.SESSION_TRANSACTED : CoreSettlement.CLIENT_ACKNOWLEDGE, 5);
    }

    @Override
    public int id() {
        return id;
    }

    @Override
    public boolean isClosing() {
        return closed.get() > 0;
    }

    @Override
    public Frame createFrame(int requestId) {
        created.incrementAndGet();
        return new Frame.CreateSession(requestId, id, transacted,
                transacted ? CoreSettlement.SESSION_TRANSACTED : CoreSettlement.CLIENT_ACKNOWLEDGE);
    }

    @Override
    public void reattachConsumers(ConnectedLink next, List<Reestablishing> pending) {
        for (CoreConsumer c : settlement.consumers()) {
            if (c.reattach(next)) {
                pending.add(Reestablishing.of(connection, next, c::createFrame, "CREATE_CONSUMER",
                        error -> c.failed(error.code(), error.message())));
            }
        }
    }

    @Override
    public void onProducerCredit(int generation, int bytes) {
    }

    @Override
    public void onAsyncSendError(Frame.Error error) {
    }

    @Override
    public void connectionStarted() throws ClientException {
        for (CoreConsumer c : settlement.consumers()) {
            c.grantWithheldCredit();
            c.wake();
        }
    }

    @Override
    public void awaitIdle() {
    }

    @Override
    public void onLinkLost() {
        linksLost.incrementAndGet();
        settlement.linkLost();
    }

    @Override
    public void onConnectionLost() {
        connectionsLost.incrementAndGet();
        settlement.consumers().forEach(CoreConsumer::releaseBuffer);
        settlement.consumers().forEach(CoreConsumer::wake);
    }

    @Override
    public void wakeAll() {
        settlement.consumers().forEach(CoreConsumer::wake);
    }

    @Override
    public void closeForConnection() {
        closed.incrementAndGet();
        settlement.consumers().forEach(CoreConsumer::close);
    }
}
