package org.wharfmq.perf.peer;

import org.apache.activemq.artemis.api.core.QueueConfiguration;
import org.apache.activemq.artemis.api.core.RoutingType;
import org.apache.activemq.artemis.api.core.SimpleString;
import org.apache.activemq.artemis.core.config.BridgeConfiguration;
import org.apache.activemq.artemis.core.config.Configuration;
import org.apache.activemq.artemis.core.config.impl.ConfigurationImpl;
import org.apache.activemq.artemis.core.server.JournalType;
import org.apache.activemq.artemis.core.server.embedded.EmbeddedActiveMQ;
import org.apache.activemq.artemis.core.settings.impl.AddressSettings;
import org.wharfmq.perf.options.OptionException;
import org.wharfmq.perf.workload.ServerMain;
import org.wharfmq.server.FreePorts;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * {@code wharf perf artemis [--port N] [--sync true|false] [--persistence true|false] [--queues Q1,Q2,...]
 * [--bridge tcp://HOST:PORT --forward Q1,...]}: the built-in peer, an embedded Apache ActiveMQ
 * Artemis broker in its own JVM, set up like Wharf: one TCP acceptor on 127.0.0.1, security off, queues created
 * on first use, persistence on with a journal that is synced before a persistent send or a commit is confirmed
 * (Wharf's rule), in a fresh temporary directory. Prints the same ready line as {@code wharf perf server} and
 * stops when standard input closes.
 *
 * <p>For the distributed queuing workloads (RR-5, OW-5) two of them run, joined as Artemis joins brokers: with
 * {@code --queues} the broker has those anycast queues from the start, and with {@code --bridge} a core bridge per queue
 * of {@code --forward} moves that queue's messages to the address of the same name on the broker at that URL, with
 * the stock bridge settings (duplicate detection on, a 1 MiB confirmation window, retrying forever).
 *
 * <p>Where Wharf has no equivalent setting the peer follows what {@code artemis create} writes for a new broker, so
 * the comparison is against Artemis as its users run it: the audit loggers off (a stock {@code log4j2.properties}
 * disables them; embedded with the harness's JUL binding they would log every message sent and consumed, which
 * cost 2-5 ms of broker CPU per round trip), and the stock acceptor's 1 MiB socket buffers and epoll.
 */
public final class ArtemisPeerMain {

    /**
     * The audit loggers of a stock broker's {@code log4j2.properties}, all off there. Held here because
     * {@link Logger} keeps only weak references to configured loggers: a level set on a collected one is lost.
     */
    private static final List<Logger> AUDIT_LOGGERS = List.of(
            Logger.getLogger("org.apache.activemq.audit.base"),
            Logger.getLogger("org.apache.activemq.audit.resource"),
            Logger.getLogger("org.apache.activemq.audit.message"));

    /** The stock acceptor's parameters ({@code artemis create}), for the one protocol the harness speaks. */
    static final String ACCEPTOR_PARAMETERS = "tcpSendBufferSize=1048576;tcpReceiveBufferSize=1048576;protocols=CORE;useEpoll=true";

    private ArtemisPeerMain() {
    }

    /** Runs the broker until standard input closes. */
    public static int run(String[] args) throws Exception {
        int port = 0;
        boolean sync = true;
        boolean persistence = true;
        List<String> queues = List.of();
        String bridge = null;
        List<String> forward = List.of();
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--port" -> port = Integer.parseInt(args[i + 1]);
                case "--sync" -> sync = Boolean.parseBoolean(args[i + 1]);
                case "--persistence" -> persistence = Boolean.parseBoolean(args[i + 1]);
                case "--queues" -> queues = names(args[i + 1]);
                case "--bridge" -> bridge = args[i + 1];
                case "--forward" -> forward = names(args[i + 1]);
                default -> throw new OptionException("artemis: unknown option " + args[i]);
            }
        }
        if (port == 0) {
            port = FreePorts.take(1)[0];
        }
        silenceAuditLoggers();
        Path data = Files.createTempDirectory("wharf-perf-artemis");
        Configuration configuration = configuration(port, sync, persistence, data);
        bridged(configuration, queues, bridge, forward);
        EmbeddedActiveMQ broker = new EmbeddedActiveMQ().setConfiguration(configuration);
        broker.start();
        try {
            System.out.println(ServerMain.READY_PREFIX + " tcp=tcp://127.0.0.1:" + port + " pid=" + ProcessHandle.current().pid()
                    + " artemis=" + org.apache.activemq.artemis.utils.VersionLoader.getVersion().getFullVersion());
            System.out.flush();
            while (System.in.read() >= 0) {
                // only the end of the stream matters
            }
        } catch (IOException e) {
            // a broken stdin stops the broker like a closed one
        } finally {
            broker.stop();
            org.wharfmq.perf.workload.TempFiles.deleteTree(data);
        }
        return 0;
    }

    /** The dead-letter and expiry queues of a stock broker, named in its address settings for every address. */
    static final String DEAD_LETTER_QUEUE = "DLQ";
    static final String EXPIRY_QUEUE = "ExpiryQueue";

    /**
     * The broker's configuration: data under {@code data}, one CORE acceptor on 127.0.0.1:{@code port}, and, as a stock
     * broker.xml has them, a dead-letter and an expiry address for every address (without them Artemis logs two
     * warnings for every queue it creates: PS-T's 10,000 dummy subscriptions made 20,000).
     */
    static Configuration configuration(int port, boolean sync, boolean persistence, Path data) throws Exception {
        Configuration configuration = new ConfigurationImpl()
                .setName("wharf-perf-peer")
                .setPersistenceEnabled(persistence)
                .setSecurityEnabled(false)
                .setJournalType(JournalType.NIO)
                .setJournalDirectory(data.resolve("journal").toString())
                .setBindingsDirectory(data.resolve("bindings").toString())
                .setLargeMessagesDirectory(data.resolve("large-messages").toString())
                .setPagingDirectory(data.resolve("paging").toString())
                .setJournalSyncTransactional(sync)
                .setJournalSyncNonTransactional(sync)
                .addAcceptorConfiguration("tcp", "tcp://127.0.0.1:" + port + "?" + ACCEPTOR_PARAMETERS)
                .addAddressSetting("#", new AddressSettings().setDeadLetterAddress(SimpleString.of(DEAD_LETTER_QUEUE))
                        .setExpiryAddress(SimpleString.of(EXPIRY_QUEUE)));
        for (String queue : List.of(DEAD_LETTER_QUEUE, EXPIRY_QUEUE)) {
            configuration.addQueueConfiguration(QueueConfiguration.of(queue).setAddress(queue).setRoutingType(RoutingType.ANYCAST));
        }
        return configuration;
    }

    /**
     * Adds the anycast {@code queues} and, when {@code bridge} is given, a core bridge from each queue of
     * {@code forward} to the address of the same name on the broker at {@code bridge}.
     */
    static void bridged(Configuration configuration, List<String> queues, String bridge, List<String> forward) throws Exception {
        for (String queue : queues) {
            configuration.addQueueConfiguration(QueueConfiguration.of(queue).setAddress(queue).setRoutingType(RoutingType.ANYCAST));
        }
        if (forward.isEmpty()) {
            return;
        }
        if (bridge == null) {
            throw new OptionException("artemis: --forward needs --bridge, the broker the queues' messages go to");
        }
        configuration.addConnectorConfiguration("partner", bridge);
        List<BridgeConfiguration> bridges = new java.util.ArrayList<>(configuration.getBridgeConfigurations());
        for (String queue : forward) {
            bridges.add(new BridgeConfiguration("bridge-" + queue).setQueueName(queue).setForwardingAddress(queue)
                    .setStaticConnectors(List.of("partner")));
        }
        configuration.setBridgeConfigurations(bridges);
    }

    private static List<String> names(String list) {
        return list.isEmpty() ? List.of() : List.of(list.split(","));
    }

    /** Turns Artemis's audit loggers off, as a stock broker has them. */
    static void silenceAuditLoggers() {
        AUDIT_LOGGERS.forEach(logger -> logger.setLevel(Level.OFF));
    }
}
