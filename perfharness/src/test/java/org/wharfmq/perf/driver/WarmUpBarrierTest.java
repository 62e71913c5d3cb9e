package org.wharfmq.perf.driver;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.perf.options.PerfOptions;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.config.ServerConfig;

import javax.jms.BytesMessage;
import javax.jms.Connection;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A first operation slower than the whole run (F-WRITE's first XML write in a JVM under load) must not leave the run
 * with nothing measured: the warm-up waits for every worker's first operation to end.
 */
class WarmUpBarrierTest {

    private static WharfServer server;

    @BeforeAll
    static void startServer(@TempDir Path data) throws Exception {
        server = WharfServer.start(ServerConfig.builder().host("127.0.0.1").port(0).inVmName("perf-warm-up")
                .dataDirectory(data).build());
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    /**
     * A 1 s run without a warm-up whose first request the responder answers only once the driver has printed the
     * statistics of its first second (the end of the run, without the barrier): the round trips after it are
     * measured.
     */
    @Test
    void aFirstRoundTripLongerThanTheRunIsWarmUpAndTheRoundTripsAfterItAreMeasured() throws Exception {
        CountDownLatch firstSecondReported = new CountDownLatch(1);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread responder = new Thread(() -> {
            try (Connection c = new WharfConnectionFactory(server.vmUrl()).createConnection()) {
                c.start();
                Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
                MessageConsumer requests = s.createConsumer(s.createQueue("WARM.REQUEST"));
                MessageProducer replies = s.createProducer(null);
                boolean first = true;
                while (!stop.get()) {
                    Message request = requests.receive(100);
                    if (request == null) {
                        continue;
                    }
                    if (first && !firstSecondReported.await(120, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("the driver printed no statistics in 120 s");
                    }
                    first = false;
                    BytesMessage reply = s.createBytesMessage();
                    reply.writeBytes(new byte[16]);
                    reply.setJMSCorrelationID(request.getJMSMessageID());
                    reply.setObjectProperty(Tags.SEQUENCE, request.getObjectProperty(Tags.SEQUENCE));
                    replies.send(request.getJMSReplyTo(), reply);
                }
            } catch (Exception e) {
                failure.set(e);
            }
        }, "slow-first-responder");
        responder.start();
        try {
            PerfOptions options = PerfOptions.parse(new String[] {"-tc", "jms.r11.Requestor", "-nt", "1", "-rl", "1",
                    "-sw", "0", "-ss", "1", "-to", "120", "-ms", "16", "-mt", "bytes", "-iq", "WARM.REQUEST",
                    "-oq", "WARM.REPLY", "-url", server.vmUrl()});
            DriverResult r = new Driver(options, new PrintStream(new LineWatch("rate=", firstSecondReported), true,
                    StandardCharsets.UTF_8)).run();
            assertTrue(r.passed(), r.problems().toString());
            assertTrue(r.measuredIterations() > 0, "round trips after the slow first one were measured: " + r.perSecond());
            assertTrue(r.latencyMicros().count() > 0, "and timed");
        } finally {
            stop.set(true);
            responder.join();
        }
        assertNull(failure.get());
    }

    /** Counts {@code latch} down at the first line containing {@code text}. */
    private static final class LineWatch extends OutputStream {
        private final String text;
        private final CountDownLatch latch;
        private final ByteArrayOutputStream line = new ByteArrayOutputStream();

        LineWatch(String text, CountDownLatch latch) {
            this.text = text;
            this.latch = latch;
        }

        @Override
        public synchronized void write(int b) {
            if (b != '\n') {
                line.write(b);
                return;
            }
            if (line.toString(StandardCharsets.UTF_8).contains(text)) {
                latch.countDown();
            }
            line.reset();
        }
    }
}
