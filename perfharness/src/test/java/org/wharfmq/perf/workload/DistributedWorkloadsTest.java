package org.wharfmq.perf.workload;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.perf.options.OptionException;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Short runs of the distributed queuing workloads (RR-5, RR-5b, OW-5): two queue managers started from the
 * wharf.yaml files the runner writes, joined by channels, the requesters (producers) on QM1 and the responders
 * (consumers) on QM2, in this JVM. Each run must pass the exactly-once checks, including the channels' own: every
 * request crossed from QM1 to QM2 on a channel once and every reply came back on one, never how fast. And RR-5 on
 * two Artemis brokers joined by core bridges, in child JVMs.
 */
@Tag("slow")
class DistributedWorkloadsTest {

    /**
     * A step after a 1 s warm-up (held until every requester's first round trip ended): 1 s measured for the
     * request/reply workloads, 2 s for OW-5, whose rate is what its consumers counted in the whole seconds of the
     * producers' measured period.
     */
    private static RunSettings settings(Workload w, int queues, int channels, boolean persistent, Path out) {
        int runSeconds = w.requestReply() ? 1 : 2;
        return new RunSettings(w, List.of(2048), List.of(4), List.of(1), 0, queues, channels, 200, runSeconds, 1, 10, persistent,
                false, null, null, null, null, out, List.of("-Xmx256m"), true);
    }

    private static StepResult run(RunSettings settings, List<String> progress) throws Exception {
        List<StepResult> steps = RunCommand.execute(settings, List.of(Target.WHARF), new InProcessLauncher(line -> { }),
                progress::add);
        assertEquals(1, steps.size());
        StepResult s = steps.get(0);
        assertNull(s.unavailable(), s.unavailable());
        assertTrue(s.passed(), s.problems().toString());
        assertTrue(s.meanRate() > 0, "operations were counted: " + s);
        assertTrue(!settings.workload().requestReply() || s.latencyMicros().count() > 0, "round trips were timed: " + s);
        return s;
    }

    /**
     * RR-5 over two request/reply pairs and two channels each way: every reply matched, each pair's requests and
     * replies on its own channel, and the generated files as docs/distributed.md sets a pair up.
     */
    @Test
    void requestsAndRepliesCrossTwoChannelsEachWay(@TempDir Path out) throws Exception {
        StepResult s = run(settings(Workload.RR_5, 2, 2, false, out), new CopyOnWriteArrayList<>());
        assertEquals(2, s.responders(), "a responder per pair at least");
        Path qm1;
        Path qm2;
        try (Stream<Path> files = Files.list(out.resolve("steps"))) {
            List<Path> all = files.toList();
            qm1 = all.stream().filter(p -> p.getFileName().toString().endsWith("-qm1.yaml")).findFirst().orElseThrow();
            qm2 = all.stream().filter(p -> p.getFileName().toString().endsWith("-qm2.yaml")).findFirst().orElseThrow();
        }
        String one = Files.readString(qm1);
        String two = Files.readString(qm2);
        assertTrue(one.contains("name: QM1\n") && one.contains("name: QM1.TO.QM2.2\n    type: sender")
                && one.contains("transmissionQueue: QM2.XMIT.2"), one);
        assertTrue(two.contains("name: QM1.R2\n    type: remote\n    remoteQueueManager: QM1\n    transmissionQueue: QM1.XMIT.2"),
                "reply queue 2 goes back on channel 2: " + two);
        assertTrue(two.contains("partnerUser: qm1\n    partnerQueueManager: QM1"), two);
    }

    /** RR-5b persistent: temporary reply queues on QM1, responders committing each round trip on QM2. */
    @Test
    void temporaryReplyQueuesAcrossChannelsPersistent(@TempDir Path out) throws Exception {
        run(settings(Workload.RR_5B, 2, 1, true, out), new CopyOnWriteArrayList<>());
    }

    /**
     * OW-5, non-persistent and persistent: every message crosses to its consumer on QM2, counted there. Before the
     * producers start, a probe has crossed each channel (a sender channel connects at its first message, which would
     * otherwise be the producers' first, in their measured period), and the channel check counts the probes.
     */
    @Test
    void oneWayMessagesCrossTheChannel(@TempDir Path out) throws Exception {
        for (boolean persistent : new boolean[] {false, true}) {
            List<String> progress = new CopyOnWriteArrayList<>();
            run(settings(Workload.OW_5, 1, 2, persistent, out.resolve(Boolean.toString(persistent))), progress);
            int probed = progress.indexOf("  the channels from QM1 are running: a probe crossed each of the 2 to QM2");
            int stepped = progress.stream().filter(l -> l.startsWith("OW-5 Wharf 2KB clients=4") && l.contains("msg/s"))
                    .findFirst().map(progress::indexOf).orElse(-1);
            assertTrue(probed >= 0 && stepped > probed, "probed, then the step ran: " + progress);
        }
    }

    /**
     * {@code perf run RR-5 --peer artemis}: two Artemis brokers joined by core bridges both ways, in child JVMs, and
     * the drivers in theirs; the run passes. (Wharf's pair is the runs above, in this JVM: the same ServerMain from the
     * same generated files; {@code perf compare}'s ratio lines are ClassicPeerMainTest's and WorkloadSmokeTest's.)
     */
    // child JVMs one after the other (two brokers and their drivers): at load 30-40 they took over two
    // minutes, past the default 120 s
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    @Test
    void twoBridgedArtemisBrokersRunRr5(@TempDir Path out) throws Exception {
        int status = RunCommand.run(new String[] {"RR-5", "--peer", "artemis", "--requesters", "2", "--queues", "2",
                "--warmup", "1", "--run-length", "1", "--out", out.toString(), "--jvm-opts", "-Xmx256m"}, false);
        assertEquals(0, status, "every step passed its checks");
        String results = Files.readString(out.resolve("results.json"));
        assertTrue(results.contains("\"target\" : \"Artemis\"") && !results.contains("\"target\" : \"Wharf\""), results);
        assertTrue(results.contains("\"passed\" : true") && !results.contains("\"passed\" : false"), results);
    }

    /** The options refused, each naming why. */
    @Test
    void channelOptionsAreRefusedWhereTheyCannotApply() {
        OptionException notTwo = assertThrows(OptionException.class,
                () -> RunCommand.parse(new String[] {"RR-4", "--channels", "2"}, false));
        assertTrue(notTwo.getMessage().contains("only RR-5, RR-5b and OW-5"), notTwo.getMessage());
        OptionException tooMany = assertThrows(OptionException.class,
                () -> RunCommand.parse(new String[] {"RR-5", "--channels", "11", "--queues", "11"}, false));
        assertTrue(tooMany.getMessage().contains("at most 10"), tooMany.getMessage());
        OptionException fewQueues = assertThrows(OptionException.class,
                () -> RunCommand.parse(new String[] {"RR-5", "--channels", "4", "--queues", "2"}, false));
        assertTrue(fewQueues.getMessage().contains("at least as many queues as channels"), fewQueues.getMessage());
        OptionException url = assertThrows(OptionException.class,
                () -> RunCommand.parse(new String[] {"RR-5", "--url", "tcp://127.0.0.1:7414"}, false));
        assertTrue(url.getMessage().contains("starts its two queue managers itself"), url.getMessage());
        assertEquals(3, RunCommand.parse(new String[] {"OW-5", "--channels", "3"}, false).settings().channels());
        assertEquals(Workload.RR_5B, Workload.parse("rr-5b"));
    }
}
