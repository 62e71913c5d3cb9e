package org.wharfmq.server.config;

import org.junit.jupiter.api.Test;
import org.wharfmq.server.Configuration;
import org.wharfmq.server.store.Durability;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A setting declared once ({@link Setting}): read from the file with its default, checked by its rules, and the
 * queue manager's table ({@link Configuration}) read, set, checked and handed out by {@link ServerConfig} with no
 * code of a setting's own there.
 */
class SettingTest {

    /** A setting the queue manager does not declare: another component's, or one of a test. */
    private static final Setting<Integer> ELSEWHERE = Setting.integer("elsewhere", 3).atLeast(1);

    private static Settings file(String key, String value) {
        Settings file = new Settings("wharf.yaml", "");
        file.put(key, new Settings.Value(value, 7));
        return file;
    }

    @Test
    void aSettingReadsItsKeyOrKeepsWhatItWasGivenWhenTheFileLeavesItOut() {
        Setting<Long> bytes = Setting.whole("maxBytes", 10);
        assertEquals(4096L, bytes.read(file("maxBytes", "4_096"), 10L));
        assertEquals(12L, bytes.read(file("other", "1"), 12L));
        Setting<Durability> durability = Setting.choice("durability", Durability.FSYNC, Durability::parse);
        assertEquals(Durability.OS, durability.read(file("durability", "OS"), Durability.FSYNC));
        ConfigurationException notANumber = assertThrows(ConfigurationException.class,
                () -> bytes.read(file("maxBytes", "lots"), 10L));
        assertEquals("Invalid value for setting 'maxBytes' in wharf.yaml at line 7: 'lots' is not a whole number.",
                notANumber.getMessage());
    }

    @Test
    void rulesAreCheckedInTheirOrderAndTheFirstBrokenOneNamesTheSettingAndTheValue() {
        Setting<String> name = Setting.text("name", "A").required()
                .check(n -> n.indexOf('/') < 0, n -> "must not hold a '/', was " + n);
        name.check("QM1");
        assertEquals("Setting name must not be empty.", assertThrows(ConfigurationException.class,
                () -> name.check(null)).getMessage(), "the first rule, before the second would see null");
        assertEquals("Setting name must not hold a '/', was a/b.", assertThrows(ConfigurationException.class,
                () -> name.check("a/b")).getMessage());
        assertEquals("Setting n must be 0 (off) or more, was -1.", assertThrows(ConfigurationException.class,
                () -> Setting.integer("n", 0).zeroOrMore("off").check(-1)).getMessage());
        assertEquals("Setting n must be 0 or more, was -1.", assertThrows(ConfigurationException.class,
                () -> Setting.whole("n", 0).zeroOrMore(null).check(-1L)).getMessage());
        assertEquals("Setting n must be between 1 and 5 bytes, was 6.", assertThrows(ConfigurationException.class,
                () -> Setting.integer("n", 1).between(1, 5, "bytes").check(6)).getMessage());
        Setting<Integer> plain = Setting.integer("n", 1);
        plain.atLeast(1);
        plain.check(-5); // a rule makes a new setting: the one it was made from keeps its own rules
    }

    /** A setting whose default is none (a queue's maxDepth: none is the queue manager's): none keeps its rules. */
    @Test
    void anOptionalSettingsRulesHoldForAValueThatIsSetAndTheEntryItBelongsToIsNamed() {
        Setting<Long> maxDepth = Setting.optionalWhole("maxDepth").atLeast(1);
        maxDepth.check(null);
        assertEquals("Setting maxDepth must be at least 1, was 0.", assertThrows(ConfigurationException.class,
                () -> maxDepth.check(0L)).getMessage());
        assertEquals("Setting n must be at least 1, was null.", assertThrows(ConfigurationException.class,
                () -> Setting.whole("n", 1).atLeast(1).check(null)).getMessage(), "a default: none is refused");
        Setting<String> usage = Setting.text("usage", null).whenSet("transmission"::equals, u -> "must be "
                + "transmission, was " + u);
        usage.check(null);
        assertEquals("Setting usage of queue 'Q' must be transmission, was xmitq.", assertThrows(
                ConfigurationException.class, () -> usage.checkAs("xmitq", "usage of queue 'Q'")).getMessage());
        Settings entry = file("maxDepth", "0");
        SettingValues values = SettingValues.ofEntry(entry, List.of(maxDepth, usage));
        assertEquals("Setting maxDepth of queue 'Q' must be at least 1, was 0. (in wharf.yaml at line 7)",
                assertThrows(ConfigurationException.class, () -> values.named("queue 'Q'").check()).getMessage());
        assertTrue(values.given(maxDepth) && !values.given(usage), "the file gave maxDepth alone");
    }

