package org.wharfmq.perf.workload;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code wharf perf report} end to end in its quick form, its runs shortened further to a 1 s warm-up (held until every
 * requester's first round trip ended) and 1 s measured: RR-4b (Wharf and the Artemis peer) and the footprint's two
 * memory rows (20 queues and connections on each server, measured once for both rows), each a real server and real
 * clients in child JVMs; then resumed in the same directory, which keeps the rows that ended instead of running them.
 * (The lines of Wharf alone, of a flow beside its plain loop and of RR-RATED are ResultsTableTest's; their runs are
 * WorkloadSmokeTest's, IoFlowWorkloadsTest's and ConnectionWorkloadsTest's; the large rows' ReportRowsShortFormTest's.)
 */
@Tag("slow")
class ReportCommandTest {

    /**
     * Child JVMs one after the other (four servers, a requester and a responder JVM, six jcmd): generous on a loaded
     * machine, where RR-4b's two runs alone took 4 min 39 s at load 35-44 (the whole test 60 s at a lower one).
     */
    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void writesTheResultsTableWithEachRowsReport(@TempDir Path out) throws Exception {
        int status = ReportCommand.run(new String[] {"--quick", "--warmup", "1", "--run-length", "1", "--rows", "RR-4b,FOOTPRINT",
                "--peers", "artemis", "--out", out.toString(), "--jvm-opts", "-Xmx256m"});
        assertEquals(0, status, "every run passed its exactly-once checks");
        String table = Files.readString(out.resolve("results.md"));
        assertTrue(table.contains("| workload | Wharf | Artemis | Wharf / best peer |"), table);
        assertTrue(Pattern.compile("\\| \\[RR-4b 2 KB[^]]*]\\(([^)]*)/report.md\\) \\| [0-9.,]+ \\| [0-9.,]+ \\| \\*\\*[0-9]+\\.[0-9]{2}\\*\\* \\|")
                .matcher(table).find(), "RR-4b ran on both, with their ratio: " + table);
        Path rowReport = out.resolve("RR-4b-2-KB-8-requesters-4-request-queues").resolve("report.md");
        assertTrue(Files.exists(rowReport), "each row has its own report");
        for (String item : List.of("idle connection", "defined queue")) {
            assertTrue(Pattern.compile("\\| Memory per " + item + " \\([^)]*\\) \\| -?[0-9.]+ KB \\(RSS -?[0-9.]+ KB\\) \\| "
                    + "-?[0-9.]+ KB \\(RSS -?[0-9.]+ KB\\) \\| [^|]+ \\| - \\| - \\| - \\| [0-9.]+ KB \\(seed 004 3.6")
                    .matcher(table).find(), "the memory per " + item + " of Wharf and Artemis, and the seed's row: " + table);
        }
        // resumed, the rows that ended are kept, not run again: the same lines, no row's report written anew
        FileTime written = Files.getLastModifiedTime(rowReport);
        Files.delete(out.resolve("results.md"));
        assertEquals(0, ReportCommand.run(new String[] {"--quick", "--warmup", "1", "--run-length", "1", "--rows", "RR-4b,FOOTPRINT",
                "--peers", "artemis", "--resume", out.toString()}));
        assertEquals(written, Files.getLastModifiedTime(rowReport), "RR-4b did not run again");
        String resumed = Files.readString(out.resolve("results.md"));
        assertEquals(table.lines().filter(l -> l.startsWith("| ")).toList(), resumed.lines().filter(l -> l.startsWith("| ")).toList(),
                "the same table from the lines kept");
        // resumed with other rows, the table keeps every row the directory holds: it grows, it is not replaced
        Files.delete(out.resolve("results.md"));
        assertEquals(0, ReportCommand.run(new String[] {"--quick", "--warmup", "1", "--run-length", "1", "--rows", "FOOTPRINT",
                "--peers", "artemis", "--resume", out.toString()}));
        String grown = Files.readString(out.resolve("results.md"));
        assertEquals(table.lines().filter(l -> l.startsWith("| ")).toList(), grown.lines().filter(l -> l.startsWith("| ")).toList(),
                "RR-4b's line is in the table of a run of the memory rows only: " + grown);
        assertTrue(grown.contains("earlier runs into"), "the table says it holds rows of earlier runs: " + grown);
    }
}
