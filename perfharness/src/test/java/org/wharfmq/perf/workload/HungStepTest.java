package org.wharfmq.perf.workload;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A process of one server's step that hangs (ActiveMQ Classic's responders failing their commits at 100 MB left its
 * requesters waiting for replies) fails that server's step with the reason; the next server's step still runs, so a
 * report's row keeps the servers that did run instead of failing as a whole.
 */
class HungStepTest {

    @Test
    void aHungProcessFailsItsServersStepAndTheNextServerStillRuns(@TempDir Path out) throws Exception {
        RunCommand.Parsed parsed = RunCommand.parse(new String[]{"RR-4", "--sizes", "2k", "--requesters", "1",
                "--responders", "1", "--warmup", "1", "--run-length", "1", "--out", out.toString()}, false);
        List<String> launched = new ArrayList<>();
        Launcher clientsHang = (name, args) -> {
            launched.add(name);
            return new FakeProcess(name, name.endsWith("-server"));
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

    /** A server that says it is ready and stops when asked; a client that never connects. */
    private record FakeProcess(String name, boolean server) implements Launched {
        @Override
        public String awaitLine(String prefix, Duration timeout) throws TimeoutException {
            if (server && prefix.equals(ServerMain.READY_PREFIX)) {
                return ServerMain.READY_PREFIX + " tcp=tcp://127.0.0.1:1";
            }
            throw new TimeoutException(name + " did not print '" + prefix + "' within " + timeout.toSeconds() + " s");
        }

        @Override
        public void stop() {
        }

        @Override
        public int awaitExit(Duration timeout) throws TimeoutException {
            if (server) {
                return 0;
            }
            throw new TimeoutException(name + " did not exit");
        }

        @Override
        public long pid() {
            return ProcessHandle.current().pid();
        }

        @Override
        public void close() {
        }
    }
}
