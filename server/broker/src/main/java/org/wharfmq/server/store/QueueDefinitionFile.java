package org.wharfmq.server.store;

import org.wharfmq.server.config.ConfigurationException;
import org.wharfmq.server.config.QueueDefinition;
import org.wharfmq.server.config.QueueConfiguration;
import org.wharfmq.server.config.QueueReference;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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
 * separated by tabs. The name and the values are URL-encoded (so they may hold any character, a tab or a line break
 * included). The settings are a queue's keys ({@code QueueConfiguration}), named and written as in config/wharf.yaml
 * ({@code maxDepth=1000}, {@code usage=transmission}) and read back through the same declarations
 * ({@link QueueDefinition#attributes}, {@link QueueDefinition#read(String, Map, String)}); one left out has its
 * default. A queue alias, remote
 * queue or queue-manager alias ({@link QueueReference}) is a line with {@code type=alias} or {@code type=remote} and
 * its other keys ({@code QueueConfiguration.Reference}: {@code target}, {@code remoteQueue}...), written and read
 * back the same way ({@link QueueReference#attributes}, {@link QueueReference#read(String, Map, String)}).
 *
 * <h2>Atomic writes</h2>
 * A new version is written to {@value #FILE_NAME}{@code .tmp}, forced to the disk, renamed over the old one
 * (atomically), and the directory forced: a crash leaves the old file or the new one, never a part of either.
 *
 * <h2>Replicated</h2>
 * On the active member of a replicated queue manager ({@link #replicated}) every new version is also handed, whole, to
 * the replication, and a change is done only once a majority of the members has it: the next active member reads the
 * same file (docs/resilience.md, "Replicated queue manager").
 *
 * <p>Not thread-safe: the queue manager serialises its changes.
 */
public final class QueueDefinitionFile {

    /**
     * Where a new version of the file goes besides this member's disk: the replicated queue manager's log.
     */
    @FunctionalInterface
    public interface Replication {

        /**
         * Replicates {@code content}, the whole new file named {@code name}; returns once a majority of the members
         * has it. Called on the thread that changes a definition (an admin command), never on a hot path.
         *
         * @throws IllegalStateException when it is not confirmed (this member is not, or no longer, the active one):
         *                               the change is not done, and the message says why
         */
        void replicate(String name, byte[] content);
    }

    /** The file's name in the data directory. */
    public static final String FILE_NAME = "queues.def";
    /** The key that makes a line a {@link QueueReference}'s, as config/wharf.yaml names it. */
    private static final String TYPE = QueueConfiguration.Reference.TYPE.key();

    /**
     * What the file keeps.
     *
     * @param queues     the queues defined or altered at run time
     * @param references the queue aliases, remote queues and queue-manager aliases defined at run time
     */
    public record Contents(List<QueueDefinition> queues, List<QueueReference> references) {
    }
    private static final String HEADER = """
            # Queues defined or altered at run time (wharf admin define queue|alias|remote, alter queue), written by the queue
            # manager after every change and read at its start. A definition here wins over the configuration's
            # queue of the same name (docs/operations.md). Do not edit while the queue manager runs.
            # One queue per line: its name (URL-encoded), then its settings as key=value, separated by tabs.
            """;

    /** The file, or null when definitions are not kept (a queue manager without a data directory of its own). */
    private final Path file;
    /** Where each new version goes too; null on a queue manager of its own. */
    private final Replication replication;

    private QueueDefinitionFile(Path file, Replication replication) {
        this.file = file;
        this.replication = replication;
    }

    /** The definitions file of the data directory {@code dataDirectory}. */
    public static QueueDefinitionFile in(Path dataDirectory) {
        return new QueueDefinitionFile(dataDirectory.resolve(FILE_NAME), null);
    }

    /**
     * The definitions file of the active member of a replicated queue manager: every version written to
     * {@code dataDirectory} and to {@code replication}.
     */
    public static QueueDefinitionFile replicated(Path dataDirectory, Replication replication) {
        return new QueueDefinitionFile(dataDirectory.resolve(FILE_NAME), replication);
    }

    /** No file: definitions made at run time last until the queue manager stops (tests, benchmarks). */
    public static QueueDefinitionFile none() {
        return new QueueDefinitionFile(null, null);
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
    public Contents read() {
        List<QueueDefinition> definitions = new ArrayList<>();
        List<QueueReference> references = new ArrayList<>();
        if (file == null || !Files.exists(file)) {
            return new Contents(definitions, references);
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
            Object parsed = parse(line, i + 1);
            if (parsed instanceof QueueReference r) {
                references.add(r);
            } else {
                definitions.add((QueueDefinition) parsed);
            }
        }
        return new Contents(definitions, references);
    }

    /** A line: a {@link QueueDefinition}, or a {@link QueueReference} when it has a type. */
    private Object parse(String line, int number) {
        String[] fields = line.split("\t");
        String name;
        try {
            name = URLDecoder.decode(fields[0], StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw bad(number, "the queue name '" + fields[0] + "' is not URL-encoded: " + e.getMessage());
        }
        Map<String, String> settings = new LinkedHashMap<>();
        for (int f = 1; f < fields.length; f++) {
            int eq = fields[f].indexOf('=');
            if (eq < 0) {
                throw bad(number, "'" + fields[f] + "' is not a setting (key=value)");
            }
            settings.put(fields[f].substring(0, eq), URLDecoder.decode(fields[f].substring(eq + 1),
                    StandardCharsets.UTF_8));
        }
        try {
            return settings.containsKey(TYPE) ? QueueReference.read(name, settings, "the line")
                    : QueueDefinition.read(name, settings, "the line");
        } catch (ConfigurationException e) {
            throw bad(number, e.getMessage());
        }
    }

    private ConfigurationException bad(int line, String what) {
        String said = what.endsWith(".") ? what.substring(0, what.length() - 1) : what;
        return new ConfigurationException("Line " + line + " of " + file + " (the queues defined at run time): " + said
                + ". Correct or remove the line; the file is rewritten by 'wharf admin define|alter|delete queue'.");
    }

    /** Appends {@code \tkey=value} (the value URL-encoded) unless the setting is null (its default). */
    private static void append(StringBuilder text, String key, Object value) {
        if (value != null) {
            text.append('\t').append(key).append('=').append(URLEncoder.encode(value.toString(), StandardCharsets.UTF_8));
        }
    }

    /**
     * Replaces the file's content with {@code definitions}, atomically (see the class comment), and replicates it
     * when {@link #replicated}; nothing with {@link #none()}.
     *
     * @throws UncheckedIOException  when it cannot be written (the old file is then left as it was)
     * @throws IllegalStateException when the replication does not confirm it (see {@link Replication#replicate})
     */
    public void write(Collection<QueueDefinition> definitions, Collection<QueueReference> references) {
        if (file == null) {
            return;
        }
        StringBuilder text = new StringBuilder(HEADER);
        for (QueueDefinition d : definitions) {
            text.append(URLEncoder.encode(d.name(), StandardCharsets.UTF_8));
            d.attributes().forEach((key, value) -> append(text, key, value));
            text.append('\n');
        }
        for (QueueReference r : references) {
            text.append(URLEncoder.encode(r.name(), StandardCharsets.UTF_8));
            r.attributes().forEach((key, value) -> append(text, key, value));
            text.append('\n');
        }
        byte[] content = text.toString().getBytes(StandardCharsets.UTF_8);
        try {
            AtomicFile.write(file, content, false);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write the queues defined at run time to " + file + ": " + e, e);
        }
        if (replication != null) {
            replication.replicate(FILE_NAME, content);
        }
    }
}
