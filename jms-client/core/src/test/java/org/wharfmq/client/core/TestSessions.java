package org.wharfmq.client.core;

import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.message.WireDestination;

/** Sessions, producers and consumption through the core's API alone, for the core's tests. */
final class TestSessions {
    private TestSessions() {
    }

    /** A session of {@code c} in {@code mode}, created on the server, with credit batches of 5 and no hooks. */
    static CoreSession open(CoreConnection c, int mode) throws ClientException {
        CoreSession session = new CoreSession(c, mode, 5, false, CoreSession.Hooks.NONE);
        session.open();
        return session;
    }

    /** A producer of {@code session} for {@code destination}, created on the server: its id. */
    static int producer(CoreSession session, WireDestination destination) throws ClientException {
        int producer = session.connection().nextProducerId();
        session.createProducer(producer, destination);
        return producer;
    }

    /** The user got {@code d}, just taken from {@code consumer}: its credit goes back, and the session counts it. */
    static void consume(CoreSession session, CoreConsumer consumer, Frame.Deliver d) {
        session.settlement().handOut(null, consumer.takenLink());
        consumer.consumed(d.deliveryId());
        session.settlement().received(consumer, d.deliveryId());
    }
}
