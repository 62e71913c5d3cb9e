package org.wharfmq.perf.workload;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.perf.options.OptionException;
import org.wharfmq.perf.report.SeedRows;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code wharf perf report}'s rows and options: the rows and peers chosen, the estimates, resuming, and clear refusals. */
class ReportOptionsTest {

    @Test
    void defaultsRunEveryRowOnBothPeers() {
        ReportCommand.Options o = ReportCommand.Options.parse(new String[0]);
        assertEquals(ResultsPlan.ROWS, o.rows());
        assertEquals(List.of(Target.ARTEMIS, Target.CLASSIC), o.peers());
        assertEquals(ReportCommand.DEFAULT_WARMUP_SECONDS, o.warmup());
    }

    @Test
    void theLargeRowsRunBesideTheSeedsLargeRows() {
        assertEquals("498 (MQI Client Bindings (2MB Non-persistent) : RR-2, 23 clients)", row("RR-2 2 MB, 8 requesters").seedRow());
        assertEquals("1.37 (seed 002: Parsing an XML Input Message 4096K)", row("F-PARSE 4 MB, 2 requesters").seedRow());
        ResultsPlan.Row eight = row("F-PARSE 8 MB, 2 requesters");
        assertEquals("0.69 (seed 002: Parsing an XML Input Message 8192K)", eight.seedRow());
        assertEquals(List.of("--sizes", "8m", "--requesters", "2"), eight.options(),
                "no --timeout: the runner's scales with the size");
    }

    @Test
    void theIntegrationNodesRatedScalingAndTheFootprintHaveRowsBesideTheSeeds() {
        assertEquals("750 (seed 002: File Input (whole file) -> MQ Output BLOB 4K)", row("F-FILE 4 KB (files in)").seedRow());
        assertEquals("759 (seed 002: MQ Input -> File Output (delimited records) BLOB 4K)", row("F-FILE-OUT 4 KB (files out)").seedRow());
        assertEquals("852 (seed 002: JMSInput -> JMSOutput Bytes 4K)", row("F-JMS 4 KB (another JMS provider)").seedRow());
        ResultsPlan.Row rated = ResultsPlan.ROWS.stream().filter(r -> r.workload() == Workload.RR_RATED).findFirst().orElseThrow();
        assertEquals(ResultsPlan.Kind.RATED, rated.kind());
        assertTrue(rated.peers(), "its clients are all over TCP: the peers run it");
        ReportCommand.Options footprint = ReportCommand.Options.parse(new String[] {"--rows", "footprint", "--quick"});
        assertEquals(List.of(ResultsPlan.Kind.MEMORY_PER_CONNECTION, ResultsPlan.Kind.MEMORY_PER_QUEUE),
                footprint.rows().stream().map(ResultsPlan.Row::kind).toList());
        assertTrue(footprint.rows().stream().allMatch(r -> r.peers() && r.seedRow().contains("seed 004 3.6")), footprint.rows().toString());
        assertTrue(footprint.quick());
    }

    private static ResultsPlan.Row row(String label) {
        return ResultsPlan.ROWS.stream().filter(r -> r.label().equals(label)).findFirst().orElseThrow();
    }

    @Test
    void rowsChoosesByNumberRangeOrWorkloadInTheTablesOrder() {
        ReportCommand.Options o = ReportCommand.Options.parse(new String[] {"--rows", "ps-n,RR-4b", "--peers", "none"});
        assertTrue(o.rows().stream().allMatch(r -> r.workload() == Workload.PS_N || r.workload() == Workload.RR_4B), o.rows().toString());
        assertEquals(3, o.rows().size(), "PS-N's 100 and 1,000 subscribers, RR-4b");
        assertEquals(List.of(), o.peers());
        List<ResultsPlan.Row> chosen = ReportCommand.Options.parse(new String[] {"--rows", "5-6,2,RR-1"}).rows();
        assertEquals(List.of(ResultsPlan.ROWS.get(0), ResultsPlan.ROWS.get(1), ResultsPlan.ROWS.get(4), ResultsPlan.ROWS.get(5)), chosen,
                "RR-1's two rows (1 and 2) once each, then 5 and 6, in the table's order");
        assertEquals(5, ResultsPlan.number(chosen.get(2)));
    }

