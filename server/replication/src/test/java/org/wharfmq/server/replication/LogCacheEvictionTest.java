package org.wharfmq.server.replication;

import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.proto.RaftProtos.StateMachineLogEntryProto;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.raftlog.RaftLog;
import org.apache.ratis.server.raftlog.segmented.SegmentedRaftLog;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.AutoCloseableLock;
import org.apache.ratis.util.AwaitToRun;
import org.apache.ratis.util.SizeInBytes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.reflect.Field;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link LogCacheEviction}: a real Ratis segmented log whose cache-eviction thread, woken, always takes the log's
 * write lock (its open segment caches more than the cache may hold, and an open segment is never evicted), closed in
 * the order that hangs Ratis 3.2.1's own close: the close takes the write lock first, the eviction thread asks for it
 * next. The test holds the lock meanwhile, so the order is certain, not a race.
 */
class LogCacheEvictionTest {

    private static final int ENTRY_BYTES = 1024;

    /** The member's way: the eviction thread stopped first (its state machine's close), then the log closed. */
    @Test
    void aLogWhoseEvictionThreadWasStoppedClosesThoughTheThreadWasWokenForTheLock(@TempDir Path dir)
            throws Exception {
        SegmentedRaftLog log = openLog(dir, "stopped-first");
        LogCacheEviction eviction = LogCacheEviction.of(log);
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread closer = closer(failed, () -> {
            eviction.stop();
            log.close();
        });
        Thread evictor = raceCloseAndEviction(log, closer);
        closer.join(Trio.WAIT.toMillis());
        boolean hung = closer.isAlive();
        if (hung) {
            closer.interrupt(); // breaks the hang (the join in Ratis's close heeds it), so the test ends
            closer.join(Trio.WAIT.toMillis());
        }
        assertFalse(hung, "the log's close hung: the eviction thread waits for the write lock the close holds");
        assertNull(failed.get(), () -> "the close failed: " + failed.get());
        assertFalse(evictor.isAlive(), "the eviction thread still runs after the close");
    }

    /**
     * Ratis's own close in that order: the close holds the write lock and waits for the eviction thread, which waits
     * for the lock. The day this fails, Ratis's close no longer hangs there, and {@link LogCacheEviction} can go.
     */
    @Test
    void ratisOwnCloseHangsWhenTheEvictionThreadWaitsForTheLockItHolds(@TempDir Path dir) throws Exception {
        SegmentedRaftLog log = openLog(dir, "ratis-own");
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread closer = closer(failed, log::close);
        Thread evictor = raceCloseAndEviction(log, closer);
        try {
            Trio.await("the close to wait for the eviction thread, which waits for the lock the close holds",
                    () -> waitsForLockOf(evictor, closer) && inJoinOfEviction(closer));
        } finally {
            closer.interrupt(); // the join heeds it: the close goes on, releases the lock, the eviction thread ends
            closer.join(Trio.WAIT.toMillis());
        }
        assertFalse(closer.isAlive(), "the close did not end once interrupted");
    }

