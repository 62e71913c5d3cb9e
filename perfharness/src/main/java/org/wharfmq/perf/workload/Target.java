package org.wharfmq.perf.workload;

import org.wharfmq.perf.flow.BenchmarkFlow;

import java.util.List;

/**
 * The messaging server a workload runs against: Wharf, Wharf as a replicated queue manager (three members, each a
 * {@code wharf server} process: {@link ReplicatedServerMain}), a built-in peer (Apache ActiveMQ Artemis or Classic),
 * or the bare Netty relay, the floor of a request/reply round trip (docs/benchmarks.md, "The floor").
 */
public enum Target {
    WHARF("Wharf"),
    REPLICATED("Wharf replicated"),
    ARTEMIS("Artemis"),
    CLASSIC("ActiveMQ Classic"),
    RELAY("Netty relay");

    /** The workloads the relay runs: request/reply with one request and one reply queue. */
    private static final java.util.Set<Workload> RELAY_WORKLOADS = java.util.EnumSet.of(Workload.RR_1, Workload.RR_2,
            Workload.RR_3, Workload.RR_4);

    private final String displayName;

    Target(String displayName) {
        this.displayName = displayName;
    }

    /** The name used in reports. */
    public String displayName() {
        return displayName;
    }

    /**
     * True when this target runs every client in a JVM of its own over TCP, whatever the workload says: the relay
     * has no in-process clients, so its RR-1 and RR-2 are RR-4's traffic (docs/benchmarks.md, "The floor").
     */
    boolean clientsAlwaysOverTcp() {
        return this == RELAY;
    }

    /**
     * Refuses, as unavailable, what this target cannot run with these options, before anything starts: a peer runs
     * no flow, no in-VM client, no TLS, users or metrics; two queue managers are built for Wharf and Artemis only, and
     * RR-5b for Wharf; the relay runs non-persistent RR-1 to RR-4 only. The runner asks it before every step, and
     * {@code run} and {@code compare} before the first (a compare whose peer cannot run the workload would otherwise
     * have run every step on Wharf first).
     *
     * @param tls      the TLS engine the clients connect with, else null
     * @param security {@code rules}, else null
     * @param metrics  {@code on} or {@code scrape}, else null
     * @throws UnsupportedOperationException saying why and what runs instead
     */
    void checkRuns(Workload w, boolean persistent, String tls, String security, String metrics) {
        if (this == WHARF) {
            return;
        }
        if (this == RELAY && (!RELAY_WORKLOADS.contains(w) || persistent)) {
            throw new UnsupportedOperationException("the Netty relay runs the non-persistent request/reply traffic of "
                    + "RR-1, RR-2, RR-3 and RR-4 only: it forwards frames and has no queues, topics, flows or disk");
        }
        if (w.twoQueueManagers()) {
            if (tls != null) {
                throw new UnsupportedOperationException("--tls with two queue managers is built for Wharf's channels "
                        + "only: leave it out of " + displayName + "'s bridged pair");
            }
            if (this != ARTEMIS) {
                throw new UnsupportedOperationException("Two brokers joined by bridges are built for Artemis only: the "
                        + displayName + " peer has no bridged pair in the harness (its network connectors are not set"
                        + " up)");
            }
            if (w == Workload.RR_5B) {
                throw new UnsupportedOperationException("RR-5b on Artemis: a temporary reply queue lives on the "
                        + "requester's broker only, and a core bridge forwards a queue's messages, not replies to a "
                        + "temporary queue on the other broker; use RR-5");
            }
            return;
        }
        checkOptions(tls, security, metrics);
        String peer = peerName();
        if (w.flow() != null) {
            throw new UnsupportedOperationException("Message flows (F-*) are measured on one Wharf instance only: "
                    + peer + (this == REPLICATED ? " runs none" : " has no flow engine"));
        }
        if (!clientsAlwaysOverTcp() && (w.requestersInServer() || w.respondersInServer())) {
            throw new UnsupportedOperationException("In-VM workloads (RR-1, RR-2, RR-2b, RR-3) on " + peer + " are not "
                    + "supported yet: use RR-4, RR-4b or OW-1");
        }
    }

