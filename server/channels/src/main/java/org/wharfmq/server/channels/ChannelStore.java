package org.wharfmq.server.channels;

import org.wharfmq.server.config.ConfigurationException;
import org.wharfmq.server.store.AtomicFile;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The channels defined or altered at run time ({@code wharf admin define|alter channel}) and the channels stopped by
 * an operator ({@code stop channel}), kept in the data directory as {@value #FILE_NAME} so that both survive a restart
 * (as IBM MQ keeps a stopped channel STOPPED). Read once at the start of the channels, rewritten whole after every
 * change, as {@code queues.def} is (docs/operations.md, "Queues defined at run time"), and for the same reasons.
 *
 * <h2>Format</h2>
 * UTF-8 lines; {@code #} starts a comment. One channel per line: its name, then {@code key=value} fields, separated by
 * tabs, names and values URL-encoded. The keys are the channel's attributes as config/wharf.yaml names them
 * ({@link ChannelAttributes}); a line with {@code type} is a definition (it wins over the configuration's channel of
 * that name), one without only a state. {@code stopped=true} marks a channel an operator stopped;
 * {@code resetSequence=N} a sender whose receiver takes sequence number N at its next open ({@code reset channel}).
 *
 * <h2>Secrets</h2>
 * A sender's password is kept as config/wharf.yaml keeps it, so the file is written readable by its owner only
 * (where the file system has POSIX permissions).
 *
 * <p>Not thread-safe: its owner, {@link ChannelDefinitions}, serialises the changes.
 */
final class ChannelStore {

    /** The file's name in the data directory. */
    static final String FILE_NAME = "channels.def";
    private static final String STOPPED = "stopped";
    private static final String RESET = "resetSequence";
    private static final String HEADER = """
            # Channels defined or altered at run time (wharf admin define|alter channel), channels stopped with
            # wharf admin stop channel and senders reset with wharf admin reset channel; written by the queue manager after every change and read at its start. A
            # definition here wins over the configuration's channel of the same name (docs/distributed.md). Do not edit
            # while the queue manager runs. One channel per line: its name, then key=value (URL-encoded), tab-separated.
            """;

    /**
     * What the file keeps.
     *
     * @param defined the channels defined or altered at run time, by name, in the order they were first defined
     * @param stopped the channels an operator stopped
     * @param resets  the sequence numbers senders' receivers are to take at the next open, by channel
     */
    record Contents(Map<String, ChannelDefinition> defined, Set<String> stopped, Map<String, Long> resets) {
    }

    private final Path file;

    ChannelStore(Path dataDirectory) {
        this.file = dataDirectory.resolve(FILE_NAME);
    }

    Path path() {
        return file;
    }

    /**
     * What the file keeps; nothing when there is no file yet.
     *
     * @throws ConfigurationException naming the file, the line and what is wrong
     */
    Contents read() {
        Map<String, ChannelDefinition> defined = new LinkedHashMap<>();
        Set<String> stopped = new LinkedHashSet<>();
        Map<String, Long> resets = new LinkedHashMap<>();
        if (!Files.exists(file)) {
            return new Contents(defined, stopped, resets);
        }
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the channels defined at run time from " + file + ": " + e, e);
        }
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            String[] fields = line.split("\t");
            String name = decode(fields[0]);
            Map<String, String> attributes = new LinkedHashMap<>();
            for (int f = 1; f < fields.length; f++) {
                int eq = fields[f].indexOf('=');
                if (eq < 0) {
                    throw bad(i + 1, "'" + fields[f] + "' is not key=value");
                }
                attributes.put(decode(fields[f].substring(0, eq)), decode(fields[f].substring(eq + 1)));
            }
            if (Boolean.parseBoolean(attributes.remove(STOPPED))) {
                stopped.add(name);
            }
            String reset = attributes.remove(RESET);
            if (reset != null) {
                try {
                    resets.put(name, Long.parseLong(reset));
                } catch (NumberFormatException e) {
                    throw bad(i + 1, RESET + " '" + reset + "' is not a whole number");
                }
            }
            if (attributes.containsKey("type")) {
                try {
                    defined.put(name, ChannelAttributes.read(name, attributes, file.toString()));
                } catch (ConfigurationException e) {
                    throw bad(i + 1, e.getMessage());
                }
            } else if (!attributes.isEmpty()) {
                throw bad(i + 1, "attributes " + attributes.keySet() + " without a type");
            }
        }
        return new Contents(defined, stopped, resets);
    }

    private ConfigurationException bad(int line, String what) {
        return new ConfigurationException("Line " + line + " of " + file + " (the channels defined at run time): "
                + what + ". Correct or remove the line; the file is rewritten by 'wharf admin define|alter|delete"
                + " channel' and 'stop|start channel'.");
    }

    private static String decode(String text) {
        return URLDecoder.decode(text, StandardCharsets.UTF_8);
    }

    private static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8);
    }

    /** Replaces the file's content, atomically ({@link AtomicFile}): a crash leaves the old file or the new one. */
    void write(Contents contents) {
        StringBuilder text = new StringBuilder(HEADER);
        Set<String> names = new LinkedHashSet<>(contents.defined().keySet());
        names.addAll(contents.stopped());
        names.addAll(contents.resets().keySet());
        for (String name : names) {
            text.append(encode(name));
            ChannelDefinition d = contents.defined().get(name);
            if (d != null) {
                ChannelAttributes.of(d).forEach((key, value) -> text.append('\t').append(encode(key)).append('=')
                        .append(encode(value)));
            }
            if (contents.stopped().contains(name)) {
                text.append('\t').append(STOPPED).append("=true");
            }
            Long reset = contents.resets().get(name);
            if (reset != null) {
                text.append('\t').append(RESET).append('=').append(reset);
            }
            text.append('\n');
        }
        try {
            AtomicFile.write(file, text.toString(), true); // it may hold a sender's password
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write the channels defined at run time to " + file + ": " + e, e);
        }
    }
}
