package org.wharfmq.server.store;

import org.wharfmq.server.config.ConfigurationException;
import org.wharfmq.server.config.QueueDefinition;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The queues an administrator defined or altered at run time ({@code wharf admin define|alter queue}), kept in the
 * data directory as {@value #FILE_NAME} so that they exist again after a restart. The queue manager reads it at start,
 * before the journal is recovered and before any listener opens, and rewrites it whole after every change.
 *
 * <h2>Why a file and not the journal</h2>
 * A definition changes rarely, is read once at start and is worth reading by a person (or backing up) on its own;
 * the journal is for messages and reclaims its files as they empty, which a definition that lives for years would
 * keep rewriting. The file is small: one line per queue.
 *
 * <h2>Format</h2>
 * UTF-8 lines; {@code #} starts a comment. One queue per line: its name, then its settings as {@code key=value}, all
 * separated by tabs. The name is URL-encoded (so a name may hold any character, a tab or a line break included).
 * Settings: {@code maxDepth} (the queue's own depth limit; absent: the server-wide {@code maxQueueDepth}).
 *
 * <h2>Atomic writes</h2>
 * A new version is written to {@value #FILE_NAME}{@code .tmp}, forced to the disk, renamed over the old one
 * (atomically), and the directory forced: a crash leaves the old file or the new one, never a part of either.
 *
 * <p>Not thread-safe: the queue manager serialises its changes.
 */
public final class QueueDefinitionFile {

    /** The file's name in the data directory. */
    public static final String FILE_NAME = "queues.def";
    private static final String MAX_DEPTH = "maxDepth";
    private static final String HEADER = """
            # Queues defined or altered at run time (wharf admin define queue, alter queue), written by the queue
            # manager after every change and read at its start. A definition here wins over the configuration's
            # queue of the same name (docs/operations.md). Do not edit while the queue manager runs.
            # One queue per line: its name (URL-encoded), then its settings as key=value, separated by tabs.
            """;

    /** The file, or null when definitions are not kept (a queue manager without a data directory of its own). */
    private final Path file;

    private QueueDefinitionFile(Path file) {
        this.file = file;
    }

    /** The definitions file of the data directory {@code dataDirectory}. */
    public static QueueDefinitionFile in(Path dataDirectory) {
        return new QueueDefinitionFile(dataDirectory.resolve(FILE_NAME));
    }

    /** No file: definitions made at run time last until the queue manager stops (tests, benchmarks). */
    public static QueueDefinitionFile none() {
        return new QueueDefinitionFile(null);
    }

    /** Where the definitions are kept; null for {@link #none()}. */
    public Path path() {
        return file;
    }

    /**
     * The definitions kept, in file order; none when there is no file yet.
     *
     * @throws ConfigurationException when a line cannot be read (it names the file, the line and what is wrong)
     * @throws UncheckedIOException   when the file cannot be read
     */
    public List<QueueDefinition> read() {
        List<QueueDefinition> definitions = new ArrayList<>();
        if (file == null || !Files.exists(file)) {
            return definitions;
        }
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the queues defined at run time from " + file + ": " + e, e);
        }
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            definitions.add(parse(line, i + 1));
        }
        return definitions;
    }

    private QueueDefinition parse(String line, int number) {
        String[] fields = line.split("\t");
        String name;
        try {
            name = URLDecoder.decode(fields[0], StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw bad(number, "the queue name '" + fields[0] + "' is not URL-encoded: " + e.getMessage());
        }
        Long maxDepth = null;
        for (int f = 1; f < fields.length; f++) {
            int eq = fields[f].indexOf('=');
            String key = eq < 0 ? fields[f] : fields[f].substring(0, eq);
            if (!key.equals(MAX_DEPTH) || eq < 0) {
                throw bad(number, "unknown setting '" + fields[f] + "' (known: " + MAX_DEPTH + "=N)");
            }
            try {
                maxDepth = Long.parseLong(fields[f].substring(eq + 1));
            } catch (NumberFormatException e) {
                throw bad(number, MAX_DEPTH + " must be a whole number, not '" + fields[f].substring(eq + 1) + "'");
            }
            if (maxDepth < 1) {
                throw bad(number, MAX_DEPTH + " must be at least 1, not " + maxDepth);
            }
        }
        return new QueueDefinition(name, maxDepth);
    }

    private ConfigurationException bad(int line, String what) {
        return new ConfigurationException("Line " + line + " of " + file + " (the queues defined at run time): " + what
                + ". Correct or remove the line; the file is rewritten by 'wharf admin define|alter|delete queue'.");
    }

    /**
     * Replaces the file's content with {@code definitions}, atomically (see the class comment); nothing with
     * {@link #none()}.
     *
     * @throws UncheckedIOException when it cannot be written (the old file is then left as it was)
     */
    public void write(Collection<QueueDefinition> definitions) {
        if (file == null) {
            return;
        }
        StringBuilder text = new StringBuilder(HEADER);
        for (QueueDefinition d : definitions) {
            text.append(URLEncoder.encode(d.name(), StandardCharsets.UTF_8));
            if (d.maxDepth() != null) {
                text.append('\t').append(MAX_DEPTH).append('=').append(d.maxDepth());
            }
            text.append('\n');
        }
        Path temporary = file.resolveSibling(FILE_NAME + ".tmp");
        try {
            Files.createDirectories(file.getParent());
            try (FileChannel out = FileChannel.open(temporary, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                out.write(StandardCharsets.UTF_8.encode(text.toString()));
                out.force(true);
            }
            Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            try (FileChannel directory = FileChannel.open(file.getParent(), StandardOpenOption.READ)) {
                directory.force(true); // the rename itself survives a crash
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write the queues defined at run time to " + file + ": " + e, e);
        }
    }
}