    @Test
    void theQueueManagersTableIsEveryDeclaredSettingWithADistinctKey() {
        List<Setting<?>> settings = ServerConfig.settings();
        assertEquals(Setting.declaredIn(Configuration.class), settings);
        assertTrue(settings.contains(Configuration.MAX_TEMPORARY_QUEUES_PER_CONNECTION));
        assertEquals("name", settings.get(0).key(), "in the order Configuration declares them");
        Set<String> keys = new HashSet<>();
        settings.forEach(s -> assertTrue(keys.add(s.key()), () -> "key " + s.key() + " declared twice"));
    }

    @Test
    void everyDeclaredSettingIsReadFromTheFileAndSetAndCheckedWithoutCodeOfItsOwn() {
        Settings file = file("maxTemporaryQueuesPerConnection", "9");
        file.put("durability", new Settings.Value("os", 8));
        ServerConfig read = ServerConfig.read(file).build();
        assertEquals(9, read.get(Configuration.MAX_TEMPORARY_QUEUES_PER_CONNECTION));
        assertEquals(9, read.maxTemporaryQueuesPerConnection(), "the older accessor reads the same value");
        assertEquals(Durability.OS, read.get(Configuration.DURABILITY));
        assertEquals(Configuration.MAX_QUEUES.defaultValue(), read.get(Configuration.MAX_QUEUES));
        file.refuseUnknown(); // both keys were asked for

        ServerConfig set = ServerConfig.builder().set(Configuration.FAN_OUT_WINDOW_BYTES, 8192L).build();
        assertEquals(8192L, set.fanOutWindowBytes());
        assertNull(set.get(Configuration.DEFAULT_TRANSMISSION_QUEUE));
        assertTrue(set.toString().contains("fanOutWindowBytes=8192"), set.toString());
        assertEquals("Setting fanOutWindowBytes must be at least 1024, was 1.", assertThrows(ConfigurationException.class,
                () -> ServerConfig.builder().set(Configuration.FAN_OUT_WINDOW_BYTES, 1L).build()).getMessage());
        assertEquals("Setting durability must not be empty.", assertThrows(ConfigurationException.class,
                () -> ServerConfig.builder().durability(null).build()).getMessage());
    }

    @Test
    void aSettingTheQueueManagerDoesNotDeclareIsRefusedNamingIt() {
        IllegalArgumentException set = assertThrows(IllegalArgumentException.class,
                () -> ServerConfig.builder().set(ELSEWHERE, 5));
        assertTrue(set.getMessage().startsWith("Setting elsewhere is not declared for the top level"), set.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ServerConfig.defaults().get(ELSEWHERE));
    }

    /** A component's declarations, as a plugin's class of named defaults has them. */
    static final class Declared {
        public static final Setting<Integer> PORT = Setting.integer("port", 7480).between(0, 65535, "");
        public static final Setting<String> PASSWORD = Setting.text("password", null).secret();
        public static final Setting<TlsConfig.Engine> ENGINE = Setting.choice("engine", TlsConfig.Engine.AUTO,
                TlsConfig::engine);
    }

    @Test
    void aSectionsValuesAreReadCheckedNamingTheirPathAndLineAndShownWithoutSecrets() {
        SettingValues defaults = SettingValues.defaults("http", Declared.class);
        assertEquals(List.of(Declared.PORT, Declared.PASSWORD, Declared.ENGINE), defaults.settings());
        assertEquals("{http.port=7480, http.password=null, http.engine=auto}", defaults.shown().toString(),
                "by path, in declaration order, a named value as the file writes it, none as null");

        Settings block = new Settings("wharf.yaml", "http");
        block.put("port", new Settings.Value("70000", 3));
        block.put("password", new Settings.Value("s3cret", 4));
        SettingValues read = defaults.read(block);
        assertEquals("s3cret", read.get(Declared.PASSWORD));
        assertEquals(Setting.REDACTED, read.shown().get("http.password"));
        assertTrue(!read.toString().contains("s3cret"), read.toString());
        assertEquals("Setting http.port must be between 0 and 65535, was 70000. (in wharf.yaml at line 3)",
                assertThrows(ConfigurationException.class, read::check).getMessage(), "the key by its path, the line");
        assertEquals("Setting http.port must be between 0 and 65535, was -1.", assertThrows(ConfigurationException.class,
                () -> read.with(Declared.PORT, -1).check()).getMessage(), "set in code: no line");
        assertEquals(8080, read.with(Declared.PORT, 8080).check().get(Declared.PORT));
        assertEquals(70000, read.get(Declared.PORT), "immutable: with made a copy");
        assertThrows(IllegalArgumentException.class, () -> read.get(ELSEWHERE));
    }
}
