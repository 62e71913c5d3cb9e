package org.wharfmq.client.core;

import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.protocol.message.WireMessage;

import java.nio.charset.StandardCharsets;

/** Messages in the protocol's encoding for the core's tests: a text body out, the text of a delivery back. */
final class TestMessages {
    private TestMessages() {
    }

    /** A message whose body is {@code text}: persistent (a send outside a transaction waits for the server) or not. */
    static WireMessage message(String text, boolean persistent) {
        WireMessage m = new WireMessage();
        m.persistent = persistent;
        m.body = text.getBytes(StandardCharsets.UTF_8);
        return m;
    }

    /** Sends a persistent {@code text} to {@code destination}: outside a transaction, once the server has it. */
    static void send(CoreSession session, int producer, WireDestination destination, String text) throws ClientException {
        session.sender().send(producer, destination, message(text, true), CoreSender.WIRE_MESSAGE, true, null);
    }

    /** A message received through {@link CoreConsumer#receive}: its text and delivery count, 2 or more when redelivered. */
    static final class Received {
        final String text;
        final long deliveryId;
        int deliveryCount;

        Received(String text, long deliveryId, int deliveryCount) {
            this.text = text;
            this.deliveryId = deliveryId;
            this.deliveryCount = deliveryCount;
        }
    }

    /** Makes a {@link Received} of a delivery; no message id, so the core's ledger knows none again. */
    static final CoreConsumer.Decoder<Received> RECEIVED = new CoreConsumer.Decoder<>() {
        @Override
        public Received decode(Frame.Deliver delivery) {
            return new Received(new String(WireMessage.decode(delivery.message()).body, StandardCharsets.UTF_8),
                    delivery.deliveryId(), delivery.deliveryCount());
        }

        @Override
        public String messageId(Received message) {
            return null;
        }

        @Override
        public void markRedelivered(Received message) {
            message.deliveryCount = Math.max(2, message.deliveryCount);
        }
    };

    /** The body of a delivered message as text; releases the delivery's buffer. */
    static String text(Frame.Deliver d) {
        try {
            return new String(WireMessage.decode(d.message()).body, StandardCharsets.UTF_8);
        } finally {
            d.message().release();
        }
    }
}
