package org.wharfmq.server.replication;

import org.wharfmq.server.config.ConfigurationException;
import org.wharfmq.server.config.SettingValues;
import org.wharfmq.server.config.Settings;
import org.wharfmq.server.config.SettingsSection;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.LinkedHashMap;
import java.util.Map;

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
 *   logFileBytes: 33554432       # the Raft log's files (the default); only whole files are purged
 *   electionTimeoutMillis: 1000  # a replica hearing nothing from the active member for 1 to 1.5 s elects another
 *   probeActiveMember: true      # a replica elects at once when the silent active member's port is closed
 *   tls:
 *     keyStore: /etc/wharf/member-a.p12      # this member's key and certificate (PKCS#12)
 *     keyStorePassword: ...
 *     trustStore: /etc/wharf/replication-ca.p12   # the CA every member's certificate chains to
 *     trustStorePassword: ...
 * </pre>
 *
 * <p>Its keys are the settings {@link ReplicationConfiguration} declares (those of {@code tls:} in
 * {@link ReplicationConfiguration.Tls}), read, checked and shown here without a line of their own, and the list
 * {@code members:} ({@link Membership}; each entry's keys declared in {@link ReplicationConfiguration.MemberEntry}).
 * Immutable.
 */
public final class ReplicationSettings {

    /** The block's key in the file. */
    public static final String KEY = "replication";

    /** Reads the block: null when the file has none (a queue manager of its own). */
    public static final SettingsSection<ReplicationSettings> SECTION = file -> {
        Settings block = file.section(KEY);
        if (block == null) {
            return null;
        }
        SettingValues values = SettingValues.defaults(KEY, ReplicationConfiguration.class).read(block);
        Settings tls = block.section("tls");
        Membership membership = Membership.read(file, block, values.get(ReplicationConfiguration.GROUP));
        block.refuseUnknown();
        values.check();
        long logFile = values.get(ReplicationConfiguration.LOG_FILE_BYTES);
        long snapshotEvery = values.get(ReplicationConfiguration.SNAPSHOT_LOG_BYTES);
        if (snapshotEvery < logFile) {
            throw block.invalid("snapshotLogBytes", "it is " + snapshotEvery + ", below logFileBytes (" + logFile
                    + "): only whole log files are purged after a snapshot, so give " + logFile + " or more, or a "
                    + "smaller logFileBytes");
        }
        if (tls == null) {
            throw block.invalid("tls", "members authenticate each other with mutual TLS: give replication.tls with "
                    + "keyStore (this member's key and certificate, PKCS#12) and trustStore (the group's CA)");
        }
        SettingValues tlsValues = SettingValues.defaults(KEY + ".tls", ReplicationConfiguration.Tls.class).read(tls);
        tls.refuseUnknown();
        tlsValues.check();
        Path keyStore = tlsValues.get(ReplicationConfiguration.Tls.KEY_STORE);
        if (keyStore == null || tlsValues.get(ReplicationConfiguration.Tls.TRUST_STORE) == null) {
            throw tls.invalid(keyStore == null ? "keyStore" : "trustStore", "give both keyStore (this member's key "
                    + "and certificate, PKCS#12) and trustStore (the CA every member's certificate chains to)");
        }
        String member = values.get(ReplicationConfiguration.MEMBER);
        if (member != null) {
            try {
                membership.member(member);
            } catch (IllegalArgumentException e) {
                throw block.invalid("member", e.getMessage());
            }
        }
        return new ReplicationSettings(membership, values, tlsValues);
    };

    private final Membership membership;
    private final SettingValues values;
    private final SettingValues tlsValues;

    private ReplicationSettings(Membership membership, SettingValues values, SettingValues tlsValues) {
        this.membership = membership;
        this.values = values;
        this.tlsValues = tlsValues;
    }

    /** The three members. */
    public Membership membership() {
        return membership;
    }

    /** This instance's id, or null when the command line is to say it. */
    public String member() {
        return values.get(ReplicationConfiguration.MEMBER);
    }

    /**
     * These settings with this instance being member {@code id} (the command line's {@code --replica}, which
     * overrides {@code replication.member}): what {@link #shown()} then shows.
     *
     * @throws IllegalArgumentException naming the members, when the group has no member {@code id}
     */
    public ReplicationSettings withMember(String id) {
        membership.member(id);
        return new ReplicationSettings(membership, values.with(ReplicationConfiguration.MEMBER, id), tlsValues);
    }

    /**
     * A snapshot every this many bytes of Raft log applied, after which the log is purged
     * ({@link ReplicationConfiguration#SNAPSHOT_LOG_BYTES}).
     */
    public long snapshotLogBytes() {
        return values.get(ReplicationConfiguration.SNAPSHOT_LOG_BYTES);
    }

    /** This member's key and certificate, a PKCS#12 file. */
    public Path keyStore() {
        return tlsValues.get(ReplicationConfiguration.Tls.KEY_STORE);
    }

    /** The CA every member's certificate chains to, a PKCS#12 file. */
    public Path trustStore() {
        return tlsValues.get(ReplicationConfiguration.Tls.TRUST_STORE);
    }

    /**
     * The settings in force by their path ({@code replication.member}, {@code replication.tls.keyStore}), passwords as
     * {@value org.wharfmq.server.config.Setting#REDACTED}; the members as {@code id@host:port} each.
     */
    public Map<String, Object> shown() {
        Map<String, Object> shown = new LinkedHashMap<>(values.shown());
        shown.put(KEY + ".members", membership.members().stream().map(m -> m.id() + "@" + m.address()).toList()
                .toString());
        shown.putAll(tlsValues.shown());
        return shown;
    }

    @Override
    public String toString() { // no passwords
        return "ReplicationSettings" + shown();
    }

    /**
     * The replicated log's timings: this block's electionTimeoutMillis, probeActiveMember, snapshotLogBytes and
     * logFileBytes.
     */
    public ReplicationConfiguration.Timings timings() {
        return ReplicationConfiguration.Timings.of(values.get(ReplicationConfiguration.ELECTION_TIMEOUT_MILLIS),
                snapshotLogBytes(), values.get(ReplicationConfiguration.LOG_FILE_BYTES)).probing(values.get(ReplicationConfiguration.PROBE_ACTIVE_MEMBER));
    }

    /** This member's credentials, read from the key and trust stores. */
    public MemberTls tls() {
        try {
            char[] password = chars(tlsValues.get(ReplicationConfiguration.Tls.KEY_STORE_PASSWORD));
            return MemberTls.of(load(keyStore(), password), password, load(trustStore(),
                    chars(tlsValues.get(ReplicationConfiguration.Tls.TRUST_STORE_PASSWORD))));
        } catch (IOException | GeneralSecurityException e) {
            throw new ConfigurationException("The replication's TLS files cannot be used (" + e.getMessage()
                    + "): replication.tls.keyStore " + keyStore() + " and trustStore " + trustStore() + " must be PKCS#12 "
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
