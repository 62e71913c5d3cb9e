package org.wharfmq.perf.workload;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.perf.flow.BenchmarkDatabase;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The short form of F-DB-UPDATE on PostgreSQL ({@code --database postgres}): the runner starts a PostgreSQL server,
 * the flow's data source and then both plain loops (the statement alone, and the JMS application) use it, and it is
 * stopped after the run. The run passes only if the database counted one update per invocation (the runner's flow
 * check); the JMS application's line says its JVM's CPU per operation.
 */
@Tag("slow")
class PostgresWorkloadTest {

    @Test
    void fDbUpdateRunsAgainstAPostgresServerStartedForTheRun(@TempDir Path out) throws Exception {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        PrintStream stdout = System.out;
        int status;
        System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
        try {
            status = RunCommand.run(new String[] {"F-DB-UPDATE", "--database", "postgres", "--in-process",
                    "--requesters", "3", "--warmup", "1", "--run-length", "1", "--out", out.toString()}, false);
        } finally {
            System.setOut(stdout);
        }
        String progress = printed.toString(StandardCharsets.UTF_8);
        assertEquals(0, status, progress);
        assertTrue(progress.contains("database: PostgreSQL at jdbc:postgresql://127.0.0.1:"), progress);
        assertTrue(progress.contains("F-DB-UPDATE ceiling 4KB") && progress.contains("(JDBC statement, no messaging)"),
                progress);
        assertTrue(progress.contains("F-DB-UPDATE JMS application 4KB") && progress.contains(
                "plain JMS loop with a JDBC statement from a HikariCP pool, no flow engine"), progress);
        assertTrue(progress.contains("against a JMS application doing the same work: Wharf / loop = ")
                && progress.contains("by CPU per operation: the loop's JVM"), progress);
        assertTrue(Files.readString(out.resolve("report.md")).contains("--database postgres"));
        assertNull(System.getProperty(BenchmarkDatabase.URL_PROPERTY), "the server is forgotten with the run");
    }
}