    @Test
    void resumeGoesOnInTheEarlierRunsDirectory(@TempDir Path earlier) {
        ReportCommand.Options o = ReportCommand.Options.parse(new String[] {"--resume", earlier.toString()});
        assertTrue(o.resume());
        assertEquals(earlier, o.output());
        OptionException other = assertThrows(OptionException.class,
                () -> ReportCommand.Options.parse(new String[] {"--resume", earlier.toString(), "--out", earlier.resolve("x").toString()}));
        assertTrue(other.getMessage().contains("leave out --out"), other.getMessage());
        OptionException none = assertThrows(OptionException.class,
                () -> ReportCommand.Options.parse(new String[] {"--resume", earlier.resolve("nothing").toString()}));
        assertTrue(none.getMessage().contains("no such directory"), none.getMessage());
    }

    private static final List<Target> PEERS = List.of(Target.ARTEMIS, Target.CLASSIC);

    /** The estimate counts each run of a row: every target's warm-up, measured period and start, and a flow's plain loop. */
    @Test
    void theEstimateCountsEveryRunOfTheRow() {
        int run = 30 + 20 + ResultsPlan.RUN_OVERHEAD_SECONDS;
        assertEquals(3 * run, row("RR-4 2 KB, 8 requesters, reply by request id").estimateSeconds(30, 20, PEERS, false), "Wharf and two peers");
        assertEquals(run, row("RR-1 2 KB, 8 requesters").estimateSeconds(30, 20, PEERS, false), "Wharf only");
        assertEquals(run + 30 + 10, row("F-PARSE 4 KB").estimateSeconds(30, 20, PEERS, false), "and its plain loop");
        ResultsPlan.Row rated = ResultsPlan.ROWS.stream().filter(r -> r.workload() == Workload.RR_RATED).findFirst().orElseThrow();
        double perRequester = ResultsPlan.RATED_SECONDS_PER_REQUESTER;
        long upTo2000 = Math.round(250 * perRequester) + Math.round(1_000 * perRequester) + Math.round(2_000 * perRequester);
        long estimate = rated.estimateSeconds(30, 20, PEERS, false);
        long wharfTo4000 = 4 * run + upTo2000 + Math.round(4_000 * perRequester);
        long peers = 6 * run + 2 * upTo2000;
        assertEquals(wharfTo4000 + run + Math.round(8_000 * perRequester) + peers, estimate, "each server's steps up to "
                + "where its stepping stops, their requesters connecting: Wharf's 250 to 8,000, Artemis's and ActiveMQ "
                + "Classic's to 2,000");
        // the last quiet run (10 min 28 s): Wharf's steps to 4,000 took 254 s, Artemis's and Classic's to 2,000 375 s
        assertTrue(Math.abs(wharfTo4000 - 254) <= 30, "Wharf's steps to 4,000 as they took: " + wharfTo4000);
        assertTrue(Math.abs(peers - 375) <= 30, "the peers' steps as they took: " + peers);
        assertEquals(List.of("--sizes", "2k", "--requesters", "250,1000,2000,4000,8000,16000,32000"), rated.options(),
                "the row steps on past Wharf's 2,000 until the median or a limit of the machine stops it");
        assertEquals(2 * (30 + 20 + ResultsPlan.TWO_QUEUE_MANAGER_RUN_OVERHEAD_SECONDS), row("OW-5 2 KB, 8 producers at 1,000 "
                + "messages/s each, two queue managers, one channel each way (messages/s)").estimateSeconds(30, 20, PEERS, false),
                "Wharf and Artemis: Classic runs no two queue managers");
        assertEquals(3 * (run + Math.round(10_000 * ResultsPlan.DUMMY_SUBSCRIPTION_SECONDS)), row("PS-T 2 KB, 10 subscribers "
                + "on topics of their own, 10,000 dummy subscriptions (deliveries/s)").estimateSeconds(30, 20, PEERS, false),
                "each server confirming the dummy subscriptions");
        long all = ResultsPlan.ROWS.stream().mapToLong(r -> r.estimateSeconds(30, 20, PEERS, false)).sum();
        assertTrue(all > 2 * 3600, "every row takes hours: " + all);
    }

