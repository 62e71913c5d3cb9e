package org.wharfmq.client.core;

import java.util.concurrent.atomic.AtomicInteger;

/** A core session's hooks for the core's tests: count what the connection tells the session. */
final class CountingHooks implements CoreSession.Hooks {
    final AtomicInteger linksLost = new AtomicInteger();
    final AtomicInteger connectionsLost = new AtomicInteger();
    final AtomicInteger closed = new AtomicInteger();

    @Override
    public void onLinkLost() {
        linksLost.incrementAndGet();
    }

    @Override
    public void onConnectionLost() {
        connectionsLost.incrementAndGet();
    }

    @Override
    public void closing() {
        closed.incrementAndGet();
    }
}
