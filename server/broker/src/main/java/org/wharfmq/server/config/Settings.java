package org.wharfmq.server.config;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * One mapping of a configuration file ({@code config/wharf.yaml}, or one of its sections such as {@code http:}), as
 * the file gave it: each key's value as text (or a nested mapping, or a list) with its line, and nothing converted
 * yet. The component that owns the keys reads them with the typed getters, each naming its default, so a value of
 * the wrong type is refused naming the file, the key's path and its line. Every getter records its key as known:
 * {@link #refuseUnknown()} then refuses a key nobody asked for, listing the known ones, so a typo never silently
 * falls back to a default. The command line builds the tree from YAML; the broker knows nothing of YAML.
 *
 * <p>Not thread-safe: read by one thread while the configuration is loaded.
 */
public final class Settings {

    /**
     * A value as the file gave it.
     *
     * @param content the text of a scalar (null for an empty value), a {@link Settings} for a mapping, or a
     *                {@code List<Value>} for a list
     * @param line    its line in the file (1 = the first), 0 when unknown
     */
    public record Value(Object content, int line) {
    }

    private final String source;
    private final String path;
    private final Map<String, Value> entries = new LinkedHashMap<>();
    private final Set<String> known = new TreeSet<>();
    /** What {@link #section(String, Map)} found at an old place, to be told at start ({@link #warnings()}). */
    private final List<String> warnings = new ArrayList<>();

    /**
     * An empty mapping, to be filled with {@link #put}.
     *
     * @param source the file it comes from, for messages
     * @param path   where it is in the file: empty at the top, {@code http}, {@code queues[1]}
     */
    public Settings(String source, String path) {
        this.source = source;
        this.path = path;
    }

    /** Adds a key with its value as the file gives it (a later one of the same key replaces it, as YAML readers do). */
    public void put(String key, Value value) {
        entries.put(key, value);
    }

    /** The file these settings come from. */
    public String source() {
        return source;
    }

    /** Where this mapping is in the file, as messages name it: empty at the top, {@code http}, {@code queues[1]}. */
    public String path() {
        return path;
    }

    /** The path of {@code key} in the file, as messages name it: {@code port}, {@code http.port}, {@code queues[1].name}. */
    public String path(String key) {
        return path.isEmpty() ? key : path + "." + key;
    }

    /** Whether the file gives {@code key} here (even with an empty value); marks it known. */
    public boolean has(String key) {
        known.add(key);
        return entries.containsKey(key);
    }

    /**
     * A mapping of texts that come from no YAML file (an admin command's arguments, a line of the queues' definitions
     * file), read as a file's: {@code source} names them in errors ({@code the command 'alter queue ORDERS'}).
     *
     * @param path where the mapping is, for errors: empty at the top level
     */
    public static Settings ofTexts(String source, String path, Map<String, String> texts) {
        Settings settings = new Settings(source, path);
        texts.forEach((key, text) -> settings.put(key, new Value(text, 0)));
        return settings;
    }

    /** The text of {@code key}: {@code absent} when the file leaves it out, null when it gives it empty. */
    public String text(String key, String absent) {
        Value value = value(key);
        if (value == null) {
            return absent;
        }
        return scalar(key, value, "a text");
    }

    /**
     * The file named by {@code key}, or null when the file leaves it out or gives it empty: a relative name is taken
     * from the configuration file's directory (security.yaml and the TLS files beside wharf.yaml), an absolute one
     * as it is.
     */
    public Path file(String key) {
        String name = text(key, null);
        if (name == null) {
            return null;
        }
        return resolve(name);
    }

    /**
     * The files (or directories) listed by {@code key}, each as {@link #file(String)} takes it; empty when the file
     * leaves it out or gives it empty.
     *
     * @throws ConfigurationException when an entry is empty
     */
    public List<Path> files(String key) {
        List<Path> files = new ArrayList<>();
        for (String name : texts(key, List.of())) {
            if (name == null || name.isBlank()) {
                throw invalid(key, "an entry is empty; give a path");
            }
            files.add(resolve(name));
        }
        return files;
    }

    /** A name from this file: a relative one taken from the file's directory. */
    private Path resolve(String name) {
        Path directory = Path.of(source).toAbsolutePath().getParent();
        return directory == null ? Path.of(name) : directory.resolve(name);
    }

    /** The whole number (int) of {@code key}, {@code absent} when the file leaves it out. */
    public int intValue(String key, int absent) {
        Integer value = intOrNull(key);
        return value == null ? absent : value;
    }

    /** The whole number (long) of {@code key}, {@code absent} when the file leaves it out. */
    public long longValue(String key, long absent) {
        Long value = longOrNull(key);
        return value == null ? absent : value;
    }

    /** The whole number (int) of {@code key}, or null when the file leaves it out or gives it empty. */
    public Integer intOrNull(String key) {
        Long value = longOrNull(key);
        if (value != null && (value < Integer.MIN_VALUE || value > Integer.MAX_VALUE)) {
            throw invalid(key, value(key), "'" + value + "' is too large; at most " + Integer.MAX_VALUE);
        }
        return value == null ? null : value.intValue();
    }

    /** The whole number (long) of {@code key}, or null when the file leaves it out. */
    public Long longOrNull(String key) {
        Value value = value(key);
        if (value == null) {
            return null;
        }
        String text = scalar(key, value, "a whole number");
        if (text == null) {
            throw invalid(key, value, "it is empty; give a whole number, or leave the key out for the default");
        }
        Long number = wholeNumber(text.trim().replace("_", ""));
        if (number == null) {
            throw invalid(key, value, "'" + text + "' is not a whole number");
        }
        return number;
    }

    /** 1000, 0x3e8, 1e3 or 1000.0 (as YAML readers take them), or null for anything else, 1.5 among them. */
    private static Long wholeNumber(String text) {
        try {
            if (text.startsWith("0x") || text.startsWith("0X")) {
                return Long.parseLong(text.substring(2), 16);
            }
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            try {
                return new java.math.BigDecimal(text).longValueExact();
            } catch (NumberFormatException | ArithmeticException notWhole) {
                return null;
            }
        }
    }

    /** The true or false of {@code key}, {@code absent} when the file leaves it out. */
    public boolean flag(String key, boolean absent) {
        Boolean value = flagOrNull(key);
        return value == null ? absent : value;
    }

    /** The true or false of {@code key}, or null when the file leaves it out. */
    public Boolean flagOrNull(String key) {
        Value value = value(key);
        if (value == null) {
            return null;
        }
        String text = scalar(key, value, "true or false");
        if ("true".equalsIgnoreCase(text == null ? null : text.trim())) {
            return true;
        }
        if ("false".equalsIgnoreCase(text == null ? null : text.trim())) {
            return false;
        }
        throw invalid(key, value, (text == null ? "it is empty" : "'" + text + "' is neither") + "; give true or false");
    }

    /** The list of texts of {@code key} ({@code [a, b]} or one item a line), {@code absent} when the file leaves it out. */
    public List<String> texts(String key, List<String> absent) {
        Value value = value(key);
        if (value == null || value.content() == null) {
            return absent;
        }
        List<String> texts = new ArrayList<>();
        for (Value item : list(key, value)) {
            texts.add(scalar(key, item, "a list of texts"));
        }
        return texts;
    }

    /**
     * The block of {@code key} as keys of the file's choosing with their texts (such as a JNDI environment), in the
     * file's order; empty when the file leaves it out or gives it empty.
     */
    public Map<String, String> textsByKey(String key) {
        Settings block = section(key);
        Map<String, String> texts = new LinkedHashMap<>();
        if (block != null) {
            for (String name : block.entries.keySet()) {
                texts.put(name, block.text(name, null));
            }
        }
        return texts;
    }

    /** The mapping of {@code key} (a section such as {@code http:}), or null when the file leaves it out or empty. */
    public Settings section(String key) {
        Value value = value(key);
        if (value == null || value.content() == null) {
            return null;
        }
        if (!(value.content() instanceof Settings section)) {
            throw invalid(key, value, "it must be a block of settings (key: value lines, indented under it)");
        }
        return section;
    }

    /**
     * The mapping of {@code key} (a section such as {@code flowHost:}) with the keys that earlier versions read here,
     * at this level, moved into it: each old key the file still gives here is read as its new key of the section
     * (the section made when the file has none), with a warning ({@link #warnings()}) naming the old key, its line and
     * its new place, so that an upgrade reads a working file as before. A file that gives both is refused.
     *
     * @param formerKeys each old key here, with its key in the section ({@code flowHostUser} to {@code user})
     * @return the section, or null when the file gives neither it nor an old key
     * @throws ConfigurationException naming both keys and their lines, when the file gives an old key and its new one
     */
    public Settings section(String key, Map<String, String> formerKeys) {
        Settings block = section(key);
        for (Map.Entry<String, String> moved : new TreeMap<>(formerKeys).entrySet()) {
            Value old = value(moved.getKey());
            if (old == null) {
                continue;
            }
            String newPath = path(key) + "." + moved.getValue();
            if (block != null && block.entries.containsKey(moved.getValue())) {
                throw new ConfigurationException("Settings '" + path(moved.getKey()) + "' (" + source + at(old)
                        + ") and '" + newPath + "' (" + block.where(moved.getValue()) + ") are one setting, given "
                        + "twice: delete '" + path(moved.getKey()) + "', its old place.");
            }
            if (block == null) {
                block = new Settings(source, path(key));
            }
            block.put(moved.getValue(), old);
            warnings.add("Setting '" + path(moved.getKey()) + "' in " + source + at(old) + " has moved to '"
                    + newPath + "' (as '" + moved.getValue() + "' under '" + key + ":'); read at its old place for "
                    + "now: move it there.");
        }
        return block;
    }

    /** What this mapping's readers found at an old place ({@link #section(String, Map)}), for the log at start. */
    public List<String> warnings() {
        return List.copyOf(warnings);
    }

    /**
     * The list of mappings of {@code key} (such as {@code queues:}), empty when the file leaves it out or gives it
     * empty; an empty entry is an empty mapping.
     */
    public List<Settings> sections(String key) {
        Value value = value(key);
        if (value == null || value.content() == null) {
            return List.of();
        }
        List<Settings> sections = new ArrayList<>();
        List<Value> items = list(key, value);
        for (int i = 0; i < items.size(); i++) {
            Object item = items.get(i).content();
            if (item == null) {
                sections.add(new Settings(source, path(key) + "[" + i + "]"));
            } else if (item instanceof Settings section) {
                sections.add(section);
            } else {
                throw invalid(key, items.get(i), "each entry must be a block of settings (key: value lines), not '"
                        + item + "'");
            }
        }
        return sections;
    }

    /** Where the file gives {@code key} here, as messages say it ({@code config/wharf.yaml at line 12}), or null. */
    public String where(String key) {
        Value value = entries.get(key);
        return value == null ? null : source + at(value);
    }

    /**
     * Refuses the first key here that no getter asked for, naming it, its file and line, and the known keys. Call it
     * once the owner has read every key it knows, before checking the values (a misspelt key explains more than the
     * default it left in place).
     *
     * @throws ConfigurationException for an unknown key
     */
    public void refuseUnknown() {
        for (Map.Entry<String, Value> entry : entries.entrySet()) {
            if (!known.contains(entry.getKey())) {
                throw new ConfigurationException("Unknown setting '" + path(entry.getKey()) + "' in " + source
                        + at(entry.getValue()) + ". Known settings here: " + String.join(", ", known) + ".");
            }
        }
    }

    /**
     * An error about the value of {@code key}: {@code Invalid value for setting 'KEY' in FILE at line N: WHY.}
     *
     * @param why what is wrong and how to put it right
     */
    public ConfigurationException invalid(String key, String why) {
        return invalid(key, entries.get(key), why);
    }

    private Value value(String key) {
        known.add(key);
        return entries.get(key);
    }

    private String scalar(String key, Value value, String expected) {
        Object content = value.content();
        if (content == null || content instanceof String) {
            return (String) content;
        }
        throw invalid(key, value, "it must be " + expected + ", not " + (content instanceof Settings ? "a block" : "a list"));
    }

    @SuppressWarnings("unchecked")
    private List<Value> list(String key, Value value) {
        if (!(value.content() instanceof List)) {
            throw invalid(key, value, "it must be a list ([a, b], or one '- ' entry a line)");
        }
        return (List<Value>) value.content();
    }

    private ConfigurationException invalid(String key, Value value, String why) {
        return new ConfigurationException("Invalid value for setting '" + path(key) + "' in " + source + at(value)
                + ": " + why + ".");
    }

    private static String at(Value value) {
        return value == null || value.line() < 1 ? "" : " at line " + value.line();
    }
}
