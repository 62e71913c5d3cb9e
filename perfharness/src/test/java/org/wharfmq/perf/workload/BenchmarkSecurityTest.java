package org.wharfmq.perf.workload;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.server.security.Identity;
import org.wharfmq.server.security.Quota;
import org.wharfmq.server.security.QuotaRules;
import org.wharfmq.server.security.file.SecurityFile;

import java.nio.file.Path;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The security file of {@code --security rules}: its one user may hold as many connections and queues as a run needs. */
class BenchmarkSecurityTest {

    /** RR-RATED's thousands of requesters are all the one user: the built-in 500 connections per user would refuse them. */
    @Test
    void theBenchmarkUserHasNoQuota(@TempDir Path dir) throws Exception {
        QuotaRules quotas = SecurityFile.load(BenchmarkSecurity.create(dir).file()).quotas();
        Identity perf = new Identity(BenchmarkSecurity.USER, Set.of("perf"), "SCRAM-SHA-256");
        for (Quota q : new Quota[] {Quota.CONNECTIONS, Quota.TEMPORARY_QUEUES, Quota.CREATED_QUEUES}) {
            assertEquals(QuotaRules.UNLIMITED, quotas.limit(perf, false, q).value(), q.toString());
        }
    }
}
