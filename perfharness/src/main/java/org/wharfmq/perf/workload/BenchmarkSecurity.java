package org.wharfmq.perf.workload;

import org.wharfmq.protocol.auth.ScramCredential;
import org.wharfmq.server.security.file.UsersFileEditor;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;

/**
 * The security file of {@code wharf perf run --security rules}: one user, {@value #USER} in group {@code perf}, with a
 * password made up for the run, and permission rules that let that group do everything the workloads do, after rules
 * about other destinations that every check must walk past first (as an operator's file would have). So each client
 * logs in by SCRAM-SHA-256 and each producer, consumer, browser, subscription and anonymous send is checked against
 * a rule list, which is the cost issue 21 says must not be measurable on RR-4 and PS-N. The user's quotas of
 * connections and queues are unlimited: the built-in 500 connections per user would refuse RR-RATED's larger steps.
 * A queue manager of RR-5, RR-5b or OW-5 ({@link QueueManagerPair}) also has its partner's channel user, in group
 * {@code channels}: the {@code channel} permission and {@code send} on every queue, as docs/distributed.md sets a
 * partner up.
 *
 * @param file     the security file written
 * @param password the password of {@value #USER}
 */
record BenchmarkSecurity(Path file, String password) {

    /** The user every driver logs in as. */
    static final String USER = "perf";

    private static final String RULES = """
            # written by wharf perf run --security rules: a user the drivers log in as, rules they are checked against
            users:

            permissions:
              - queue: "PAYROLL.**"           # rules about other destinations, walked past by every check
                receive: [user:payroll]
                browse: [user:payroll]
              - queue: "AUDIT.*"
                send: [group:auditors]
              - topic: "payroll/#"
                subscribe: [user:payroll]
              - queue: "**"                   # the workloads' queues
                send: [group:perf, group:channels]
                receive: [group:perf]
                browse: [group:perf]
                create: [group:perf]
              - topic: "#"                    # the workloads' topics
                publish: [group:perf]
                subscribe: [group:perf]
                durable: [group:perf]
              - connect: [group:perf, group:channels]
              - channel: [group:channels]     # RR-5, OW-5: the partner queue manager's channels log in as its user

            quotas:                           # every client of a run is this one user: RR-RATED has thousands
              "group:perf": {connections: unlimited, temporaryQueues: unlimited, createdQueues: unlimited}
            """;

    private static final SecureRandom RANDOM = new SecureRandom();

    /** Writes the file into {@code directory}, with a new random password. */
    static BenchmarkSecurity create(Path directory) throws IOException {
        String password = newPassword();
        Path file = directory.resolve("security.yaml");
        write(file, password, null, null);
        return new BenchmarkSecurity(file, password);
    }

    /**
     * Writes {@code file}: {@value #USER} with {@code password}, and when {@code channelUser} is not null that user
     * (the partner queue manager's channel logs in as it) with {@code channelPassword} in group {@code channels}.
     */
    static void write(Path file, String password, String channelUser, String channelPassword) throws IOException {
        Files.writeString(file, RULES);
        UsersFileEditor editor = UsersFileEditor.open(file);
        editor.put(USER, ScramCredential.create(password.toCharArray(), ScramCredential.MIN_ITERATIONS, RANDOM), List.of("perf"));
        if (channelUser != null) {
            editor.put(channelUser, ScramCredential.create(channelPassword.toCharArray(), ScramCredential.MIN_ITERATIONS,
                    RANDOM), List.of("channels"));
        }
        editor.save();
    }

    /** A password made up for one run. */
    static String newPassword() {
        byte[] secret = new byte[12];
        RANDOM.nextBytes(secret);
        return HexFormat.of().formatHex(secret);
    }
}