    /**
     * In one report a flow's plain loop is timed with the first row of its flow and size and not again
     * ({@link PlainLoopTimings}): the persistent row beside the other costs its run only. A loop bound by disk syncs is
     * timed twice in every row (before and after the flow's step), and so is a persistent JMS application's.
     */
    @Test
    void theEstimateCountsAFlowsSharedLoopOnceAndADiskBoundLoopTwicePerRow() {
        int run = 30 + 20 + ResultsPlan.RUN_OVERHEAD_SECONDS;
        int loop = 30 + 10;
        ResultsPlan.Row write = row("F-WRITE 4 MB, 2 requesters");
        ResultsPlan.Row writePersistent = row("F-WRITE 4 MB persistent, 2 requesters");
        java.util.Map<ResultsPlan.Row, Long> both = ResultsPlan.estimates(List.of(write, writePersistent), 30, 20, PEERS, false);
        assertEquals(run + loop, both.get(write), "the loop timed with the first row");
        assertEquals(run, both.get(writePersistent), "the persistent row shows the same loop's timing");
        assertEquals(run + loop, writePersistent.estimateSeconds(30, 20, PEERS, false), "alone, it times the loop");
        assertEquals(run + 2 * loop, row("F-FILE 4 KB (files in)").estimateSeconds(30, 20, PEERS, false),
                "F-FILE's copy syncs per file: timed before and after the flow's step");
        ResultsPlan.Row update = row("F-DB-UPDATE 4 MB, 2 requesters");
        ResultsPlan.Row updatePersistent = row("F-DB-UPDATE 4 MB persistent, 2 requesters");
        java.util.Map<ResultsPlan.Row, Long> db = ResultsPlan.estimates(List.of(update, updatePersistent), 30, 20, PEERS, false);
        assertEquals(run + 2 * loop, db.get(update), "its JDBC loop and its JMS application");
        assertEquals(run + 2 * loop, db.get(updatePersistent), "the JDBC loop shared, the persistent JMS application timed twice");
        assertEquals("2 h", ReportCommand.duration(7200));
        assertEquals("4 h 16 min", ReportCommand.duration(4 * 3600 + 16 * 60 + 59));
        assertEquals("3 min 20 s", ReportCommand.duration(200));
        long listed = ResultsPlan.ROWS.stream().mapToLong(r -> r.estimateSeconds(30, 20, PEERS, false)).sum();
        long report = ResultsPlan.estimates(ResultsPlan.ROWS, 30, 20, PEERS, false).values().stream().mapToLong(Long::longValue).sum();
        assertTrue(listed - report >= 20 * loop, "every large flow row's pair shares its loop: " + listed + " against " + report);
    }

