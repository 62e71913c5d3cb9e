package org.wharfmq.server.security;

import org.junit.jupiter.api.Test;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.server.LogCapture;
import org.wharfmq.server.WharfException;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The counts behind the quotas: exact under threads that take at once, given back, per user, REJECTs per minute. */
class UserQuotasTest {

    private static final Identity APP1 = new Identity("app1", Set.of("apps"), "SCRAM-SHA-256");
    private static final Identity APP2 = new Identity("app2", Set.of("apps"), "SCRAM-SHA-256");
    private static final Identity OPS = new Identity("ops", Set.of("admins"), "SCRAM-SHA-256");

    private final AccessControl control = new AccessControl(PermissionRules.builder().admin("group:admins").build(),
            new QuotaRules(Map.of(Quota.CREATED_QUEUES, 50, Quota.REJECTS_PER_MINUTE, 3), List.of(), List.of(), true),
            "security file test.yaml");
    private final UserQuotas quotas = control.quotas();

    @Test
    void threadsTakingAtOnceNeverPassTheQuotaAndWhatIsGivenBackMakesRoom() throws Exception {
        int threads = 8;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch go = new CountDownLatch(1);
        AtomicInteger taken = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();
        try {
            List<Future<?>> all = new java.util.ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                all.add(pool.submit(() -> {
                    go.await();
                    for (int i = 0; i < 100; i++) {
                        try {
                            quotas.takeCreatedQueue(APP2, "Q." + thread + "." + i, "test");
                            taken.incrementAndGet();
                        } catch (WharfException e) {
                            assertEquals(ErrorCode.TOO_MANY_QUEUES, e.code());
                            refused.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> f : all) {
                f.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(50, taken.get());
        assertEquals(750, refused.get());
        quotas.takeCreatedQueue(APP1, "OTHER", "test"); // another user's count is its own
        Runnable giveBack = quotas.takeCreatedQueue(APP1, "OTHER2", "test");
        assertSame(giveBack, quotas.takeCreatedQueue(APP1, "OTHER3", "test"), "made once per user and quota");
        assertThrows(WharfException.class, () -> quotas.takeCreatedQueue(APP2, "ONE.MORE", "test"));
        quotas.giveBack(APP2, Quota.CREATED_QUEUES);
        quotas.takeCreatedQueue(APP2, "ONE.MORE", "test");
        for (int i = 0; i < 200; i++) {
            quotas.takeCreatedQueue(OPS, "OPS." + i, "test"); // an admin: unlimited
        }
        quotas.takeCreatedQueue(Identity.SERVER, "SYSTEM.X", "test");
    }

    @Test
    void rejectsPastTheQuotaOfAMinuteAreRefusedAndLoggedOnce() {
        try (LogCapture audit = LogCapture.of(AuditLog.NAME)) {
            for (int i = 0; i < 3; i++) {
                assertTrue(quotas.takeReject(APP2, "/10.0.0.7:5"));
            }
            for (int i = 0; i < 50; i++) {
                assertFalse(quotas.takeReject(APP2, "/10.0.0.7:5"));
            }
            assertTrue(quotas.takeReject(APP1, "/10.0.0.8:5"), "another user's are its own");
            assertEquals(1, audit.lines().size(), String.valueOf(audit.lines()));
            assertTrue(audit.lines().get(0).startsWith("WARNING REFUSED user 'app2' from /10.0.0.7:5: REJECT to the"
                    + " dead-letter queue: user 'app2' is at its quota of 3 deliveries rejected to the dead-letter queue"
                    + " per minute (quotas.default.rejectsPerMinute in the security file)."), audit.lines().get(0));
        }
    }

    @Test
    void aFloodOfRefusalsIsOneAuditLineAMinute() {
        try (LogCapture audit = LogCapture.of(AuditLog.NAME)) {
            for (int i = 0; i < 50; i++) {
                quotas.takeCreatedQueue(APP1, "Q." + i, "/10.0.0.8:5");
            }
            for (int i = 0; i < 500; i++) {
                assertThrows(WharfException.class, () -> quotas.takeCreatedQueue(APP1, "PAST", "/10.0.0.8:5"));
            }
            assertEquals(List.of("WARNING REFUSED user 'app1' from /10.0.0.8:5: queues created by use: Queue 'PAST'"
                    + " cannot be created: user 'app1' is at its quota of 50 queues created by use"
                    + " (quotas.default.createdQueues in the security file). Let the queues it no longer uses be deleted"
                    + " once unused (setting autoDeleteDelayMillis), or raise its quota there."), audit.lines());
        }
    }

    @Test
    void withoutASecurityFileNothingIsCounted() {
        UserQuotas none = AccessControl.allowAll().quotas();
        for (int i = 0; i < 2000; i++) {
            assertSame(UserQuotas.NOTHING, none.takeConnection(APP2, "test"));
            assertTrue(none.takeReject(APP2, "test"));
        }
    }
}