    /**
     * Refuses, as unavailable, the options this target runs without: a peer has no TLS listener, users or metrics here.
     *
     * @throws UnsupportedOperationException naming the option
     */
    void checkOptions(String tls, String security, String metrics) {
        if (this == WHARF) {
            return;
        }
        if (metrics != null) {
            throw new UnsupportedOperationException("--metrics is measured on one Wharf instance only: " + peerName()
                    + " runs without");
        }
        if (security != null) {
            throw new UnsupportedOperationException("--security is measured on one Wharf instance only: " + peerName()
                    + " runs without users");
        }
        if (tls != null) {
            throw new UnsupportedOperationException("--tls is measured on one Wharf instance only: " + peerName()
                    + " runs without TLS");
        }
    }

    private String peerName() {
        return this == REPLICATED ? "the replicated queue manager" : "the " + displayName + " peer";
    }

    /** Parses {@code wharf}, {@code artemis}, {@code classic}, {@code replicated} or {@code relay}. */
    public static Target parse(String text) {
        return switch (text.toLowerCase(java.util.Locale.ROOT)) {
            case "wharf" -> WHARF;
            case "artemis" -> ARTEMIS;
            case "classic" -> CLASSIC;
            case "replicated" -> REPLICATED;
            case "relay" -> RELAY;
            default -> throw new org.wharfmq.perf.options.OptionException("--peer " + text
                    + ": the built-in peers are artemis (ActiveMQ Artemis), classic (ActiveMQ Classic), replicated "
                    + "(Wharf as a replicated queue manager of three members) and relay (a bare Netty relay, the floor "
                    + "of a round trip)");
        };
    }

    /**
     * The {@code wharf perf} command that starts this server (port chosen by the system).
     *
     * @param flow          the message flow the server runs (F-*), else null
     * @param flowInstances its instances
     * @param tls           the TLS engine of a TLS listener the clients use ({@code jdk} or {@code openssl}), else null
     * @param security      {@code rules} for a server with users and permission rules ({@link BenchmarkSecurity}), else null
     * @param metrics       {@code on} for a server that runs its metrics, {@code scrape} one that also scrapes them every second, else null
     */
    List<String> serverCommand(List<String> hostedDrivers, boolean persistent, BenchmarkFlow flow, int flowInstances,
                               String tls, String security, String metrics) {
        if (this != WHARF) { // what it cannot run was refused before (checkRuns)
            if (this == REPLICATED) {
                return List.of("replicated");
            }
            if (this == RELAY) {
                return List.of("relay", "--port", "0");
            }
            return List.of(this == ARTEMIS ? "artemis" : "classic", "--port", "0", "--sync", Boolean.toString(persistent));
        }
        List<String> command = new java.util.ArrayList<>(List.of("server", "--port", "0", "--in-vm", "wharf-perf-" + ProcessHandle.current().pid()));
        if (tls != null) {
            command.addAll(List.of("--tls", tls));
        }
        if (security != null) {
            command.addAll(List.of("--security", security));
        }
        if (metrics != null) {
            command.addAll(List.of("--metrics", metrics));
        }
        if (flow != null) {
            command.addAll(List.of("--flow", flow.id(), "--flow-instances", Integer.toString(flowInstances),
                    "--persistent", Boolean.toString(persistent)));
        }
        for (String d : hostedDrivers) {
            command.add("--driver");
            command.add(d);
        }
        return command;
    }

    /**
     * The commands that start the two queue managers of {@code pair} (RR-5, RR-5b, OW-5), QM1's first: Wharf's from
     * the pair's wharf.yaml files; Artemis's as two brokers joined by core bridges both ways, a bridge per queue
     * (requests and OW-5's messages to QM2, RR-5's replies back), the queues defined on both.
     *
     * @param metrics must be null
     */
    List<List<String>> pairCommands(Workload w, QueueManagerPair pair, boolean persistent, String metrics) {
        if (metrics != null) {
            throw new UnsupportedOperationException("--metrics is measured on one queue manager: leave it out of RR-5, "
                    + "RR-5b and OW-5");
        }
        if (this == WHARF) {
            return List.of(List.of("server", "--config", pair.qm1Config().toString()),
                    List.of("server", "--config", pair.qm2Config().toString()));
        }
        List<String> all = new java.util.ArrayList<>(pair.forward());
        all.addAll(pair.replies());
        String queues = String.join(",", all);
        List<String> qm1 = new java.util.ArrayList<>(List.of("artemis", "--port", Integer.toString(pair.qm1Port()), "--sync",
                Boolean.toString(persistent), "--queues", queues, "--bridge", "tcp://127.0.0.1:" + pair.qm2Port(),
                "--forward", String.join(",", pair.forward())));
        List<String> qm2 = new java.util.ArrayList<>(List.of("artemis", "--port", Integer.toString(pair.qm2Port()), "--sync",
                Boolean.toString(persistent), "--queues", queues));
        if (!pair.replies().isEmpty()) {
            qm2.addAll(List.of("--bridge", "tcp://127.0.0.1:" + pair.qm1Port(), "--forward", String.join(",", pair.replies())));
        }
        return List.of(qm1, qm2);
    }

