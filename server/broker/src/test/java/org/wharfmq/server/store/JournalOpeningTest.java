package org.wharfmq.server.store;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.server.config.ServerConfig;

import java.lang.reflect.Field;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.wharfmq.server.store.StoreHarness.Message;
import static org.wharfmq.server.store.StoreHarness.Recovered;

/** The journal opened on a thread of its own while a server starts ({@link JournalOpening}), and its POSIX binding. */
class JournalOpeningTest {

    @TempDir
    Path data;

    @Test
    void theStoreTakenIsTheJournalRecovered() throws Exception {
        ServerConfig config = StoreHarness.config(data);
        try (JournalMessageStore store = StoreHarness.open(config, new Recovered())) {
            StoreHarness.put(store, Message.of("Q", 1, "kept"));
        }
        Recovered recovered = new Recovered();
        try (JournalOpening opening = JournalOpening.begin(config); JournalMessageStore store = opening.take()) {
            store.recover(recovered);
            assertEquals(List.of("Q#1=kept"), recovered.messages);
            StoreHarness.put(store, Message.of("Q", 2, "written by the store taken")); // its writer runs
        }
    }

    @Test
    void aFailedOpenIsThrownByTakeAsItIs() throws Exception {
        ServerConfig config = StoreHarness.config(data);
        try (JournalMessageStore ignored = StoreHarness.open(config, new Recovered());
             JournalOpening opening = JournalOpening.begin(config)) {
            IllegalStateException e = assertThrows(IllegalStateException.class, opening::take);
            assertTrue(e.getMessage().contains("in use by another Wharf queue manager"), e.getMessage());
        }
    }

    @Test
    void anOpeningClosedUntakenReleasesTheDataDirectory() throws Exception {
        ServerConfig config = StoreHarness.config(data);
        JournalOpening opening = JournalOpening.begin(config);
        opening.opened().join(); // open: closed at once below (a start that failed after the open)
        opening.close();
        try (DataDirectoryLock lock = DataDirectoryLock.acquire(data.toAbsolutePath(), "OTHER", false)) {
            assertTrue(lock != null, "the lock of the store not taken is released");
        }
    }

    @Test
    void chroniclesPosixCallsAreBoundByReflectionNotByGeneratedCode() throws Exception {
        try (JournalMessageStore store = StoreHarness.open(StoreHarness.config(data), new Recovered())) {
            StoreHarness.put(store, Message.of("Q", 1, "a record: the writer's claim and page advice bind the calls"));
        }
        assertEquals("false", System.getProperty(Journal.JNR_ASM));
        Object posix = net.openhft.posix.PosixAPI.posix();
        Field binding = posix.getClass().getDeclaredField("jnr");
        binding.setAccessible(true);
        assertTrue(Proxy.isProxyClass(binding.get(posix).getClass()),
                "JNR generates a class and a stub per function (CPU at every start) unless bound by reflection: "
                        + binding.get(posix).getClass());
    }
}
