package org.wharfmq.perf.workload;

import org.junit.jupiter.api.Test;
import org.wharfmq.perf.options.OptionException;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RunCommandOptionsTest {

    @Test
    void theIssuesExampleParses() {
        RunSettings s = RunCommand.parse(new String[] {"RR-4", "--sizes", "2k,20k,200k", "--requesters", "1,2,4,8,16,32,64"}, false).settings();
        assertEquals(Workload.RR_4, s.workload());
        assertEquals(List.of(2048, 20480, 204800), s.sizes());
        assertEquals(List.of(1, 2, 4, 8, 16, 32, 64), s.clients());
        assertNull(s.url(), "the runner starts its own server unless given --url");
        assertFalse(s.inProcess());
        assertFalse(s.correlationPerThread(), "the spec's rule: replies selected by the request's message id");
    }

    @Test
    void everyRunnerOptionParses() {
        RunCommand.Parsed p = RunCommand.parse(new String[] {"rr-4b", "--responders", "6", "--queues", "3", "--rate", "250",
                "--run-length", "9", "--warmup", "2", "--timeout", "4", "--persistent", "--correlation", "thread", "--url", "tcp://h:1", "--out", "dir",
                "--jvm-opts", "-Xmx256m -XX:+UseSerialGC", "--in-process", "--verbose", "--peer", "artemis"}, false);
        RunSettings s = p.settings();
        assertEquals(Workload.RR_4B, s.workload());
        assertEquals(6, s.responders());
        assertEquals(3, s.queues());
        assertEquals(250.0, s.rate());
        assertEquals(9, s.runSeconds());
        assertEquals(2, s.warmupSeconds());
        assertEquals(4, s.timeoutSeconds());
        assertTrue(s.persistent());
        assertTrue(s.correlationPerThread());
        assertEquals("tcp://h:1", s.url());
        assertEquals(Path.of("dir"), s.output());
        assertEquals(List.of("-Xmx256m", "-XX:+UseSerialGC"), s.jvmOptions());
        assertTrue(s.inProcess());
        assertTrue(p.verbose());
        assertEquals(List.of(Target.ARTEMIS), p.targets(), "run --peer artemis runs on the peer");
    }

    @Test
    void theReplyTimeoutScalesWithTheMessageSizeUnlessGiven() {
        RunSettings scaled = RunCommand.parse(new String[] {"F-PARSE", "--sizes", "4k,2m,8m"}, false).settings();
        assertEquals(10, scaled.timeoutSeconds(4096), "small messages: 10 s");
        assertEquals(18, scaled.timeoutSeconds(2 << 20), "2 MB: 10 s + 4 s per MB");
        assertEquals(42, scaled.timeoutSeconds(8 << 20), "8 MB: 10 s + 4 s per MB");
        RunSettings given = RunCommand.parse(new String[] {"F-PARSE", "--sizes", "8m", "--timeout", "7"}, false).settings();
        assertEquals(7, given.timeoutSeconds(8 << 20), "--timeout is taken as given, whatever the size");
    }

    @Test
    void tlsNamesTheServersEngine() {
        assertEquals("openssl", RunCommand.parse(new String[] {"RR-4", "--tls", "openssl"}, false).settings().tls());
        assertNull(RunCommand.parse(new String[] {"RR-4"}, false).settings().tls(), "plain TCP by default");
        OptionException e = assertThrows(OptionException.class, () -> RunCommand.parse(new String[] {"RR-4", "--tls", "gnutls"}, false));
        assertEquals("--tls gnutls: the server's TLS engine is jdk or openssl (or auto)", e.getMessage());
        OptionException footprint = assertThrows(OptionException.class, () -> FootprintCommand.run(new String[] {"--tls", "gnutls"}));
        assertEquals(e.getMessage(), footprint.getMessage(), "perf footprint refuses it before starting a server");
    }

    /** A rate that is not a number, or is negative, is refused naming the option (it was a NumberFormatException). */
    @Test
    void rateMustBeANumberOfZeroOrMore() {
        assertEquals(1.5, RunCommand.parse(new String[] {"RR-RATED", "--rate", "1.5"}, false).settings().rate());
        assertEquals("--rate fast: not a number (operations per second per client, e.g. 1.5)", assertThrows(OptionException.class,
                () -> RunCommand.parse(new String[] {"OW-1", "--rate", "fast"}, false)).getMessage());
        assertEquals("--rate -2: must be 0 (as fast as it goes) or a positive rate", assertThrows(OptionException.class,
                () -> RunCommand.parse(new String[] {"RR-RATED", "--rate", "-2"}, false)).getMessage());
    }

    @Test
    void databaseChoosesTheDatabaseOfTheDatabaseWorkloadsOnly() {
        assertEquals("h2", RunCommand.parse(new String[] {"F-DB-UPDATE"}, false).database(), "an embedded H2 by default");
        assertEquals("postgres", RunCommand.parse(new String[] {"F-DB-RETRIEVE", "--database", "postgres"}, false).database());
        assertEquals("h2-xa", RunCommand.parse(new String[] {"F-DB-INSERT", "--database", "h2-xa"}, false).database());
        assertEquals("--database mysql: use h2 (an embedded H2, the default) or postgres (a PostgreSQL server started "
                + "for the run), or h2-xa or postgres-xa (the same, the flow's data source xa: true)",
                assertThrows(OptionException.class,
                () -> RunCommand.parse(new String[] {"F-DB-INSERT", "--database", "mysql"}, false)).getMessage());
        assertEquals("--database chooses the database of the F-DB-* workloads: F-PARSE uses none",
                assertThrows(OptionException.class,
                        () -> RunCommand.parse(new String[] {"F-PARSE", "--database", "postgres"}, false)).getMessage());
    }

    @Test
    void compareRunsWharfThenThePeer() {
        assertEquals(List.of(Target.WHARF, Target.ARTEMIS), RunCommand.parse(new String[] {"RR-4"}, true).targets());
        assertEquals(List.of(Target.WHARF, Target.CLASSIC), RunCommand.parse(new String[] {"RR-4", "--peer", "classic"}, true).targets());
        assertEquals(List.of(Target.CLASSIC), RunCommand.parse(new String[] {"RR-4", "--peer", "classic"}, false).targets());
        assertEquals(List.of(Target.WHARF, Target.REPLICATED),
                RunCommand.parse(new String[] {"RR-4", "--peer", "replicated"}, true).targets());
        assertEquals(Workload.RR_2B, RunCommand.parse(new String[] {"rr-2b", "--queues", "3"}, false).settings().workload());
        assertThrows(OptionException.class, () -> RunCommand.parse(new String[] {"RR-4", "--url", "tcp://h:1"}, true));
    }

    /**
     * A peer that cannot run the workload with these options is refused before anything runs: {@code compare RR-1}
     * ran every step on Wharf (minutes) and only then found Artemis has no in-VM clients.
     */
    @Test
    void aPeerThatCannotRunTheWorkloadIsRefusedBeforeAnyStep() {
        String inVm = assertThrows(OptionException.class,
                () -> RunCommand.parse(new String[] {"RR-1"}, true)).getMessage();
        assertTrue(inVm.startsWith("compare RR-1 --peer artemis: In-VM workloads") && inVm.contains("use RR-4")
                && inVm.contains("'wharf perf run RR-1' runs it on Wharf alone"), inVm);
        String flow = assertThrows(OptionException.class,
                () -> RunCommand.parse(new String[] {"F-PASS", "--peer", "classic"}, false)).getMessage();
        assertTrue(flow.startsWith("run F-PASS --peer classic: Message flows"), flow);
        assertTrue(assertThrows(OptionException.class,
                () -> RunCommand.parse(new String[] {"RR-5", "--peer", "classic"}, true)).getMessage()
                .contains("built for Artemis only"));
        assertTrue(assertThrows(OptionException.class, () -> RunCommand.parse(new String[] {"RR-4", "--tls", "jdk"},
                true)).getMessage().contains("--tls is measured on one Wharf instance only"));
        assertTrue(assertThrows(OptionException.class, () -> RunCommand.parse(new String[] {"RR-4", "--persistent",
                "--peer", "relay"}, true)).getMessage().contains("non-persistent"));
        // what the peers run stays taken
        RunCommand.parse(new String[] {"RR-4", "--persistent"}, true);
        RunCommand.parse(new String[] {"RR-5"}, true);
        RunCommand.parse(new String[] {"RR-1", "--peer", "relay"}, true);
        RunCommand.parse(new String[] {"RR-1", "--tls", "jdk"}, false);
    }

    @Test
    void pubSubStepsSubscribersOrDummies() {
        RunSettings n = RunCommand.parse(new String[] {"PS-N", "--subscribers", "1,10,100"}, true).settings();
        assertEquals(Workload.PS_N, n.workload());
        assertEquals(List.of(1, 10, 100), n.clients(), "PS-N steps the subscribers");
        assertEquals(List.of(1, 10, 100), RunCommand.parse(new String[] {"ps-d"}, false).settings().clients());
        RunSettings t = RunCommand.parse(new String[] {"PS-T", "--subscribers", "20", "--dummies", "0,10000"}, false).settings();
        assertEquals(List.of(0, 10000), t.clients(), "PS-T steps the dummy subscriptions");
        assertEquals(20, t.responders(), "with a fixed subscriber count");
        assertEquals(List.of(0, 1000, 10000), RunCommand.parse(new String[] {"PS-T"}, false).settings().clients());
        assertTrue(assertThrows(OptionException.class, () -> RunCommand.parse(new String[] {"PS-N", "--dummies", "5"}, false))
                .getMessage().contains("PS-T"));
        assertThrows(OptionException.class, () -> RunCommand.parse(new String[] {"PS-T", "--subscribers", "1,2"}, false));
    }

    /**
     * PS-D's publications are persistent by definition, so the run is persistent without {@code --persistent}: a peer
     * then runs with its journal synced before each persistent send is confirmed, as Wharf's is (before, PS-D's
     * peers ran with {@code --sync false} and were set beside a Wharf that synced).
     */
    @Test
    void psDIsPersistentOnEveryServerWithoutBeingAsked() {
        RunSettings d = RunCommand.parse(new String[] {"PS-D", "--subscribers", "10"}, true).settings();
        assertTrue(d.persistent());
        for (Target peer : List.of(Target.ARTEMIS, Target.CLASSIC)) {
            List<String> command = peer.serverCommand(List.of(), d.persistent(), null, 1, null, null, null);
            assertEquals("true", command.get(command.indexOf("--sync") + 1), peer + ": " + command);
        }
        assertFalse(RunCommand.parse(new String[] {"PS-N"}, true).settings().persistent(), "PS-N stays non-persistent");
    }

    @Test
    void workloadsThatWaitForOtherIssuesSaySo() {
        assertEquals(Workload.F_XSLT, Workload.parse("f-xslt"));
        assertEquals(Workload.F_FILTER_LAST, Workload.parse("F-FILTER-LAST"));
        assertEquals(Workload.F_OPAQUE, Workload.parse("f-opaque"));
        String unknown = assertThrows(OptionException.class, () -> Workload.parse("F-NOPE")).getMessage();
        assertTrue(unknown.contains("RR-1, RR-2") && unknown.endsWith(" or " + Workload.values()[Workload.values().length - 1].id()),
                unknown);
        assertTrue(assertThrows(OptionException.class, () -> Workload.parse("f-persist")).getMessage().contains("--persistent"));
        assertEquals(Workload.F_PUB, Workload.parse("f-pub"));
        assertEquals(List.of(1, 10, 100), RunCommand.parse(new String[] {"F-PUB"}, false).settings().clients(),
                "F-PUB steps subscribers, as the seed's 1, 10 and 100");
        assertEquals(List.of(20), RunCommand.parse(new String[] {"F-PASS"}, false).settings().clients());
        assertEquals(Workload.F_PASS, Workload.parse("f-pass"));
        assertEquals(Workload.PS_N, Workload.parse("ps-n"));
        assertThrows(OptionException.class, () -> Workload.parse("RR-9"));
        assertThrows(OptionException.class, () -> RunCommand.parse(new String[] {"RR-4", "--requesters", "0"}, false));
        assertThrows(OptionException.class, () -> RunCommand.parse(new String[] {"RR-4", "--peer", "tibco"}, false));
        assertThrows(OptionException.class, () -> RunCommand.parse(new String[] {"RR-4", "--sizes"}, false));
    }
}
