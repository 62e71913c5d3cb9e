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
