package org.wharfmq.perf.workload;

import org.wharfmq.server.FreePorts;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The two queue managers of a distributed queuing step (RR-5, RR-5b, OW-5), set up as docs/distributed.md does:
 * {@value #QM1}, where the requesters (producers) connect, and {@value #QM2}, where the responders (consumers) do,
 * joined by {@code channels} channels each way. Writes a {@code wharf.yaml} and a security file for each:
 * <ul>
 *   <li>channel c (1..N) is a sender/receiver pair {@code QM1.TO.QM2.c} with transmission queue {@code QM2.XMIT.c} on
 *       QM1, and {@code QM2.TO.QM1.c} with {@code QM1.XMIT.c} on QM2, each logging in to its partner by SCRAM as the
 *       partner's channel user ({@code qm1} on QM2, {@code qm2} on QM1: the {@code channel} permission and
 *       {@code send}; {@link BenchmarkSecurity}); so N channels are N definitions each way;</li>
 *   <li>queue k (a request queue, or OW-5's producer's queue) is a local queue on QM2 and a remote queue definition of
 *       the same name on QM1 through channel ((k - 1) mod N) + 1;</li>
 *   <li>RR-5's reply queue k is a local queue on QM1; the requesters name it {@code QM1.Rk/REPLYk} in JMSReplyTo, and
 *       on QM2 the queue-manager alias {@code QM1.Rk} leads to QM1 through the same channel's way back;</li>
 *   <li>the queue-manager alias {@code QM1} on QM2 leads through channel 1's way back: the replies to RR-5b's
 *       temporary queues, whose JMSReplyTo QM1 names by its own name.</li>
 * </ul>
 * The clients log in to both as {@value BenchmarkSecurity#USER}. The listeners are on 127.0.0.1, on ports found free
 * just before the files are written (each queue manager names the other's in its channels). Channels keep their
 * stock settings (batches of 50, no batch interval); each queue manager has {@link #IO_THREADS} event loops. With {@code --tls ENGINE} each queue manager also has a TLS
 * listener (that engine, a throwaway certificate: {@link SelfSignedTls}) and the channels connect to it
 * ({@code ssl://} with that engine too, trusting that certificate); the clients stay on the plain listeners: the channels' TLS is what
 * is measured.
 *
 * @param qm1Config  QM1's wharf.yaml
 * @param qm2Config  QM2's wharf.yaml
 * @param qm1Port    QM1's listener
 * @param qm2Port    QM2's listener
 * @param password   the password of {@value BenchmarkSecurity#USER} on both
 * @param forward    the queues on QM2 that QM1's clients put to
 * @param replies    RR-5's reply queues on QM1 (empty for RR-5b and OW-5)
 */
record QueueManagerPair(Path qm1Config, Path qm2Config, int qm1Port, int qm2Port, String password, List<String> forward,
                        List<String> replies) {

    /** The queue manager of the measured drivers (requesters, producers). */
    static final String QM1 = "QM1";
    /** The queue manager of the background drivers (responders, consumers). */
    static final String QM2 = "QM2";
    /** The most channels each way (the seed's RR-5 uses ten). */
    static final int MAX_CHANNELS = 10;
    /**
     * Each queue manager's event loops: half the machine's processors (at least one), so that the pair has one loop
     * per processor between them, as one queue manager alone has (its stock {@code ioThreads}). Four loops on two
     * cores sleep and wake twice as often per round trip and hand messages between loops inside each queue manager
     * (docs/performance-log.md, "RR-5: where the two queue managers' CPU per round trip goes").
     */
    static final int IO_THREADS = Math.max(1, Runtime.getRuntime().availableProcessors() / 2);
    /** RR-5's requesters name reply queue k by {@code QM1.Rk/REPLYk} ({@code -rm}). */
    static final String REPLY_ALIAS_PREFIX = QM1 + ".R";

    /**
     * Writes the files of a step into {@code dir}, named after {@code step}.
     *
     * @param forward   the queues on QM2 that QM1's clients put to (queue k travels on channel ((k - 1) mod N) + 1)
     * @param replies   RR-5's reply queues on QM1 (reply queue k back on channel ((k - 1) mod N) + 1); empty for none
     * @param channels  N, the channels each way
     */
    static QueueManagerPair write(Path dir, String step, List<String> forward, List<String> replies, int channels)
            throws IOException {
        return write(dir, step, forward, replies, channels, null, null);
    }

    /**
     * Writes the files as {@link #write(Path, String, List, List, int)} does, the channels over TLS when {@code tls} is
     * not null: each queue manager's TLS listener with {@code engine}, its senders {@code ssl://} to the other's.
     */
    static QueueManagerPair write(Path dir, String step, List<String> forward, List<String> replies, int channels,
                                  SelfSignedTls tls, String engine) throws IOException {
        int[] ports = FreePorts.take(4); // plain QM1, plain QM2, TLS QM1, TLS QM2
        String password = BenchmarkSecurity.newPassword();
        String qm1Channel = BenchmarkSecurity.newPassword();
        String qm2Channel = BenchmarkSecurity.newPassword();
        Path qm1Security = dir.resolve(step + "-qm1-security.yaml").toAbsolutePath();
        Path qm2Security = dir.resolve(step + "-qm2-security.yaml").toAbsolutePath();
        BenchmarkSecurity.write(qm1Security, password, "qm2", qm2Channel);
        BenchmarkSecurity.write(qm2Security, password, "qm1", qm1Channel);

        StringBuilder qm1 = header(QM1, ports[0], qm1Security, tls, engine, ports[2]);
        qm1.append("queues:\n");
        for (int c = 1; c <= channels; c++) {
            transmissionQueue(qm1, QM2 + ".XMIT." + c);
        }
        for (int k = 1; k <= forward.size(); k++) {
            qm1.append("  - name: ").append(forward.get(k - 1)).append('\n')
                    .append("    type: remote\n")
                    .append("    remoteQueue: ").append(forward.get(k - 1)).append('\n')
                    .append("    remoteQueueManager: ").append(QM2).append('\n')
                    .append("    transmissionQueue: ").append(QM2).append(".XMIT.").append(channelOf(k, channels)).append('\n');
        }
        for (String reply : replies) {
            qm1.append("  - name: ").append(reply).append('\n');
        }
        channels(qm1, QM1, QM2, partner(tls, engine, ports[1], ports[3]), "qm1", qm1Channel, channels);

        StringBuilder qm2 = header(QM2, ports[1], qm2Security, tls, engine, ports[3]);
        qm2.append("queues:\n");
        for (int c = 1; c <= channels; c++) {
            transmissionQueue(qm2, QM1 + ".XMIT." + c);
        }
        for (String queue : forward) {
            qm2.append("  - name: ").append(queue).append('\n');
        }
        queueManagerAlias(qm2, QM1, 1);
        for (int k = 1; k <= replies.size(); k++) {
            queueManagerAlias(qm2, REPLY_ALIAS_PREFIX + k, channelOf(k, channels));
        }
        channels(qm2, QM2, QM1, partner(tls, engine, ports[0], ports[2]), "qm2", qm2Channel, channels);

        Path qm1Config = dir.resolve(step + "-qm1.yaml").toAbsolutePath();
        Path qm2Config = dir.resolve(step + "-qm2.yaml").toAbsolutePath();
        Files.writeString(qm1Config, qm1);
        Files.writeString(qm2Config, qm2);
        return new QueueManagerPair(qm1Config, qm2Config, ports[0], ports[1], password, List.copyOf(forward),
                List.copyOf(replies));
    }

    /** The channel (1..N) queue number {@code k} (1..) travels on. */
    static int channelOf(int k, int channels) {
        return (k - 1) % channels + 1;
    }

    /** {@code prefix1 .. prefixN}. */
    static List<String> numbered(String prefix, int n) {
        List<String> names = new ArrayList<>();
        for (int k = 1; k <= n; k++) {
            names.add(prefix + k);
        }
        return names;
    }

    /**
     * Where a sender reaches its partner: its plain listener, or its TLS one trusting the throwaway certificate, with
     * the same engine as the listeners.
     */
    private static String partner(SelfSignedTls tls, String engine, int port, int tlsPort) {
        if (tls == null) {
            return "    connection: tcp://127.0.0.1:" + port + "\n";
        }
        return "    connection: ssl://127.0.0.1:" + tlsPort + "\n"
                + "    tls:\n"
                + "      trustStore: " + tls.store() + "\n"
                + "      trustStorePassword: " + SelfSignedTls.PASSWORD + "\n"
                + "      engine: " + engine + "\n";
    }

    private static StringBuilder header(String name, int port, Path security, SelfSignedTls tls, String engine,
                                        int tlsPort) {
        StringBuilder yaml = new StringBuilder()
                .append("# written by wharf perf run for a distributed queuing step (docs/benchmarks.md, RR-5)\n")
                .append("name: ").append(name).append('\n')
                .append("host: 127.0.0.1\n")
                .append("port: ").append(port).append('\n')
                .append("inVmName: wharf-perf-").append(ProcessHandle.current().pid()).append('-').append(name).append('\n')
                .append(ServerMain.limitsYaml())
                .append("security:\n  file: ").append(security).append('\n')
                .append("ioThreads: ").append(IO_THREADS).append('\n');
        if (tls != null) {
            yaml.append("tls:\n")
                    .append("  port: ").append(tlsPort).append('\n')
                    .append("  engine: ").append(engine).append('\n')
                    .append("  keyStore: ").append(tls.store()).append('\n')
                    .append("  keyStorePassword: ").append(SelfSignedTls.PASSWORD).append('\n');
        }
        return yaml;
    }

    private static void transmissionQueue(StringBuilder yaml, String name) {
        yaml.append("  - name: ").append(name).append('\n').append("    usage: transmission\n");
    }

    private static void queueManagerAlias(StringBuilder yaml, String name, int channel) {
        yaml.append("  - name: ").append(name).append('\n')
                .append("    type: remote\n")
                .append("    remoteQueueManager: ").append(QM1).append('\n')
                .append("    transmissionQueue: ").append(QM1).append(".XMIT.").append(channel).append('\n');
    }

    /** The senders from {@code self} to {@code partner} (at {@code partnerPort}) and the receivers of the way back. */
    private static void channels(StringBuilder yaml, String self, String partner, String connection, String user,
                                 String password, int channels) {
        yaml.append("channels:\n");
        for (int c = 1; c <= channels; c++) {
            yaml.append("  - name: ").append(self).append(".TO.").append(partner).append('.').append(c).append('\n')
                    .append("    type: sender\n")
                    .append(connection)
                    .append("    transmissionQueue: ").append(partner).append(".XMIT.").append(c).append('\n')
                    .append("    user: ").append(user).append('\n')
                    .append("    password: ").append(password).append('\n');
            yaml.append("  - name: ").append(partner).append(".TO.").append(self).append('.').append(c).append('\n')
                    .append("    type: receiver\n")
                    .append("    partnerUser: ").append(partner.toLowerCase(java.util.Locale.ROOT)).append('\n')
                    .append("    partnerQueueManager: ").append(partner).append('\n');
        }
    }
}
