package org.wharfmq.server.replication;

import org.junit.jupiter.api.Test;
import org.wharfmq.server.LogCapture;
import org.wharfmq.server.TestCertificates;

import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The members' certificate check: the CA's decision unchanged, and a refusal written to the log naming the certificate
 * and the fix, its name as a log line may quote it, and at most one such warning per interval.
 */
class MemberCertificateCheckTest {

    @Test
    void aRefusedCertificateIsNamedOnceAndAMembersPassesUnsaid() throws Exception {
        TestCertificates.Issued group = TestCertificates.ca("group");
        TestCertificates.Issued outsider = TestCertificates.ca("outsider");
        X509Certificate[] member = {TestCertificates.issue(group, "CN=b,O=Wharf Test", Duration.ofDays(1))
                .certificate()};
        X509Certificate[] intruder = {TestCertificates.issue(outsider, "CN=c\nWARNING: forged,O=Outsider",
                Duration.ofDays(1)).certificate()};
        MemberCertificateCheck check = new MemberCertificateCheck(groupTrust(group), Duration.ofDays(1));
        try (LogCapture log = LogCapture.of(MemberCertificateCheck.class.getName())) {
            check.checkClientTrusted(member, "UNKNOWN");
            check.checkServerTrusted(member, "UNKNOWN");
            assertEquals(List.of(), log.lines(), "a member's certificate passes without a word");

            CertificateException refused = assertThrows(CertificateException.class,
                    () -> check.checkClientTrusted(intruder, "UNKNOWN"));
            assertEquals(1, log.lines().size(), log.lines().toString());
            String warning = log.lines().get(0);
            // the names as X500Principal gives them (RFC 2253: the last name first)
            assertTrue(warning.startsWith("WARNING Replication refused a member calling in: its certificate "
                    + "'O=Outsider,CN=c?WARNING: forged' issued by 'O=Wharf Test,CN=outsider'"), warning);
            assertFalse(warning.contains("\n"), "the peer's name writes no line of its own: " + warning);
            assertTrue(warning.contains(refused.getMessage().substring(0, 20)) && warning.contains("replication.tls.trustStore")
                    && warning.contains("docs/resilience.md"), warning);

            // refused every time, written once per interval (a refused peer tries again at every heartbeat)
            assertThrows(CertificateException.class, () -> check.checkServerTrusted(intruder, "UNKNOWN"));
            assertEquals(1, log.lines().size(), log.lines().toString());
        }
    }

    @Test
    void everyRefusalIsWrittenWhenTheIntervalIsZeroCountingNone() throws Exception {
        TestCertificates.Issued group = TestCertificates.ca("group");
        X509Certificate[] intruder = {TestCertificates.issue(TestCertificates.ca("outsider"), "CN=c,O=Outsider",
                Duration.ofDays(1)).certificate()};
        MemberCertificateCheck check = new MemberCertificateCheck(groupTrust(group), Duration.ZERO);
        try (LogCapture log = LogCapture.of(MemberCertificateCheck.class.getName())) {
            assertThrows(CertificateException.class, () -> check.checkServerTrusted(intruder, "UNKNOWN"));
            assertThrows(CertificateException.class, () -> check.checkServerTrusted(intruder, "UNKNOWN"));
            assertEquals(2, log.lines().size(), log.lines().toString());
            assertTrue(log.lines().get(1).startsWith("WARNING Replication refused the member it called: its "
                    + "certificate 'O=Outsider,CN=c'"), log.lines().get(1));
            assertFalse(log.lines().get(1).contains("more refusals"), log.lines().get(1));
        }
    }

    private static X509ExtendedTrustManager groupTrust(TestCertificates.Issued ca) throws Exception {
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(TestCertificates.trustStore(ca.certificate()));
        return (X509ExtendedTrustManager) tmf.getTrustManagers()[0];
    }
}
