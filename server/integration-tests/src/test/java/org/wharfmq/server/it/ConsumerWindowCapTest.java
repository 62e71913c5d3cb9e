package org.wharfmq.server.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.wharfmq.client.core.ClientConfiguration;
import org.wharfmq.protocol.ProtocolVersion;
import org.wharfmq.protocol.frame.Frame;

import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.Session;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * A server whose maxConsumerWindowBytes (1 MiB) is below half the client's default consumerWindowBytes (8 MiB): the
 * server stops sending at its cap, so a client that returned credit by half of its own window would never return any,
 * and its blocking receive would wait for ever. HELLO_OK tells a version 3 client the cap (docs/protocol.md,
 * "Consuming"), by half of which its credit goes back; a version 2 HELLO_OK says nothing of it, as before.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ConsumerWindowCapTest {

    private static final int CAP = 1024 * 1024;

    @RegisterExtension
    static final WharfServerExtension WHARF = WharfServerExtension.configured(c -> c.maxConsumerWindowBytes(CAP));

    /** 150 messages of 10 KB (1.5 MB, past the cap) wait; a consumer of the client's defaults receives all of them. */
    @Test
    void aDefaultConsumerReceivesEverythingPastAServerCapBelowHalfItsWindow() throws Exception {
        assertEquals(8 * 1024 * 1024, ClientConfiguration.DEFAULT_CONSUMER_WINDOW_BYTES,
                "the client's default window is more than twice the cap");
        String name = WHARF.queueName("capped");
        int count = 150;
        LargeMessages.put(WHARF, name, count, 10_000);
        Session session = WHARF.startedSession(WHARF.server().tcpUrl());
        MessageConsumer consumer = session.createConsumer(session.createQueue(name));
        for (int i = 0; i < count; i++) {
            Message m = consumer.receive(Receive.EXPECTED_MS);
            int received = i;
            assertNotNull(m, () -> "message " + received + " of " + count + " did not come within "
                    + Receive.EXPECTED_MS + " ms: the consumer stalled at the server's maxConsumerWindowBytes " + CAP
                    + " (its credit not returned by half of the window the server granted)");
            assertEquals(i, LargeMessages.assertIntact(m), "the messages in the order sent");
        }
        Receive.nothingMore(consumer);
    }

    /** A version 3 HELLO_OK says the cap; a version 2 one does not (its bytes as before version 3). */
    @Test
    void helloOkSaysTheCapOnlyToAVersionThreeClient() throws Exception {
        try (RawFrameClient v3 = RawFrameClient.connect(WHARF.server().tcpPort())) {
            Frame.HelloOk ok = v3.handshake(ProtocolVersion.CURRENT);
            assertEquals(ProtocolVersion.CURRENT, ok.version());
            assertEquals(CAP, ok.maxConsumerWindowBytes(), "a version 3 HELLO_OK says maxConsumerWindowBytes");
        }
        try (RawFrameClient v2 = RawFrameClient.connect(WHARF.server().tcpPort())) {
            Frame.HelloOk ok = v2.handshake(ProtocolVersion.OLDEST);
            assertEquals(ProtocolVersion.OLDEST, ok.version());
            assertEquals(0, ok.maxConsumerWindowBytes(), "a version 2 HELLO_OK has no trailing cap");
            assertEquals(0, ok.flags(), "nor the flags the cap would have written");
        }
    }
}
