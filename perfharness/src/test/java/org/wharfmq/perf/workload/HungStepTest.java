package org.wharfmq.perf.workload;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.perf.driver.Driver;
import org.wharfmq.perf.driver.DriverResult;
import org.wharfmq.perf.driver.LatencySummary;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A process of one server's step that hangs (ActiveMQ Classic's responders failing their commits at 100 MB left its
 * requesters waiting for replies) fails that server's step with the reason; the next server's step still runs, so a
 * report's row keeps the servers that did run instead of failing as a whole. The runner's processes are stand-ins
 * here: what is tested is how the runner waits for them.
 */
class HungStepTest {

    private static final String COMMIT_REFUSED = "resp-0 failed: javax.jms.TransactionRolledBackException: COMMIT FAILED: "
            + "Transaction marked rollback only";

    @Test
    void aHungProcessFailsItsServersStepAndTheNextServerStillRuns(@TempDir Path out) throws Exception {
        RunCommand.Parsed parsed = RunCommand.parse(new String[]{"RR-4", "--sizes", "2k", "--requesters", "1",
                "--responders", "1", "--warmup", "1", "--run-length", "1", "--out", out.toString()}, false);
        List<String> launched = new ArrayList<>();
        Launcher clientsHang = (name, args) -> {
            launched.add(name);
            return name.endsWith("-server") ? FakeProcess.server(name) : FakeProcess.neverReady(name);
        };

        List<StepResult> steps = RunCommand.execute(parsed.settings(), List.of(Target.ARTEMIS, Target.CLASSIC),
                clientsHang, line -> { });

        assertEquals(List.of("Artemis", "ActiveMQ Classic"), steps.stream().map(StepResult::target).toList(), "steps: " + steps);
        for (StepResult s : steps) {
            assertFalse(s.passed(), s.toString());
            assertEquals(1, s.problems().size(), s.toString());
            assertTrue(s.problems().get(0).contains("did not print"), s.problems().toString());
        }
        assertTrue(launched.contains("artemis-server") && launched.contains("classic-server"), launched.toString());
    }

    /**
     * Responders that fail (their commits refused) end their JVM while the requesters wait for replies that will not
     * come: the step ends then, with the responders' reason, without waiting for the requesters' timeout, and the
     * requesters are ended; the next server's step runs.
     */
    @Test
    void aBackgroundDriverThatEndsDuringTheRunEndsTheStepWithItsReason(@TempDir Path out) throws Exception {
        RunCommand.Parsed parsed = RunCommand.parse(new String[]{"RR-4", "--sizes", "2k", "--requesters", "1",
                "--responders", "1", "--warmup", "1", "--run-length", "1", "--out", out.toString()}, false);
        List<FakeProcess> launched = new CopyOnWriteArrayList<>();
        Launcher respondersFail = (name, args) -> {
            FakeProcess p = name.endsWith("-server") ? FakeProcess.server(name)
                    : name.equals("resp") ? FakeProcess.failedAfterReady(name, Path.of(args.get(args.indexOf("-jo") + 1)))
                    : FakeProcess.readyAndRunning(name);
            launched.add(p);
            return p;
        };

        List<StepResult> steps = RunCommand.execute(parsed.settings(), List.of(Target.CLASSIC, Target.ARTEMIS),
                respondersFail, line -> { });

        assertEquals(List.of("ActiveMQ Classic", "Artemis"), steps.stream().map(StepResult::target).toList(), "steps: " + steps);
        for (StepResult s : steps) {
            assertFalse(s.passed(), s.toString());
            assertEquals(List.of("resp ended during the run, before it was asked to stop: " + COMMIT_REFUSED), s.problems());
        }
        List<FakeProcess> requesters = launched.stream().filter(p -> p.name.equals("req")).toList();
        assertEquals(2, requesters.size(), "a requester per server: " + launched);
        assertTrue(requesters.stream().allMatch(p -> p.closed), "the waiting requesters were ended");
    }

    /**
     * A subscriber taking PS-T's dummy subscriptions is waited for as long as the server goes on confirming them,
     * however long that takes, and when the server stops confirming, the step fails naming the count it reached.
     */
    @Test
    void aSubscriberIsWaitedForWhileTheServerConfirmsItsDummySubscriptions() throws Exception {
        FakeProcess progressing = FakeProcess.subscriber("sub1", List.of(
                Driver.DUMMIES_LINE + " confirmed=500 of=10000", Driver.DUMMIES_LINE + " confirmed=1000 of=10000",
                Driver.DUMMIES_LINE + " confirmed=10000 of=10000", Driver.READY_LINE));
        WorkloadRunner.awaitReady(progressing, Target.ARTEMIS, Duration.ofSeconds(1));
        assertEquals(4, progressing.printed, "ready after every confirmation");

        FakeProcess stalled = FakeProcess.subscriber("sub1", List.of(
                Driver.DUMMIES_LINE + " confirmed=500 of=10000", Driver.DUMMIES_LINE + " confirmed=3500 of=10000"));
        TimeoutException e = assertThrows(TimeoutException.class,
                () -> WorkloadRunner.awaitReady(stalled, Target.CLASSIC, Duration.ofSeconds(1)));
        assertTrue(e.getMessage().startsWith("ActiveMQ Classic could not be made ready: it confirmed 3,500 of the 10,000 "
                + "dummy subscriptions, then none more within 1 s"), e.getMessage());

        FakeProcess noDummies = FakeProcess.subscriber("sub1", List.of());
        TimeoutException plain = assertThrows(TimeoutException.class,
                () -> WorkloadRunner.awaitReady(noDummies, Target.WHARF, Duration.ofSeconds(1)));
        assertTrue(plain.getMessage().contains("did not print '" + Driver.READY_LINE + "'"), plain.getMessage());
    }