    @Test
    void everyLargeFlowRowOfTheSeedHasARowBesideIt() {
        int rows = 0;
        for (Workload w : Workload.values()) {
            for (int size : new int[] {4 << 20, 8 << 20}) {
                for (boolean persistent : new boolean[] {false, true}) {
                    SeedRows.FlowRow seed = SeedRows.findFlow(w.id(), size, persistent);
                    String label = w.id() + " " + (size >> 20) + " MB" + (persistent ? " persistent" : "") + ", 2 requesters";
                    List<ResultsPlan.Row> matching = ResultsPlan.ROWS.stream().filter(r -> r.label().equals(label)).toList();
                    assertEquals(seed == null ? 0 : 1, matching.size(), label);
                    if (seed != null) {
                        rows++;
                        assertTrue(matching.get(0).seedRow().contains(seed.test()), matching.get(0).seedRow());
                        assertEquals(persistent, matching.get(0).options().contains("--persistent"), label);
                    }
                }
            }
        }
        assertEquals(76, rows, "17 flows at 4 and 8 MB persistent and not, F-HTTP, F-FILE, F-FILE-OUT and F-JMS not persistent");
        assertEquals("8.12 (seed 002: MQ BLOB pass-through 4096K persistent)", row("F-PASS 4 MB persistent, 2 requesters").seedRow());
        assertEquals("3.38 (seed 002: Reading from a Database using the Database Retrieve Node 8192K persistent)",
                row("F-DB-RETRIEVE 8 MB persistent, 2 requesters").seedRow());
        assertTrue(ResultsPlan.ROWS.stream().noneMatch(r -> r.workload() == Workload.F_XSLT && r.label().contains(" MB")),
                "the seed has no large XSLT row");
    }

    /**
     * Every workload of the seeds has a row (RR-3 is RR-1's run: Wharf has only JMS clients), and the rows the table had
     * before session 30 keep their numbers: the rows added for the other workloads come after the memory rows.
     */
    @Test
    void everySeedWorkloadHasARowAndTheEarlierRowsKeepTheirNumbers() {
        for (Workload w : Workload.values()) {
            if (w != Workload.RR_3) {
                assertTrue(ResultsPlan.ROWS.stream().anyMatch(r -> r.workload() == w), w.id() + " has a row");
            }
        }
        assertEquals(17, ResultsPlan.number(row("RR-4 100 MB (100e6 B) persistent, 2 requesters, 2 transacted responders")));
        assertEquals(31, ResultsPlan.number(row("F-PASS 4 MB, 2 requesters")));
        assertEquals(103, ResultsPlan.number(ResultsPlan.ROWS.stream().filter(r -> r.workload() == Workload.RR_RATED).findFirst().orElseThrow()));
        assertEquals(ResultsPlan.Kind.MEMORY_PER_QUEUE, ResultsPlan.ROWS.get(104).kind(), "row 105");
        assertEquals("1,076 (seed 002, 4 KB persistent, 10 subscribers)",
                row("PS-D 2 KB, 10 durable subscribers, persistent (deliveries/s)").seedRow());
        assertEquals("2,090 (seed 002: Route node on the first element 4K)", row("F-ROUTE 4 KB").seedRow());
        assertEquals(List.of("--sizes", "2k", "--subscribers", "10", "--dummies", "10000"),
                ResultsPlan.ROWS.stream().filter(r -> r.workload() == Workload.PS_T).findFirst().orElseThrow().options(),
                "one step: a row's cell is one step's rate");
    }

    @Test
    void theLargeRequestReplyRowsAndAThousandSubscribersBesideTheSeeds() {
        assertEquals("1,100 (MQI Local Bindings (2MB Non-persistent) : RR-1, 13 clients)", row("RR-1 2 MB, 8 requesters").seedRow());
        assertEquals("552 (MQI Distributed Queuing (2MB Non-persistent) : RR-5, 37 clients)",
                row("RR-5 2 MB, 8 requesters, two queue managers, 4 queue pairs over one channel each way").seedRow());
        assertEquals("87 (MQI Local Bindings (2MB Persistent) : RR-1, 2 clients)",
                row("RR-4 2 MB persistent, 8 requesters, 4 transacted responders").seedRow());
        assertTrue(row("PS-N 2 KB, 1,000 subscribers (deliveries/s)").seedRow().startsWith("1,300 (seed 000"));
        ResultsPlan.Row hundred = row("RR-4 100 MB (100e6 B) persistent, 2 requesters, 2 transacted responders");
        assertEquals(List.of("--sizes", "100000000", "--requesters", "2", "--responders", "2", "--persistent"), hundred.options());
        assertTrue(hundred.peers(), "Artemis and ActiveMQ Classic take 100 MB messages too");
    }

