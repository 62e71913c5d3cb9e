package org.wharfmq.perf.workload;

import org.junit.jupiter.api.Test;
import org.wharfmq.perf.options.OptionException;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code wharf perf report}'s options: the rows and peers chosen, and clear refusals. */
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
        ReportCommand.Options footprint = ReportCommand.Options.parse(new String[] {"--only", "footprint", "--quick"});
        assertEquals(List.of(ResultsPlan.Kind.MEMORY_PER_CONNECTION, ResultsPlan.Kind.MEMORY_PER_QUEUE),
                footprint.rows().stream().map(ResultsPlan.Row::kind).toList());
        assertTrue(footprint.rows().stream().allMatch(r -> r.peers() && r.seedRow().contains("seed 004 3.6")), footprint.rows().toString());
        assertTrue(footprint.quick());
    }

    private static ResultsPlan.Row row(String label) {
        return ResultsPlan.ROWS.stream().filter(r -> r.label().equals(label)).findFirst().orElseThrow();
    }

    @Test
    void onlyChoosesTheRowsOfTheGivenWorkloads() {
        ReportCommand.Options o = ReportCommand.Options.parse(new String[] {"--only", "ps-n,RR-4b", "--peers", "none"});
        assertTrue(o.rows().stream().allMatch(r -> r.workload() == Workload.PS_N || r.workload() == Workload.RR_4B), o.rows().toString());
        assertEquals(2, o.rows().size());
        assertEquals(List.of(), o.peers());
    }

    @Test
    void refusalsNameTheFix() {
        OptionException noRow = assertThrows(OptionException.class,
                () -> ReportCommand.Options.parse(new String[] {"--only", "PS-T"}).rows());
        assertTrue(noRow.getMessage().contains("has no row of these workloads") && noRow.getMessage().contains("RR-4"), noRow.getMessage());
        OptionException wharf = assertThrows(OptionException.class, () -> ReportCommand.Options.parse(new String[] {"--peers", "wharf"}));
        assertTrue(wharf.getMessage().contains("the peers are artemis and classic"), wharf.getMessage());
        OptionException unknown = assertThrows(OptionException.class, () -> ReportCommand.Options.parse(new String[] {"--sizes", "2k"}));
        assertTrue(unknown.getMessage().contains("Unknown option --sizes"), unknown.getMessage());
    }
}
