package org.wharfmq.client.core;

import org.wharfmq.protocol.message.WireDestination;

/** Sessions, producers and receiving through the core's API alone, for the core's tests. */
final class TestSessions {
    private TestSessions() {
    }

    /** A session of {@code c} in {@code mode}, created on the server, with a window of 10 (credit batches of 5) and no hooks. */
    static CoreSession open(CoreConnection c, int mode) throws ClientException {
        CoreSession session = new CoreSession(c, mode, 10, false, CoreSession.Hooks.NONE);
        session.open();
        return session;
    }

    /** A producer of {@code session} for {@code destination}, created on the server: its id. */
    static int producer(CoreSession session, WireDestination destination) throws ClientException {
        int producer = session.connection().nextProducerId();
        session.createProducer(producer, destination);
        return producer;
    }

    /** The next message of {@code consumer}, waiting up to {@code timeoutNanos}, consumed and settled; or null. */
    static TestMessages.Received receive(CoreConsumer consumer, long timeoutNanos) throws ClientException {
        return consumer.receive(timeoutNanos, false, TestMessages.RECEIVED);
    }

    /** A message already queued for {@code consumer} (it asks the server with a PULL), consumed and settled; or null. */
    static TestMessages.Received receiveNoWait(CoreConsumer consumer) throws ClientException {
        return consumer.receive(0, true, TestMessages.RECEIVED);
    }
}