    /**
     * Every rate and rated row's arguments are a valid {@code perf run} of the row's workload, persistent where its label
     * says so (the footprint's rows run {@code perf footprint}).
     */
    @Test
    void everyRowIsAValidRun(@TempDir Path out) {
        for (ResultsPlan.Row r : ResultsPlan.ROWS) {
            if (r.kind().footprint()) {
                continue;
            }
            RunSettings s = RunCommand.parse(ReportCommand.runArgs(r, false, 30, 20, out, List.of("-Xmx1g")).toArray(String[]::new), false)
                    .settings();
            assertEquals(r.workload(), s.workload(), r.label());
            // the label says what runs: a row called persistent runs persistent on every server (PS-D's without
            // --persistent: its peers' journals synced as Wharf's is), and no other row does
            assertEquals(r.label().contains("persistent"), s.persistent(), r.label());
        }
    }

    /**
     * A report started on a busy machine says so, in its progress and in results.md's header: its rates follow the CPU
     * left to it (a newcomer's run of CONNECT at a load of 37 on 2 cores put Wharf at 0.67 of a peer, against 2.82 quietly).
     */
    @Test
    void aBusyMachineAtTheStartIsNamedAndAQuietOneIsRecorded() {
        String busy = ReportCommand.loadNote(37.02, 2);
        assertTrue(busy.startsWith("Load average when the report started: 37.0 on 2 cores: something else was running.")
                && busy.contains("run the report with nothing else on the machine"), busy);
        assertEquals("Load average when the report started: 0.4 on 2 cores.", ReportCommand.loadNote(0.4, 2));
        assertEquals(null, ReportCommand.loadNote(Double.NaN, 2), "no /proc/loadavg: nothing said");
        assertEquals("Wharf, Artemis and ActiveMQ Classic", ReportCommand.inWords(List.of("Wharf", "Artemis", "ActiveMQ Classic")));
        assertEquals("Wharf", ReportCommand.inWords(List.of("Wharf")));
    }

    /** The opening line names the servers the rows chosen run on: a run of flow rows is on Wharf alone, not "on Wharf, Artemis and ActiveMQ Classic". */
    @Test
    void theServersNamedAreThoseTheRowsRunOn() {
        List<Target> peers = List.of(Target.ARTEMIS, Target.CLASSIC);
        assertEquals(List.of(Target.WHARF), ReportCommand.servers(ResultsPlan.select(List.of("40", "46-102")), peers));
        assertEquals(List.of(Target.WHARF, Target.ARTEMIS, Target.CLASSIC),
                ReportCommand.servers(ResultsPlan.select(List.of("2", "103")), peers), "row 103 runs the peers");
        assertEquals(List.of(Target.WHARF), ReportCommand.servers(ResultsPlan.select(List.of("103")), List.of()), "--peers none");
    }

    @Test
    void refusalsNameTheFix() {
        OptionException noRow = assertThrows(OptionException.class,
                () -> ReportCommand.Options.parse(new String[] {"--rows", "RR-3"}).rows());
        assertTrue(noRow.getMessage().contains("has no row of this workload") && noRow.getMessage().contains("RR-4"), noRow.getMessage());
        OptionException past = assertThrows(OptionException.class,
                () -> ReportCommand.Options.parse(new String[] {"--rows", "3-999"}).rows());
        assertTrue(past.getMessage().contains("numbered 1 to " + ResultsPlan.ROWS.size()) && past.getMessage().contains("--list"),
                past.getMessage());
        OptionException wharf = assertThrows(OptionException.class, () -> ReportCommand.Options.parse(new String[] {"--peers", "wharf"}));
        assertTrue(wharf.getMessage().contains("the peers are artemis and classic"), wharf.getMessage());
        OptionException unknown = assertThrows(OptionException.class, () -> ReportCommand.Options.parse(new String[] {"--sizes", "2k"}));
        assertTrue(unknown.getMessage().contains("Unknown option --sizes"), unknown.getMessage());
    }
}