    /**
     * A server still starting (its journal opened, its listener bound: a line within each wait) is waited for until it
     * is ready; one that stops printing fails after one wait with no line, naming what it printed last.
     */
    @Test
    void aServerIsWaitedForWhileItGoesOnStartingAndFailsWhenItFallsSilent() throws Exception {
        String ready = ServerMain.READY_PREFIX + " tcp=tcp://127.0.0.1:1";
        FakeProcess starting = FakeProcess.subscriber("wharf-server", List.of("INFO: Journal recovered in 58.9 s",
                "INFO: Queue manager WHARF listening", ready));
        assertEquals(ready, WorkloadRunner.awaitStarted(starting, Duration.ofSeconds(1)));
        FakeProcess silent = FakeProcess.subscriber("wharf-server", List.of("INFO: Journal recovered in 58.9 s"));
        TimeoutException e = assertThrows(TimeoutException.class, () -> WorkloadRunner.awaitStarted(silent, Duration.ofSeconds(1)));
        assertTrue(e.getMessage().contains("did not print '" + ServerMain.READY_PREFIX + "'"), e.getMessage());
        assertEquals(1, silent.printed, "given up at the first wait with no new line");
        FakeProcess chatty = FakeProcess.subscriber("wharf-server", java.util.stream.IntStream.range(0, 20)
                .mapToObj(i -> "INFO: still starting " + i).toList());
        assertThrows(TimeoutException.class, () -> WorkloadRunner.awaitStarted(chatty, Duration.ofSeconds(1)));
        assertEquals(WorkloadRunner.START_STALLS, chatty.printed, "a server that prints but never gets ready is not waited for forever");
    }

    /**
     * A stand-in process: a server that says it is ready and stops when asked; a client that never connects, or that
     * connects and runs until it is ended, or that connects, fails and ends with a result; a subscriber that prints
     * one more of its lines each time the runner's wait for its ready line ends.
     */
    private static final class FakeProcess implements Launched {
        private final String name;
        private final boolean server;
        private final boolean ready;
        private final CompletableFuture<Integer> exit = new CompletableFuture<>();
        private final List<String> lines;
        private int printed;
        private volatile boolean closed;

        private FakeProcess(String name, boolean server, boolean ready, List<String> lines) {
            this.name = name;
            this.server = server;
            this.ready = ready;
            this.lines = lines;
        }

        static FakeProcess server(String name) {
            FakeProcess p = new FakeProcess(name, true, true, List.of());
            p.exit.complete(0);
            return p;
        }

        static FakeProcess neverReady(String name) {
            return new FakeProcess(name, false, false, List.of());
        }

        static FakeProcess readyAndRunning(String name) {
            return new FakeProcess(name, false, true, List.of());
        }

        /** Ready, then failed: its result (with the commit refused) written and its JVM ended. */
        static FakeProcess failedAfterReady(String name, Path json) throws java.io.IOException {
            new ObjectMapper().writeValue(json.toFile(), new DriverResult("jms.r11.Responder", name, 1, 2048, true, true, 0, 0,
                    0, 0, 0, 0, List.of(), Map.of(), LatencySummary.NONE, "", Map.of(), Map.of(), Map.of(), List.of(), 0, 0, 0,
                    0, 0, 0, List.of(COMMIT_REFUSED), null, false));
            FakeProcess p = new FakeProcess(name, false, true, List.of());
            p.exit.complete(1);
            return p;
        }

        static FakeProcess subscriber(String name, List<String> lines) {
            return new FakeProcess(name, false, false, lines);
        }

        @Override
        public synchronized String awaitLine(String prefix, Duration timeout) throws TimeoutException {
            if (ready && (server ? prefix.equals(ServerMain.READY_PREFIX) : prefix.equals(Driver.READY_LINE))) {
                return server ? ServerMain.READY_PREFIX + " tcp=tcp://127.0.0.1:1" : Driver.READY_LINE;
            }
            if (printed < lines.size()) {
                printed++;
                if (lines.get(printed - 1).startsWith(prefix)) {
                    return lines.get(printed - 1);
                }
            }
            throw new TimeoutException(name + " did not print '" + prefix + "' within " + timeout.toSeconds() + " s");
        }

        @Override
        public synchronized String latestLine(String prefix) {
            for (int i = printed - 1; i >= 0; i--) {
                if (lines.get(i).startsWith(prefix)) {
                    return lines.get(i);
                }
            }
            return null;
        }

        @Override
        public CompletableFuture<Integer> onExit() {
            return exit;
        }

        @Override
        public void stop() {
        }

        @Override
        public int awaitExit(Duration timeout) throws TimeoutException {
            if (exit.isDone()) {
                return exit.join();
            }
            throw new TimeoutException(name + " did not exit");
        }

        @Override
        public long pid() {
            return ProcessHandle.current().pid();
        }

        @Override
        public void close() {
            closed = true;
        }

        @Override
        public String toString() {
            return name;
        }
    }
}
