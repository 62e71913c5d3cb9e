package org.wharfmq.server.config;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * One setting of a component, declared once, in its component's class of named defaults (the queue manager's in
 * {@link org.wharfmq.server.Configuration}): its key in {@code config/wharf.yaml}, its default, how the file's text
 * becomes its value, and the values it accepts. Its javadoc there is its documentation in the code; config/wharf.yaml
 * explains it to operators, with its default, and a test holds the file to the declarations
 * ({@code ConfigurationFileTest}). The component's loader reads every declared setting ({@link #read}), its builder
 * sets any ({@code ServerConfig.Builder.set}) and checks them all ({@link #check}), and its settings hand any out
 * ({@code ServerConfig.get}): a new setting is its declaration and its lines in config/wharf.yaml, and the code that
 * uses it.
 *
 * <p>A setting that holds a password or key material is {@link #secret()}: what shows settings in force
 * ({@link #shown}: {@code wharf admin display settings}, {@code toString}) shows it as {@value #REDACTED}.
 *
 * <p>Immutable: {@link #check(Predicate, Function)} makes a new setting with one more rule.
 *
 * @param <T> its value's type
 */
public final class Setting<T> {

    /** How a value is read from the file: {@code absent} when the file leaves the key out. */
    @FunctionalInterface
    private interface Reader<T> {
        T read(Settings file, String key, T absent);
    }

    /**
     * One rule a value must keep.
     *
     * @param ok  whether a value keeps it (given null too, for a setting set to null in code)
     * @param why what the setting must be, and the value it was, when it does not: {@code must be at least 1, was 0}
     */
    private record Rule<T>(Predicate<T> ok, Function<T, String> why) {
    }

    /** How a {@link #secret()} setting that is set is shown. */
    public static final String REDACTED = "***";

    private final String key;
    private final T defaultValue;
    private final Reader<T> reader;
    private final List<Rule<T>> rules;
    private final boolean secret;

    private Setting(String key, T defaultValue, Reader<T> reader, List<Rule<T>> rules, boolean secret) {
        this.key = key;
        this.defaultValue = defaultValue;
        this.reader = reader;
        this.rules = List.copyOf(rules);
        this.secret = secret;
    }

    private Setting(String key, T defaultValue, Reader<T> reader, List<Rule<T>> rules) {
        this(key, defaultValue, reader, rules, false);
    }

    /** A whole number that fits an int. */
    public static Setting<Integer> integer(String key, int defaultValue) {
        return new Setting<>(key, defaultValue, Settings::intValue, List.of());
    }

    /** A whole number (a long: bytes, milliseconds). */
    public static Setting<Long> whole(String key, long defaultValue) {
        return new Setting<>(key, defaultValue, Settings::longValue, List.of());
    }

    /** A whole number that fits an int, by default none (null: the default is another setting's, or none). */
    public static Setting<Integer> optionalInteger(String key) {
        return new Setting<>(key, null, (file, k, absent) -> {
            Integer value = file.intOrNull(k);
            return value == null ? absent : value;
        }, List.of());
    }

    /** A whole number (a long), by default none (null: the default is another setting's, or none). */
    public static Setting<Long> optionalWhole(String key) {
        return new Setting<>(key, null, (file, k, absent) -> {
            Long value = file.longOrNull(k);
            return value == null ? absent : value;
        }, List.of());
    }

    /** True or false, by default none (null: the default is another setting's). */
    public static Setting<Boolean> optionalFlag(String key) {
        return new Setting<>(key, null, (file, k, absent) -> {
            Boolean value = file.flagOrNull(k);
            return value == null ? absent : value;
        }, List.of());
    }

    /** True or false. */
    public static Setting<Boolean> flag(String key, boolean defaultValue) {
        return new Setting<>(key, defaultValue, Settings::flag, List.of());
    }

    /** A text; an empty value in the file is null. */
    public static Setting<String> text(String key, String defaultValue) {
        return new Setting<>(key, defaultValue, Settings::text, List.of());
    }

    /** A list of texts ({@code [a, b]}, or one {@code - } item a line). */
    public static Setting<List<String>> texts(String key, List<String> defaultValue) {
        return new Setting<>(key, defaultValue, Settings::texts, List.of());
    }

    /**
     * A block of keys of the file's choosing with their texts ({@link Settings#textsByKey}), in the file's order; by
     * default none.
     */
    public static Setting<Map<String, String>> textsByKey(String key) {
        return new Setting<>(key, Map.of(), (file, k, absent) -> file.has(k)
                ? Collections.unmodifiableMap(file.textsByKey(k)) : absent, List.of());
    }

    /**
     * A file, by default none: a relative name in the file is taken from the configuration file's directory
     * ({@link Settings#file}); an empty value is none.
     */
    public static Setting<Path> file(String key) {
        return new Setting<>(key, null, (file, k, absent) -> file.has(k) ? file.file(k) : absent, List.of());
    }

    /** A list of files (or directories), by default none, each as {@link #file(String)} takes it. */
    public static Setting<List<Path>> files(String key) {
        return new Setting<>(key, List.of(), (file, k, absent) -> file.has(k) ? file.files(k) : absent, List.of());
    }

    /**
     * One of some named values (an enum's).
     *
     * @param parse the value a text names, throwing a {@link ConfigurationException} that lists the names for any
     *              other (given null for an empty value)
     */
    public static <E> Setting<E> choice(String key, E defaultValue, Function<String, E> parse) {
        return new Setting<>(key, defaultValue, (file, k, absent) -> {
            String text = file.text(k, null); // the key known there, given or not ("Known settings here: ...")
            if (!file.has(k)) {
                return absent;
            }
            try {
                return parse.apply(text);
            } catch (ConfigurationException e) {
                throw new ConfigurationException(e.getMessage() + " (in " + file.where(k) + ")", e);
            }
        }, List.of());
    }

    /** This setting with one more rule: {@code why} makes the error's words from the value that breaks it. */
    public Setting<T> check(Predicate<T> ok, Function<T, String> why) {
        List<Rule<T>> more = new ArrayList<>(rules);
        more.add(new Rule<>(ok, why));
        return new Setting<>(key, defaultValue, reader, more, secret);
    }

    /**
     * This setting with one more rule for a value that is set: none (null) keeps it. For a setting whose default is
     * none (a queue's {@code maxDepth}: none means the queue manager's).
     */
    public Setting<T> whenSet(Predicate<T> ok, Function<T, String> why) {
        return check(v -> v == null || ok.test(v), why);
    }

    /**
     * A rule on a number: none (null) keeps it when the setting's default is none (an optional setting left out),
     * and breaks it otherwise.
     */
    private Setting<T> number(Predicate<Long> ok, Function<T, String> why) {
        boolean noneAllowed = defaultValue == null;
        return check(v -> v == null ? noneAllowed : ok.test(((Number) v).longValue()), why);
    }

    /** This setting, holding a password or key material: shown as {@value #REDACTED} when set. */
    public Setting<T> secret() {
        return new Setting<>(key, defaultValue, reader, rules, true);
    }

    /**
     * {@code value} as settings in force show it, as config/wharf.yaml writes it: null for none, a named value in
     * lower case, a file or a list as text, and a {@link #secret()} setting's value as {@value #REDACTED}.
     */
    public Object shown(T value) {
        if (value == null) {
            return null;
        }
        if (secret) {
            return REDACTED;
        }
        return value instanceof Number || value instanceof Boolean ? value : asText(value);
    }

    /**
     * {@code value} as config/wharf.yaml writes it, a {@link #secret()} setting's too (what keeps a setting, not what
     * shows it): null for none, a named value in lower case, any other as its {@code toString}.
     */
    public String asText(T value) {
        if (value instanceof Enum<?> named) {
            return named.toString().toLowerCase(Locale.ROOT);
        }
        return value == null ? null : value.toString();
    }

    /** This setting, refusing a value below {@code min} (and none, unless its default is none). */
    public Setting<T> atLeast(long min) {
        return number(v -> v >= min, v -> "must be at least " + min + ", was " + v);
    }

    /**
     * This setting, refusing a negative value (and none, unless its default is none); 0 means {@code zeroMeans}
     * ({@code automatic}, {@code off}), or null when it means nothing of its own.
     */
    public Setting<T> zeroOrMore(String zeroMeans) {
        return number(v -> v >= 0,
                v -> "must be 0" + (zeroMeans == null ? "" : " (" + zeroMeans + ")") + " or more, was " + v);
    }

    /**
     * This setting, refusing a value outside {@code min} to {@code max} (and none, unless its default is none);
     * {@code unit} follows the bounds ("bytes").
     */
    public Setting<T> between(long min, long max, String unit) {
        return number(v -> v >= min && v <= max,
                v -> "must be between " + min + " and " + max + (unit.isEmpty() ? "" : " " + unit) + ", was " + v);
    }

    /** This setting, refusing null and (for a text) a blank value. */
    public Setting<T> required() {
        return required("must not be empty");
    }

    /**
     * This setting, refusing null and (for a text) a blank value with {@code why}: what it must be, and the fix
     * ({@code "must be given: every member needs id, address and dataDirectory"}).
     */
    public Setting<T> required(String why) {
        return check(v -> v != null && !v.toString().isBlank(), v -> why);
    }

    /** The key in config/wharf.yaml: {@code maxQueues}. */
    public String key() {
        return key;
    }

    /** The value when the file leaves the key out. */
    public T defaultValue() {
        return defaultValue;
    }

    /**
     * Its value in {@code file} (marking the key known there), or {@code absent} when the file leaves it out.
     *
     * @throws ConfigurationException for a value of the wrong type, naming the file, the key and its line
     */
    public T read(Settings file, T absent) {
        return reader.read(file, key, absent);
    }

    /**
     * Checks {@code value} against this setting's rules, in the order they were declared.
     *
     * @throws ConfigurationException {@code Setting KEY must be ..., was VALUE.}, for the first rule it breaks
     */
    public void check(T value) {
        check(value, "");
    }

    /**
     * Checks {@code value} against this setting's rules, naming it by its place in the file.
     *
     * @param section the section the setting is in ({@code tls}, {@code replication.tls}), empty at the top level
     * @throws ConfigurationException {@code Setting SECTION.KEY must be ..., was VALUE.}, for the first rule it breaks
     */
    public void check(T value, String section) {
        checkAs(value, path(section));
    }

    /**
     * Checks {@code value} against this setting's rules, naming it as {@code name}: {@code tls.port}, or
     * {@code maxDepth of queue 'ORDERS'} for a key of a list's entry.
     *
     * @throws ConfigurationException {@code Setting NAME must be ..., was VALUE.}, for the first rule it breaks
     */
    public void checkAs(T value, String name) {
        for (Rule<T> rule : rules) {
            if (!rule.ok().test(value)) {
                throw new ConfigurationException("Setting " + name + " " + rule.why().apply(value) + ".");
            }
        }
    }

    /** Its key as messages name it in {@code section}: {@code port}, {@code tls.port}. */
    public String path(String section) {
        return section.isEmpty() ? key : section + "." + key;
    }

    /**
     * The settings a component declares: the public static final {@code Setting} fields of {@code declarations}, in
     * the order the class declares them (as the JVM reports them).
     */
    public static List<Setting<?>> declaredIn(Class<?> declarations) {
        List<Setting<?>> settings = new ArrayList<>();
        for (Field field : declarations.getDeclaredFields()) {
            int modifiers = field.getModifiers();
            if (field.getType() == Setting.class && Modifier.isStatic(modifiers) && Modifier.isPublic(modifiers)
                    && Modifier.isFinal(modifiers)) {
                try {
                    settings.add((Setting<?>) Objects.requireNonNull(field.get(null), field.getName()));
                } catch (IllegalAccessException e) {
                    throw new AssertionError("a public field", e);
                }
            }
        }
        return List.copyOf(settings);
    }

    /** {@code maxQueues (default 10000)}. */
    @Override
    public String toString() {
        return key + " (default " + defaultValue + ")";
    }
}
