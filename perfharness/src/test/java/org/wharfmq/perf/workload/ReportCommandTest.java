package org.wharfmq.perf.workload;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code wharf perf report} end to end in its quick form, on a row of each kind: RR-1 (Wharf only: its clients are in
 * the server's JVM), RR-4b (Wharf and the Artemis peer), F-JMS (a flow beside its plain loop) and the footprint's two
 * memory rows (20 queues and connections on each server), each a real server and real clients in child JVMs.
 */
@Tag("slow")
class ReportCommandTest {

    @Test
    void writesTheResultsTableWithEachRowsReport(@TempDir Path out) throws Exception {
        int status = ReportCommand.run(new String[] {"--quick", "--only", "RR-1,RR-4b,F-JMS,FOOTPRINT", "--peers", "artemis", "--out",
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
        assertTrue(Pattern.compile("\\| \\[F-JMS 4 KB[^]]*]\\([^)]*\\) \\| [0-9,]+ \\| - \\| - \\| [^|]+ \\| [^|]+ \\| "
                + "[0-9,]+/s, plain JMS loop, no flow engine \\([0-9]+\\.[0-9]{2}\\) \\| 852 \\(seed 002: JMSInput -> JMSOutput Bytes 4K\\) \\|")
                .matcher(table).find(), "F-JMS on Wharf alone, beside its plain JMS loop and the seed's row: " + table);
        for (String item : List.of("idle connection", "defined queue")) {
            assertTrue(Pattern.compile("\\| Memory per " + item + " \\([^)]*\\) \\| -?[0-9.]+ KB \\(RSS -?[0-9.]+ KB\\) \\| "
                    + "-?[0-9.]+ KB \\(RSS -?[0-9.]+ KB\\) \\| [^|]+ \\| - \\| - \\| - \\| [0-9.]+ KB \\(seed 004 3.6")
                    .matcher(table).find(), "the memory per " + item + " of Wharf and Artemis from one footprint each: " + table);
        }
    }
}
