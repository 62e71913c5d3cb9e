package org.wharfmq.server.config;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** A configuration file's tree as components read it: typed values, defaults, and errors naming file, key and line. */
class SettingsTest {

    private static Settings file() {
        Settings file = new Settings("wharf.yaml", "");
        file.put("port", new Settings.Value("7414", 1));
        file.put("name", new Settings.Value(null, 2));
        file.put("auto", new Settings.Value("TRUE", 3));
        Settings http = new Settings("wharf.yaml", "http");
        http.put("port", new Settings.Value("lots", 5));
        file.put("http", new Settings.Value(http, 4));
        file.put("protocols", new Settings.Value(List.of(new Settings.Value("TLSv1.3", 6)), 6));
        return file;
    }

    @Test
    void valuesAreReadAsTheOwnerAsksWithDefaultsForWhatIsLeftOut() {
        Settings file = file();
        assertEquals(7414, file.intValue("port", 1));
        assertEquals(7414L, file.longValue("port", 1));
        assertEquals(9, file.intValue("missing", 9));
        assertNull(file.text("name", "default"), "given empty: null, not the default");
        assertEquals("default", file.text("absent", "default"));
        assertEquals(true, file.flag("auto", false));
        assertEquals(List.of("TLSv1.3"), file.texts("protocols", List.of()));
        assertNull(file.section("none"));
        assertEquals(List.of(), file.sections("none"));
    }

    @Test
    void listedFilesAreTakenFromTheConfigurationFilesDirectory() {
        Settings file = new Settings("/etc/wharf/wharf.yaml", "");
        file.put("dirs", new Settings.Value(List.of(new Settings.Value("in", 2), new Settings.Value("/data/out", 3)), 1));
        assertEquals(List.of(Path.of("/etc/wharf/in"), Path.of("/data/out")), file.files("dirs"));
        assertEquals(List.of(), file.files("absent"));
        file.put("empty", new Settings.Value(List.of(new Settings.Value(" ", 5)), 4));
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> file.files("empty"));
        assertEquals("Invalid value for setting 'empty' in /etc/wharf/wharf.yaml at line 4: an entry is empty; give a path.",
                e.getMessage());
    }

    @Test
    void aBlockOfFreeKeysIsReadAsTextsInTheFilesOrder() {
        Settings file = new Settings("wharf.yaml", "");
        Settings jndi = new Settings("wharf.yaml", "jndi");
        jndi.put("java.naming.provider.url", new Settings.Value("tcp://peer:61616", 2));
        jndi.put("queue.orders", new Settings.Value("ORDERS", 3));
        file.put("jndi", new Settings.Value(jndi, 1));
        assertEquals(List.of("java.naming.provider.url", "queue.orders"), List.copyOf(file.textsByKey("jndi").keySet()));
        assertEquals("ORDERS", file.textsByKey("jndi").get("queue.orders"));
        assertEquals(java.util.Map.of(), file.textsByKey("absent"));
        jndi.refuseUnknown(); // every key was read
    }

    @Test
    void wholeNumbersAreTakenAsYamlWritesThem() {
        Settings file = new Settings("wharf.yaml", "");
        String[] texts = {"1000", "1_000", "0x3e8", "1e3", "1000.0"};
        for (int i = 0; i < texts.length; i++) {
            file.put("n" + i, new Settings.Value(texts[i], i + 1));
            assertEquals(1000L, file.longValue("n" + i, 0), texts[i]);
        }
        file.put("half", new Settings.Value("1.5", 9));
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> file.longValue("half", 0));
        assertEquals("Invalid value for setting 'half' in wharf.yaml at line 9: '1.5' is not a whole number.",
                e.getMessage());
        file.put("big", new Settings.Value("3000000000", 10));
        e = assertThrows(ConfigurationException.class, () -> file.intValue("big", 0));
        assertEquals("Invalid value for setting 'big' in wharf.yaml at line 10: '3000000000' is too large; at most "
                + Integer.MAX_VALUE + ".", e.getMessage());
    }

    @Test
    void aValueOfTheWrongTypeNamesItsPathFileAndLine() {
        Settings http = file().section("http");
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> http.intValue("port", 0));
        assertEquals("Invalid value for setting 'http.port' in wharf.yaml at line 5: 'lots' is not a whole number.",
                e.getMessage());
        Settings file = file();
        e = assertThrows(ConfigurationException.class, () -> file.flag("port", false));
        assertEquals("Invalid value for setting 'port' in wharf.yaml at line 1: '7414' is neither; give true or false.",
                e.getMessage());
        e = assertThrows(ConfigurationException.class, () -> file.intValue("http", 0));
        assertEquals("Invalid value for setting 'http' in wharf.yaml at line 4: it must be a whole number, not a block.",
                e.getMessage());
        e = assertThrows(ConfigurationException.class, () -> file.section("port"));
        assertEquals("Invalid value for setting 'port' in wharf.yaml at line 1: it must be a block of settings (key: "
                + "value lines, indented under it).", e.getMessage());
    }

    @Test
    void aKeyNoOneAskedForIsRefusedListingTheKnownOnes() {
        Settings file = file();
        file.intValue("port", 0);
        file.text("name", null);
        file.flag("auto", false);
        file.section("http");
        file.has("maxQueues");
        ConfigurationException e = assertThrows(ConfigurationException.class, file::refuseUnknown);
        assertEquals("Unknown setting 'protocols' in wharf.yaml at line 6. Known settings here: auto, http, maxQueues, "
                + "name, port.", e.getMessage());
        file.texts("protocols", null);
        file.refuseUnknown();
    }
}
