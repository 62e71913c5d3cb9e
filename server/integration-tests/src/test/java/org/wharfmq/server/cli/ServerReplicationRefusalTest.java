package org.wharfmq.server.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.server.TestCertificates;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code wharf server} with a {@code replication:} block refuses, before it starts anything, what cannot make a
 * member: a member it is not told, {@code --replica} without a block, a shared-disk standby, messages larger than a
 * log entry carries. Each refusal names the setting and the fix (exit status 2).
 */
class ServerReplicationRefusalTest {

    @TempDir
    Path dir;

    @Test
    void whatCannotMakeAMemberIsRefusedNamingTheFix() throws Exception {
        TestCertificates.Issued ca = TestCertificates.ca("replication-group");
        Path keys = TestCertificates.issue(ca, "CN=a", Duration.ofDays(1), "127.0.0.1").pkcs12(dir.resolve("a.p12"));
        Path trust = TestCertificates.trustStore(dir.resolve("ca.p12"), ca.certificate());
        String block = "replication:\n  group: TEST\n  members:\n"
                + member("a", 17421) + member("b", 17422) + member("c", 17423)
                + "  tls:\n    keyStore: " + keys + "\n    keyStorePassword: " + TestCertificates.PASSWORD
                + "\n    trustStore: " + trust + "\n    trustStorePassword: " + TestCertificates.PASSWORD + "\n";

        refused("not which one this instance is: give replication.member, or --replica ID (one of [a, b, c])",
                config("maxMessageLength: 1048576\n" + block));
        refused("has no member 'd'", config("maxMessageLength: 1048576\n" + block), "--replica", "d");
        refused("--replica a names a member of a replicated queue manager, but the configuration has no replication "
                + "block", config("maxMessageLength: 1048576\n"), "--replica", "a");
        refused("is no shared-disk standby", config("maxMessageLength: 1048576\nstandby: true\n" + block),
                "--replica", "a");
        refused("set maxMessageLength to 1073741824 or less", config("maxMessageLength: 1073741825\n" + block),
                "--replica", "a");
    }

    private String member(String id, int port) {
        return "    - id: " + id + "\n      address: 127.0.0.1:" + port + "\n      dataDirectory: " + dir.resolve(id)
                + "\n";
    }

    private Path config(String yaml) throws Exception {
        return Files.writeString(Files.createTempFile(dir, "wharf", ".yaml"), yaml);
    }

    private static void refused(String expected, Path config, String... args) {
        String[] all = new String[3 + args.length];
        all[0] = "server";
        all[1] = "--config";
        all[2] = config.toString();
        System.arraycopy(args, 0, all, 3, args.length);
        // wharf server writes its refusals to the process's stderr, not picocli's
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream processErr = System.err;
        FlowCommandAccess.Result result;
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            result = FlowCommandAccess.run(all);
        } finally {
            System.setErr(processErr);
        }
        String refusal = err.toString(StandardCharsets.UTF_8);
        assertEquals(ServerCommand.BAD_CONFIGURATION, result.status(), result.out() + result.err() + refusal);
        assertTrue(refusal.contains(expected), refusal);
    }
}
