package org.wharfmq.server.it;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import javax.jms.DeliveryMode;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.BitSet;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * AUTO_ACKNOWLEDGE across a crash of the client: a receiver in a process of its own ({@link AutoAckReceiverProcess})
 * takes messages from a full prefetch buffer, as fast as it can, and is killed with SIGKILL in mid-stream. Of what it
 * was handed, the server may deliver again only the last message (JMS 2.0 section 6.2.10): the acknowledgement of
 * each earlier one was in the socket before the next was handed out, however many the client took from its buffer
 * without waiting. Everything it was not handed comes again, once.
 */
@Tag("slow")
@Timeout(120)
class AutoAcknowledgeKillTest {

    private static final int MESSAGES = 20_000;
    /** The receiver is killed once it has printed this index. */
    private static final int KILL_AT = 2_000;

    @RegisterExtension
    static final WharfServerExtension WHARF = WharfServerExtension.withDefaults();

    @Test
    void aReceiverKilledMidStreamGetsAtMostItsLastMessageAgain() throws Exception {
        String queue = WHARF.queueName("autoack-kill");
        Session sending = WHARF.connect(Transport.TCP).createSession(true, Session.SESSION_TRANSACTED);
        MessageProducer producer = sending.createProducer(sending.createQueue(queue));
        producer.setDeliveryMode(DeliveryMode.NON_PERSISTENT);
        for (int i = 0; i < MESSAGES; i++) {
            Message m = sending.createTextMessage("m " + i);
            m.setIntProperty("index", i);
            producer.send(m);
            if (i % 1000 == 999) {
                sending.commit();
            }
        }
        sending.commit();

        Process receiver = AutoAckReceiverProcess.start(WHARF.server().tcpUrl(), queue);
        int lastHandedOut = -1;
        try (InputStream out = new BufferedInputStream(receiver.getInputStream())) {
            assertEquals("receiving", line(out), "the receiver's first line");
            for (String l; lastHandedOut < KILL_AT && (l = line(out)) != null; ) {
                lastHandedOut = Integer.parseInt(l);
            }
            receiver.toHandle().destroyForcibly(); // SIGKILL, while it takes messages from its buffer (Process's own
            // destroy would close the pipe, and with it what the receiver printed last)
            assertTrue(receiver.waitFor(30, TimeUnit.SECONDS), "the receiver did not die");
            for (String l; (l = line(out)) != null; ) { // what it printed before it died; a cut last line is left out
                lastHandedOut = Integer.parseInt(l);
            }
        }
        assertTrue(lastHandedOut >= KILL_AT && lastHandedOut < MESSAGES - 1,
                "killed in mid-stream, after handing out " + lastHandedOut);

        // the server takes back what the dead connection had not acknowledged: everything after the last message handed
        // out comes, and of what was handed out, at most the last (or, had it handed out the next one without printing
        // it yet, that one's predecessor), once
        MessageConsumer again = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE)
                .createConsumer(sending.createQueue(queue));
        BitSet received = new BitSet(MESSAGES);
        int expected = MESSAGES - 1 - lastHandedOut;
        int fromAfter = 0;
        while (fromAfter < expected) {
            Message m = again.receive(Receive.EXPECTED_MS);
            assertNotNull(m, "after " + received.cardinality() + " messages nothing more within " + Receive.EXPECTED_MS
                    + " ms; the last one handed out was " + lastHandedOut);
            int index = m.getIntProperty("index");
            assertFalse(received.get(index), "message " + index + " came twice");
            received.set(index);
            assertTrue(index >= lastHandedOut, "message " + index + " came again, though the receiver had been handed"
                    + " " + lastHandedOut + " after it: only the last message handed out may be delivered again");
            if (index > lastHandedOut) {
                fromAfter++;
            }
        }
        Receive.nothingMore(again); // PULL: the server has no other message on the queue
    }

    /** The next line of {@code in}, or null at its end, when a line cut short by the kill is left out. */
    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        for (int b; (b = in.read()) >= 0; ) {
            if (b == '\n') {
                return line.toString(StandardCharsets.UTF_8).trim();
            }
            line.write(b);
        }
        return null;
    }
}
