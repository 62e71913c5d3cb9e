package org.wharfmq.perf.workload;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code wharf perf report} end to end in its quick form, on two rows: RR-1 (Wharf only: its clients are in the
 * server's JVM) and RR-4b (Wharf and the Artemis peer), each a real server and real clients in child JVMs.
 */
@Tag("slow")
// three runs, each a server and its clients in child JVMs: with the other test JVM beside it under a load of 30-45
// the default 120 s ran out
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class ReportCommandTest {

    @Test
    void writesTheResultsTableWithEachRowsReport(@TempDir Path out) throws Exception {
        int status = ReportCommand.run(new String[] {"--quick", "--only", "RR-1,RR-4b", "--peers", "artemis", "--out",
                out.toString(), "--jvm-opts", "-Xmx256m"});
        assertEquals(0, status, "every run passed its exactly-once checks");
        String table = Files.readString(out.resolve("results.md"));
        assertTrue(table.contains("| workload | Wharf | Artemis | Wharf / best peer |"), table);
        assertTrue(Pattern.compile("\\| \\[RR-1 2 KB, 8 requesters]\\(RR-1-2-KB-8-requesters/report.md\\) \\| [0-9,]+ \\| - \\| - \\|")
                .matcher(table).find(), "RR-1 ran on Wharf alone: " + table);
        assertTrue(Pattern.compile("\\| \\[RR-4b 2 KB[^]]*]\\([^)]*\\) \\| [0-9,]+ \\| [0-9,]+ \\| \\*\\*[0-9]+\\.[0-9]{2}\\*\\* \\|")
                .matcher(table).find(), "RR-4b ran on both, with their ratio: " + table);
        assertTrue(table.contains("125,553 (MQI Local Bindings (2KB Non-persistent) : RR-1"), "the seed's row is quoted: " + table);
        assertTrue(Files.exists(out.resolve("RR-1-2-KB-8-requesters").resolve("report.md")), "each row has its own report");
    }
}