    /**
     * The ActiveMQ Classic broker's heap for persistent messages, as a multiple of the message: KahaDB marshals each
     * persistent message into a buffer it grows by doubling, on top of the message held in the heap, so the stock heap
     * (1 GB, the {@code env} file's) ran out with 100 MB round trips ("COMMIT FAILED: Transaction marked rollback
     * only", an OutOfMemoryError in the broker) where 2 GB took two requesters' and 20 MB ones passed in 1 GB.
     */
    static final long CLASSIC_HEAP_PER_PERSISTENT_MESSAGE = 20;
    /**
     * The ActiveMQ Classic broker's limit of connections ({@code maximumConnections} of its OpenWire connector), raised
     * from the stock 1,000 that {@code activemq create} writes to the perf server's own ({@link ServerMain#MAX_CONNECTIONS}),
     * as a user with thousands of clients raises it: past it the broker drops a connection as it connects, its client
     * told only "Cannot send, channel has already failed" (an InactivityIOException, though no inactivity caused it),
     * which ended RR-RATED's 1,000 step (1,010 connections with the responders') on the peer.
     */
    public static final int CLASSIC_MAX_CONNECTIONS = ServerMain.MAX_CONNECTIONS;
    private static final long MIB = 1024L * 1024;
    private static final long GIB = 1024 * MIB;

    /**
     * JVM options this server's process needs beyond the runner's {@code jvmOptions} for a step's messages: for
     * ActiveMQ Classic with persistent messages, a heap of {@value #CLASSIC_HEAP_PER_PERSISTENT_MESSAGE} times the
     * message, in whole GiB (100 MB: 2 GiB), where {@code -Xmx} gives it less, as a user of 100 MB messages would give it (Wharf keeps message bodies
     * outside the heap, within its direct memory, which is as large as the heap by default); else none.
     */
    List<String> serverJvmOptions(boolean persistent, int messageSize, List<String> jvmOptions) {
        long wanted = (CLASSIC_HEAP_PER_PERSISTENT_MESSAGE * messageSize + GIB - 1) / GIB * GIB;
        long given = maxHeap(jvmOptions);
        if (this != CLASSIC || !persistent || given < 0 || given >= wanted) {
            return List.of();
        }
        return List.of("-Xmx" + wanted / GIB + "g");
    }

    /** The heap the last {@code -Xmx} in {@code jvmOptions} gives, in bytes; -1 when none does (the JVM's default). */
    static long maxHeap(List<String> jvmOptions) {
        long heap = -1;
        for (String o : jvmOptions) {
            if (o.startsWith("-Xmx") && o.length() > 4) {
                String v = o.substring(4).toLowerCase(java.util.Locale.ROOT);
                char unit = v.charAt(v.length() - 1);
                long scale = switch (unit) {
                    case 'k' -> 1024L;
                    case 'm' -> MIB;
                    case 'g' -> GIB;
                    case 't' -> 1024 * GIB;
                    default -> 1;
                };
                heap = Long.parseLong(Character.isDigit(unit) ? v : v.substring(0, v.length() - 1)) * scale;
            }
        }
        return heap;
    }

    /** Driver options that connect to this server at {@code tcpUrl}, as {@code user} (null: no user) with {@code password}. */
    List<String> providerArgs(String tcpUrl, String user, String password) {
        if (this == ARTEMIS) {
            return List.of("-pc", "JNDI", "-ii", "org.apache.activemq.artemis.jndi.ActiveMQInitialContextFactory",
                    "-iu", tcpUrl, "-cf", "ConnectionFactory");
        }
        if (this == CLASSIC) {
            return List.of("-pc", "JNDI", "-ii", "org.apache.activemq.jndi.ActiveMQInitialContextFactory",
                    "-iu", tcpUrl, "-cf", "ConnectionFactory");
        }
        if (this == RELAY) {
            return List.of("-pc", "Relay", "-url", tcpUrl);
        }
        return user == null ? List.of("-pc", "Wharf", "-url", tcpUrl)
                : List.of("-pc", "Wharf", "-url", tcpUrl, "-us", user, "-pw", password);
    }
}