    @Test
    void aLogWithoutTheEvictionThreadIsRefusedNamingTheCause() {
        IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> LogCacheEviction.of(RaftLog.class.cast(java.lang.reflect.Proxy.newProxyInstance(
                        RaftLog.class.getClassLoader(), new Class<?>[] {RaftLog.class}, (p, m, a) -> null))));
        assertTrue(refused.getMessage().contains("cache-eviction thread")
                && refused.getMessage().contains("Ratis 3.2.1"), refused.getMessage());
    }

    /**
     * A log in {@code dir} holding four entries of {@link #ENTRY_BYTES} in its open segment, more than its cache may
     * hold (1 KiB): every time its eviction thread wakes it takes the write lock, and evicts nothing.
     */
    private static SegmentedRaftLog openLog(Path dir, String id) throws Exception {
        RaftProperties properties = new RaftProperties();
        RaftServerConfigKeys.Log.setSegmentSizeMax(properties, SizeInBytes.valueOf("8MB"));
        RaftServerConfigKeys.Log.setSegmentCacheSizeMax(properties, SizeInBytes.valueOf("1KB"));
        RaftStorage storage = RaftStorage.newBuilder().setDirectory(dir.toFile())
                .setOption(RaftStorage.StartupOption.FORMAT)
                .setStorageFreeSpaceMin(SizeInBytes.ONE_MB)
                .build();
        storage.initialize();
        SegmentedRaftLog log = SegmentedRaftLog.newBuilder()
                .setMemberId(RaftGroupMemberId.valueOf(RaftPeerId.valueOf(id), RaftGroupId.randomId()))
                .setStorage(storage)
                .setProperties(properties)
                .build();
        log.open(RaftLog.INVALID_LOG_INDEX, null);
        for (int i = 0; i < 4; i++) {
            log.appendEntry(LogEntryProto.newBuilder().setTerm(1).setIndex(i)
                    .setStateMachineLogEntry(StateMachineLogEntryProto.newBuilder()
                            .setLogData(ByteString.copyFrom(new byte[ENTRY_BYTES])))
                    .build()).get(Trio.WAIT.toSeconds(), TimeUnit.SECONDS);
        }
        return log;
    }

    /**
     * With the log's write lock held here: starts {@code closer}, waits until it waits for that lock, wakes the
     * eviction thread and waits until it waits for the lock too (or has ended: stopped before the close), then lets
     * the lock go, the closer first in line (the log's lock is fair). Returns the eviction thread.
     */
    private static Thread raceCloseAndEviction(SegmentedRaftLog log, Thread closer) throws Exception {
        Thread evictor = evictionThread(log);
        Trio.await("the eviction thread to wait for a signal", () -> waitsForSignal(evictor));
        try (AutoCloseableLock held = log.writeLock()) {
            closer.start();
            Trio.await("the close to wait for the log's write lock", () -> waitsForWriteLock(closer));
            cacheEviction(log).signal(); // as an append that rolled a segment, or a read that loaded one
            Trio.await("the eviction thread to wait for the log's write lock, or to have ended",
                    () -> waitsForWriteLock(evictor) || !evictor.isAlive());
        }
        return evictor;
    }

    @FunctionalInterface
    private interface Close {
        void run() throws Exception;
    }

    private static Thread closer(AtomicReference<Throwable> failed, Close close) {
        Thread thread = new Thread(() -> {
            try {
                close.run();
            } catch (Throwable t) {
                failed.set(t);
            }
        }, "log-closer");
        thread.setDaemon(true);
        return thread;
    }

    private static AwaitToRun cacheEviction(SegmentedRaftLog log) throws ReflectiveOperationException {
        Field field = SegmentedRaftLog.class.getDeclaredField("cacheEviction");
        field.setAccessible(true);
        return (AwaitToRun) field.get(log);
    }

    /** Ratis names the thread after its AwaitToRun: the member's id, then "-cacheEviction-AwaitToRun". */
    private static Thread evictionThread(SegmentedRaftLog log) throws ReflectiveOperationException {
        String name = cacheEviction(log).toString();
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals(name))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no thread named " + name));
    }

    private static boolean waitsForWriteLock(Thread thread) {
        Object blocker = LockSupport.getBlocker(thread);
        return blocker != null && blocker.getClass().getName().contains("ReentrantReadWriteLock");
    }

    private static boolean waitsForSignal(Thread thread) {
        Object blocker = LockSupport.getBlocker(thread);
        return thread.getState() == Thread.State.WAITING && blocker != null
                && !blocker.getClass().getName().contains("ReentrantReadWriteLock");
    }

    /** Whether {@code waiter} waits for a lock that {@code owner} holds. */
    private static boolean waitsForLockOf(Thread waiter, Thread owner) {
        ThreadInfo info = ManagementFactory.getThreadMXBean().getThreadInfo(waiter.getId());
        return info != null && info.getLockOwnerId() == owner.getId();
    }

    /** Whether {@code closer} joins the eviction thread (in Ratis's {@code AwaitToRun.close}). */
    private static boolean inJoinOfEviction(Thread closer) {
        StackTraceElement[] stack = closer.getStackTrace();
        return Arrays.stream(stack).anyMatch(f -> f.getMethodName().equals("join"))
                && Arrays.stream(stack).anyMatch(f -> f.getClassName().equals(AwaitToRun.class.getName())
                        && f.getMethodName().equals("close"));
    }
}
