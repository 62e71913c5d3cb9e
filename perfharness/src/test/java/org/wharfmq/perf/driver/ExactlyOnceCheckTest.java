package org.wharfmq.perf.driver;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.perf.options.PerfOptions;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.config.ServerConfig;

import javax.jms.BytesMessage;
import javax.jms.Connection;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The exactly-once checks catch a reply that never comes and a reply that comes twice; a rated requester that fell
 * behind a slow reply times the requests it owes from when they were due.
 */
class ExactlyOnceCheckTest {

    private static WharfServer server;

    @BeforeAll
    static void startServer(@TempDir Path data) throws Exception {
        server = WharfServer.start(ServerConfig.builder().host("127.0.0.1").port(0).inVmName("perf-exactly-once").dataDirectory(data).build());
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    private enum Fault {
        NONE, DROP_THIRD_REQUEST, ANSWER_SECOND_REQUEST_TWICE, ANSWER_THIRD_REQUEST_LATE, STOP_AFTER_SECOND_REQUEST,
        /** A slow server: request {@link #HELD_REQUEST} is answered {@link #HOLD_MILLIS} after it came. */
        HOLD_A_REQUEST
    }

    /**
     * The request {@link Fault#HOLD_A_REQUEST} holds, by its arrival: the 51st, at 20 requests a second due 2.5 s after
     * the first, in the measured period (which begins at the first whole second after the first reply).
     */
    private static final int HELD_REQUEST = 51;
    /** How long {@link Fault#HOLD_A_REQUEST} holds its reply. */
    private static final long HOLD_MILLIS = 2_000;

    /** A responder like the harness's own, except for the fault it is told to make. */
    private static Thread responder(String requestQueue, Fault fault, AtomicBoolean stop, List<Throwable> errors) {
        Thread t = new Thread(() -> {
            try (Connection c = new WharfConnectionFactory(server.vmUrl()).createConnection()) {
                c.start();
                Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
                MessageConsumer requests = s.createConsumer(s.createQueue(requestQueue));
                MessageProducer replies = s.createProducer(null);
                int n = 0;
                Message held = null;
                while (!stop.get()) {
                    if (fault == Fault.STOP_AFTER_SECOND_REQUEST && n == 2) {
                        requests.close();   // an overloaded server: the later requests wait on the queue, unread
                        break;
                    }
                    Message request = requests.receive(100);
                    if (request == null) {
                        continue;
                    }
                    n++;
                    if (fault == Fault.DROP_THIRD_REQUEST && n == 3) {
                        continue;
                    }
                    if (fault == Fault.HOLD_A_REQUEST && n == HELD_REQUEST) {
                        Thread.sleep(HOLD_MILLIS);   // the fault itself, a slow reply, not a synchronisation
                    }
                    if (fault == Fault.ANSWER_THIRD_REQUEST_LATE && n == 3) {
                        held = request;   // answered once the requester has given up on it and sent the fourth
                        continue;
                    }
                    if (held != null) {
                        replies.send(held.getJMSReplyTo(), reply(s, held));
                        held = null;
                    }
                    int copies = fault == Fault.ANSWER_SECOND_REQUEST_TWICE && n == 2 ? 2 : 1;
                    for (int i = 0; i < copies; i++) {
                        replies.send(request.getJMSReplyTo(), reply(s, request));
                    }
                }
            } catch (JMSException | RuntimeException e) {
                errors.add(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                errors.add(e);
            }
        }, "faulty-responder");
        t.start();
        return t;
    }

    private static Message reply(Session s, Message request) throws JMSException {
        BytesMessage reply = s.createBytesMessage();
        reply.writeBytes(new byte[16]);
        String correlationId = request.getJMSCorrelationID();
        reply.setJMSCorrelationID(correlationId != null ? correlationId : request.getJMSMessageID());
        for (String tag : new String[] {Tags.SEQUENCE, Tags.RUN, Tags.SOURCE}) {
            reply.setObjectProperty(tag, request.getObjectProperty(tag));
        }
        return reply;
    }

    /** Runs one requester; {@code timeoutSeconds} is generous except where a loss must be waited for. */
    private static DriverResult runRequestor(Fault fault, String queue, int timeoutSeconds, String... extra) throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        List<Throwable> errors = new ArrayList<>();
        Thread responder = responder(queue, fault, stop, errors);
        try {
            List<String> args = new ArrayList<>(List.of("-tc", "jms.r11.Requestor", "-nt", "1", "-rl", runSeconds(fault, timeoutSeconds), "-to", Integer.toString(timeoutSeconds),
                    "-ss", "0", "-ms", "16", "-mt", "bytes", "-iq", queue, "-oq", queue + ".REPLY", "-url", server.vmUrl()));
            args.addAll(List.of(extra));
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            DriverResult r = new Driver(PerfOptions.parse(args.toArray(String[]::new)), new PrintStream(out, true, StandardCharsets.UTF_8)).run();
            assertTrue(out.toString(StandardCharsets.UTF_8).contains("totalIterations="), "prints the JMSPerfHarness summary");
            return r;
        } finally {
            stop.set(true);
            responder.join();
            assertTrue(errors.isEmpty(), "responder failed: " + errors);
        }
    }

    /**
     * 1 s after the driver's warm-up, which lasts until the first reply (the second request's, doubled, is answered
     * at once); long enough for the third request to be sent on a loaded machine where it is dropped (the requester
     * waits for its reply past the end of the run); and where it is answered late, for the requester to give up on it
     * and send the next, which the responder's late answer follows; where a request is held, for it to come in the
     * measured period and the requester to catch up after it within that period.
     */
    private static String runSeconds(Fault fault, int timeoutSeconds) {
        return Integer.toString(switch (fault) {
            case DROP_THIRD_REQUEST, STOP_AFTER_SECOND_REQUEST -> 2 + timeoutSeconds;
            case ANSWER_THIRD_REQUEST_LATE -> 2 + 2 * timeoutSeconds;
            case HOLD_A_REQUEST -> 5;
            default -> 1;
        });
    }

    @Test
    void aFaithfulResponderPasses() throws Exception {
        DriverResult r = runRequestor(Fault.NONE, "EO.CLEAN", 10);
        assertTrue(r.passed(), r.problems().toString());
        assertTrue(r.totalIterations() > 3);
        assertEquals(0, r.losses());
        assertEquals(0, r.duplicates());
    }

    /** A reply that never comes is a loss, counted once the requester has waited for it past the end of the run. */
    @Test
    void aLostReplyFailsTheRun() throws Exception {
        DriverResult r = runRequestor(Fault.DROP_THIRD_REQUEST, "EO.LOSS", 1);
        assertFalse(r.passed());
        assertEquals(1, r.losses(), r.problems().toString());
        assertTrue(r.problems().contains("loss: no reply within 1 s to request 2 of " + r.processId()
                + "-Requestor-0, nor later by the end of the run"), r.problems().toString());
    }

    /**
     * Requests that the responders never reached (an overloaded server: here they stop reading after the second) are
     * still on the request queue when the run ends: not losses, the run passes, and they are counted as still queued.
     * The requester went on after each timeout, so more than one request waits there; the driver finds each by
     * browsing the request queue for its run. Before, each was counted a loss.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void requestsStillQueuedWhenTheRunEndsAreNotLosses(boolean correlationIdPerThread) throws Exception {
        String queue = correlationIdPerThread ? "EO.QUEUED.CORREL" : "EO.QUEUED.MSGID";
        DriverResult r = runRequestor(Fault.STOP_AFTER_SECOND_REQUEST, queue, 2, "-co", Boolean.toString(correlationIdPerThread));
        assertTrue(r.passed(), r.problems().toString());
        assertEquals(0, r.losses(), r.problems().toString());
        assertTrue(r.stillQueued() >= 1, "the requests after the second are still queued: " + r);
        assertEquals(r.stillQueued(), r.queuedAtEnd());
        assertEquals(r.totalIterations() + r.late() + r.stillQueued(), r.operationsBegun());
        try (Connection c = new WharfConnectionFactory(server.vmUrl()).createConnection()) {
            Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            int queued = java.util.Collections.list(s.createBrowser(s.createQueue(queue)).getEnumeration()).size();
            assertEquals(r.stillQueued(), queued, "every request the driver counted as still queued is on the queue");
        }
    }

    @Test
    void aDuplicateReplyFailsTheRunWhenRepliesArePickedByMessageId() throws Exception {
        DriverResult r = runRequestor(Fault.ANSWER_SECOND_REQUEST_TWICE, "EO.DUP.MSGID", 10);
        assertFalse(r.passed());
        assertEquals(1, r.duplicates(), r.problems().toString());
        assertEquals(0, r.losses());
    }

    @Test
    void aDuplicateReplyFailsTheRunWithOneCorrelationIdPerThread() throws Exception {
        DriverResult r = runRequestor(Fault.ANSWER_SECOND_REQUEST_TWICE, "EO.DUP.CORREL", 10, "-co", "true");
        assertFalse(r.passed());
        assertEquals(1, r.duplicates(), r.problems().toString());
        assertEquals(0, r.losses());
    }

    /**
     * A reply later than the timeout (a cold flow's first invocation on a loaded machine) was answered: late, neither
     * a loss nor a duplicate, and the run passes. Picked by message id, the late reply is left on the shared reply
     * queue and the driver's look for strays meets it; with one correlation id per thread the requester meets it
     * while waiting for the next reply.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aReplyLaterThanTheTimeoutIsLateNotLost(boolean correlationIdPerThread) throws Exception {
        DriverResult r = runRequestor(Fault.ANSWER_THIRD_REQUEST_LATE, correlationIdPerThread ? "EO.LATE.CORREL" : "EO.LATE.MSGID",
                1, "-co", Boolean.toString(correlationIdPerThread));
        assertTrue(r.passed(), r.problems().toString());
        // on a loaded machine another reply may also miss the 1 s
        assertTrue(r.late() >= 1, "late " + r.late());
        assertEquals(0, r.losses());
        assertEquals(0, r.duplicates());
        assertTrue(r.totalIterations() > 2, "the requester went on after the overdue request (and the late reply was sent): "
                + r.totalIterations());
    }

    /**
     * A requester at 20 round trips/s whose 51st request is answered 2 s late has fallen 40 requests behind; it sends
     * them at once (the rate is caught up, not lost), and each waited from when it was due: a request due k x 50 ms
     * after the held one is answered no earlier than the held reply, 2 s after the held one was due, so the 20 due in
     * the hold's first second took 1 s or more, however fast the machine (10 at least, should the measured period begin
     * as late as 3 s in). Timed from their late sends, as before, only the held round trip took a second: the
     * catch-up's round trips are each a few milliseconds.
     */
    @Test
    void aRatedRequesterThatFellBehindTimesTheRequestsItOwesFromWhenTheyWereDue() throws Exception {
        DriverResult r = runRequestor(Fault.HOLD_A_REQUEST, "EO.BEHIND", 10, "-rt", "20");
        assertTrue(r.passed(), r.problems().toString());
        assertEquals(0, r.late(), "the held reply came within the timeout");
        org.HdrHistogram.Histogram latencies = LatencyHistograms.decode(r.latencyHistogram());
        long secondOrMore = latencies.getCountBetweenValues(1_000_000, latencies.getMaxValue());
        assertTrue(secondOrMore >= 10, secondOrMore + " round trips of 1 s or more, of " + latencies.getTotalCount()
                + " (p50 " + r.latencyMicros().p50() + " us, max " + latencies.getMaxValue() + " us)");
        assertTrue(latencies.getMaxValue() >= HOLD_MILLIS * 1000 - 50_000, "the held request's own wait: " + latencies.getMaxValue());
    }

    @Test
    void aReceiverCountsADuplicateMessageOnce() {
        SequenceLedger ledger = new SequenceLedger();
        assertTrue(ledger.record("Q/p-0", 0));
        assertTrue(ledger.record("Q/p-0", 1));
        assertFalse(ledger.record("Q/p-0", 1), "the second arrival of 1 is a duplicate");
        assertTrue(ledger.record("Q/p-1", 1), "sources are independent");
        assertEquals(2L, ledger.counts().get("Q/p-0"));
    }
}
