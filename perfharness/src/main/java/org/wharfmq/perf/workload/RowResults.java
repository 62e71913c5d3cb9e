package org.wharfmq.perf.workload;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import org.wharfmq.perf.report.ResultsTable;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The finished lines of a {@code wharf perf report} run, one {@value #FILE} in each row's directory, written as each row
 * ends: what {@code --resume} reads back instead of running the row again. Owned by the one report run that writes
 * into {@code output}.
 */
final class RowResults {

    /** The file each finished row's line is kept in, in the row's own directory. */
    static final String FILE = "line.json";

    private static final JsonMapper JSON = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT)
            .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS).build();

    private final Path output;

    RowResults(Path output) {
        this.output = output;
    }

    /** Keeps {@code line}, the result of {@code row}. */
    void save(ResultsPlan.Row row, ResultsTable.Line line) throws IOException {
        Path dir = output.resolve(row.slug());
        Files.createDirectories(dir);
        Path tmp = dir.resolve(FILE + ".tmp");
        JSON.writeValue(tmp.toFile(), line);
        Files.move(tmp, dir.resolve(FILE), java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    /** The line an earlier run kept for {@code row}, or null when it has none (the row never ended). */
    ResultsTable.Line load(ResultsPlan.Row row) throws IOException {
        Path file = where(row);
        return Files.exists(file) ? JSON.readValue(file.toFile(), ResultsTable.Line.class) : null;
    }

    /** Where {@code row}'s line is kept. */
    Path where(ResultsPlan.Row row) {
        return output.resolve(row.slug()).resolve(FILE);
    }
}
