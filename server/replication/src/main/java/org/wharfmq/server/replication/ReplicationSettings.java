package org.wharfmq.server.replication;

import org.wharfmq.server.config.ConfigurationException;
import org.wharfmq.server.config.Settings;
import org.wharfmq.server.config.SettingsSection;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;

/**
 * The {@code replication:} block of the configuration file: a replicated queue manager's three members, which one
 * this instance is, and the TLS files members prove themselves with (docs/resilience.md, "Replicated queue
 * manager"):
 *
 * <pre>
 * replication:
 *   group: WHARF                 # the replicated queue manager's name; every member must give the same
 *   member: a                    # which member this instance is (wharf server --replica b overrides it)
 *   members:
 *     - id: a
 *       address: mq1:7420        # the replication listener (not the clients' port)
 *       dataDirectory: /srv/wharf/a
 *     - ...
 *   snapshotLogBytes: 268435456  # a snapshot, and the log purged, every this many bytes of log (the default)
 *   tls:
 *     keyStore: /etc/wharf/member-a.p12      # this member's key and certificate (PKCS#12)
 *     keyStorePassword: ...
 *     trustStore: /etc/wharf/replication-ca.p12   # the CA every member's certificate chains to
 *     trustStorePassword: ...
 * </pre>
 *
 * @param membership       the three members
 * @param member           this instance's id, or null when the command line is to say it
 * @param snapshotLogBytes a snapshot every this many bytes of Raft log applied, after which the log is purged
 *                         ({@link ReplicationConfiguration#SNAPSHOT_EVERY_LOG_BYTES} unless set)
 */
public record ReplicationSettings(Membership membership, String member, Path keyStore, String keyStorePassword,
                                  Path trustStore, String trustStorePassword, long snapshotLogBytes) {

    /** The least {@code snapshotLogBytes} taken: one log file's bytes (only whole files are purged). */
    public static final long MIN_SNAPSHOT_LOG_BYTES = ReplicationConfiguration.LOG_SEGMENT_BYTES;

    /** Reads the block: null when the file has none (a queue manager of its own). */
    public static final SettingsSection<ReplicationSettings> SECTION = file -> {
        Settings block = file.section("replication");
        if (block == null) {
            return null;
        }
        String member = block.text("member", null);
        Settings tls = block.section("tls");
        Membership membership = Membership.read(file, block);
        long snapshotLogBytes = block.longValue("snapshotLogBytes", ReplicationConfiguration.SNAPSHOT_EVERY_LOG_BYTES);
        block.refuseUnknown();
        if (snapshotLogBytes < MIN_SNAPSHOT_LOG_BYTES) {
            throw block.invalid("snapshotLogBytes", "a snapshot is taken every snapshotLogBytes of log, and only whole "
                    + "log files of " + ReplicationConfiguration.LOG_SEGMENT_BYTES + " bytes are purged after it: give "
                    + MIN_SNAPSHOT_LOG_BYTES + " or more (the default is " + ReplicationConfiguration.SNAPSHOT_EVERY_LOG_BYTES
                    + ")");
        }
        if (tls == null) {
            throw block.invalid("tls", "members authenticate each other with mutual TLS: give replication.tls with "
                    + "keyStore (this member's key and certificate, PKCS#12) and trustStore (the group's CA)");
        }
        Path keyStore = tls.file("keyStore");
        String keyStorePassword = tls.text("keyStorePassword", null);
        Path trustStore = tls.file("trustStore");
        String trustStorePassword = tls.text("trustStorePassword", null);
        tls.refuseUnknown();
        if (keyStore == null || trustStore == null) {
            throw tls.invalid(keyStore == null ? "keyStore" : "trustStore", "give both keyStore (this member's key "
                    + "and certificate, PKCS#12) and trustStore (the CA every member's certificate chains to)");
        }
        if (member != null) {
            try {
                membership.member(member);
            } catch (IllegalArgumentException e) {
                throw block.invalid("member", e.getMessage());
            }
        }
        return new ReplicationSettings(membership, member, keyStore, keyStorePassword, trustStore,
                trustStorePassword, snapshotLogBytes);
    };

    /** The replicated log's timings: the defaults, with this block's snapshotLogBytes. */
    public ReplicationConfiguration.Timings timings() {
        ReplicationConfiguration.Timings d = ReplicationConfiguration.Timings.DEFAULT;
        return new ReplicationConfiguration.Timings(d.electionTimeoutMin(), d.electionTimeoutMax(), snapshotLogBytes,
                d.logSegmentBytes());
    }

    /** This member's credentials, read from the key and trust stores. */
    public MemberTls tls() {
        try {
            char[] password = chars(keyStorePassword);
            return MemberTls.of(load(keyStore, password), password, load(trustStore, chars(trustStorePassword)));
        } catch (IOException | GeneralSecurityException e) {
            throw new ConfigurationException("The replication's TLS files cannot be used (" + e.getMessage()
                    + "): replication.tls.keyStore " + keyStore + " and trustStore " + trustStore + " must be PKCS#12 "
                    + "files readable here, with the passwords given.", e);
        }
    }

    private static KeyStore load(Path file, char[] password) throws IOException, GeneralSecurityException {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(file)) {
            store.load(in, password);
        }
        return store;
    }

    private static char[] chars(String password) {
        return password == null ? new char[0] : password.toCharArray();
    }
}
