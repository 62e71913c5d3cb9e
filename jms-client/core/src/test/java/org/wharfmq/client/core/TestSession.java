package org.wharfmq.client.core;

import org.wharfmq.protocol.frame.Frame;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A session as its core connection sees it, for the core's tests: created again after a reconnection with its
 * consumers, and counting what the connection tells it.
 */
final class TestSession implements SessionMember {
    final CoreConnection connection;
    final int id;
    final boolean transacted;
    final List<CoreConsumer> consumers = new CopyOnWriteArrayList<>();
    final AtomicInteger created = new AtomicInteger();
    final AtomicInteger linksLost = new AtomicInteger();
    final AtomicInteger connectionsLost = new AtomicInteger();
    final AtomicInteger closed = new AtomicInteger();

    /** A transacted session, or one in CLIENT_ACKNOWLEDGE mode, of {@code connection}; not yet created. */
    TestSession(CoreConnection connection, boolean transacted) {
        this.connection = connection;
        this.id = connection.nextSessionId();
        this.transacted = transacted;
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
        return new Frame.CreateSession(requestId, id, transacted, transacted ? 0 : 2);
    }

    @Override
    public void reattachConsumers(ConnectedLink next, List<Reestablishing> pending) {
        for (CoreConsumer c : consumers) {
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
        for (CoreConsumer c : consumers) {
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
        consumers.forEach(CoreConsumer::linkLost);
    }

    @Override
    public void onConnectionLost() {
        connectionsLost.incrementAndGet();
        consumers.forEach(CoreConsumer::releaseBuffer);
        consumers.forEach(CoreConsumer::wake);
    }

    @Override
    public void wakeAll() {
        consumers.forEach(CoreConsumer::wake);
    }

    @Override
    public void closeForConnection() {
        closed.incrementAndGet();
        consumers.forEach(CoreConsumer::close);
    }
}
