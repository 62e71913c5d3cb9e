package org.wharfmq.perf.peer;

import org.apache.activemq.broker.BrokerService;
import org.apache.activemq.broker.TransportConnector;
import org.apache.activemq.broker.region.policy.ConstantPendingMessageLimitStrategy;
import org.apache.activemq.broker.region.policy.PolicyEntry;
import org.apache.activemq.broker.region.policy.PolicyMap;
import org.apache.activemq.store.kahadb.KahaDBPersistenceAdapter;
import org.wharfmq.perf.options.OptionException;
import org.wharfmq.perf.workload.ServerMain;
import org.wharfmq.perf.workload.Target;
import org.wharfmq.perf.workload.TempFiles;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * {@code wharf perf classic [--port N] [--sync true|false]}: the second built-in peer, an embedded Apache ActiveMQ
 * Classic broker in its own JVM, set up as the {@code conf/activemq.xml} that {@code activemq create} writes: a
 * KahaDB store (its journal synced before a persistent send or a commit is confirmed, KahaDB's default and Wharf's
 * rule), 70% of the heap for messages, the pending-message limit of 1,000 on topics, JMX without its remote
 * connector, and the stock OpenWire connector (frames up to 100 MiB) with its {@code maximumConnections} raised from
 * 1,000 to {@link Target#CLASSIC_MAX_CONNECTIONS}, as Wharf's perf server raises its own limits, here on 127.0.0.1 only. Security is off, destinations are created on first use. The data lives in a fresh temporary
 * directory. Prints the same ready line as {@code wharf perf server} and stops when standard input closes.
 */
public final class ClassicPeerMain {

    /** The {@code openwire} connector's options: {@code activemq create}'s, the connections raised ({@link Target#CLASSIC_MAX_CONNECTIONS}). */
    static final String CONNECTOR_OPTIONS = "maximumConnections=" + Target.CLASSIC_MAX_CONNECTIONS
            + "&wireFormat.maxFrameSize=104857600";
    /** The stock share of the JVM heap for messages held in memory ({@code memoryUsage percentOfJvmHeap}). */
    static final int MEMORY_PERCENT_OF_HEAP = 70;
    /** The stock limit of messages held for a slow non-durable topic subscriber. */
    static final int TOPIC_PENDING_MESSAGE_LIMIT = 1000;
    private static final long GIB = 1024L * 1024 * 1024;

    private ClassicPeerMain() {
    }

    /** Runs the broker until standard input closes. */
    public static int run(String[] args) throws Exception {
        int port = 0;
        boolean sync = true;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--port" -> port = Integer.parseInt(args[i + 1]);
                case "--sync" -> sync = Boolean.parseBoolean(args[i + 1]);
                default -> throw new OptionException("classic: unknown option " + args[i]);
            }
        }
        Path data = Files.createTempDirectory("wharf-perf-classic");
        BrokerService broker = broker(port, sync, data);
        broker.start();
        try {
            if (!broker.waitUntilStarted()) {
                throw new IllegalStateException("ActiveMQ Classic did not start: " + broker.getStartException());
            }
            URI bound = broker.getTransportConnectors().get(0).getPublishableConnectURI();
            System.out.println(ServerMain.READY_PREFIX + " tcp=tcp://127.0.0.1:" + bound.getPort()
                    + " pid=" + ProcessHandle.current().pid() + " classic=" + org.apache.activemq.ActiveMQConnectionMetaData.PROVIDER_VERSION);
            System.out.flush();
            while (System.in.read() >= 0) {
                // only the end of the stream matters
            }
        } catch (IOException e) {
            // a broken stdin stops the broker like a closed one
        } finally {
            broker.stop();
            broker.waitUntilStopped();
            TempFiles.deleteTree(data);
        }
        return 0;
    }

    /** The broker, not started: data under {@code data}, the OpenWire connector on 127.0.0.1:{@code port} (0: any free port). */
    static BrokerService broker(int port, boolean sync, Path data) throws Exception {
        BrokerService broker = new BrokerService();
        broker.setBrokerName("wharf-perf-peer");
        broker.setDataDirectoryFile(data.toFile());
        broker.setUseShutdownHook(false); // the runner stops it by closing standard input
        broker.getManagementContext().setCreateConnector(false);
        KahaDBPersistenceAdapter kahaDb = new KahaDBPersistenceAdapter();
        kahaDb.setDirectory(data.resolve("kahadb").toFile());
        kahaDb.setJournalDiskSyncStrategy(sync ? "always" : "never");
        broker.setPersistenceAdapter(kahaDb);
        PolicyEntry topics = new PolicyEntry();
        topics.setTopic(">");
        ConstantPendingMessageLimitStrategy limit = new ConstantPendingMessageLimitStrategy();
        limit.setLimit(TOPIC_PENDING_MESSAGE_LIMIT);
        topics.setPendingMessageLimitStrategy(limit);
        PolicyMap policies = new PolicyMap();
        policies.setPolicyEntries(List.of(topics));
        broker.setDestinationPolicy(policies);
        broker.getSystemUsage().getMemoryUsage().setPercentOfJvmHeap(MEMORY_PERCENT_OF_HEAP);
        broker.getSystemUsage().getStoreUsage().setLimit(100 * GIB);
        broker.getSystemUsage().getTempUsage().setLimit(50 * GIB);
        TransportConnector openwire = broker.addConnector("tcp://127.0.0.1:" + port + "?" + CONNECTOR_OPTIONS);
        openwire.setName("openwire");
        return broker;
    }
}
