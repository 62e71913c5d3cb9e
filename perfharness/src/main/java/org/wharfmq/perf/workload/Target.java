package org.wharfmq.perf.workload;

import org.wharfmq.perf.flow.BenchmarkFlow;

import java.util.List;

/**
 * The messaging server a workload runs against: Wharf, Wharf as a replicated queue manager (three members, each a
 * {@code wharf server} process: {@link ReplicatedServerMain}), or a built-in peer (Apache ActiveMQ Artemis or Classic).
 */
public enum Target {
    WHARF("Wharf"),
    REPLICATED("Wharf replicated"),
    ARTEMIS("Artemis"),
    CLASSIC("ActiveMQ Classic");

    private final String displayName;

    Target(String displayName) {
        this.displayName = displayName;
    }

    /** The name used in reports. */
    public String displayName() {
        return displayName;
    }

    /** Parses {@code wharf}, {@code artemis} or {@code classic}. */
    public static Target parse(String text) {
        return switch (text.toLowerCase(java.util.Locale.ROOT)) {
            case "wharf" -> WHARF;
            case "artemis" -> ARTEMIS;
            case "classic" -> CLASSIC;
            case "replicated" -> REPLICATED;
            default -> throw new org.wharfmq.perf.options.OptionException("--peer " + text
                    + ": the built-in peers are artemis (ActiveMQ Artemis) and classic (ActiveMQ Classic), and "
                    + "replicated (Wharf as a replicated queue manager of three members)");
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
        if (this != WHARF) {
            String peer = this == REPLICATED ? "the replicated queue manager" : "the " + displayName + " peer";
            if (metrics != null) {
                throw new UnsupportedOperationException("--metrics is measured on one Wharf instance only: " + peer + " runs without");
            }
            if (security != null) {
                throw new UnsupportedOperationException("--security is measured on one Wharf instance only: " + peer + " runs without users");
            }
            if (tls != null) {
                throw new UnsupportedOperationException("--tls is measured on one Wharf instance only: " + peer + " runs without TLS");
            }
            if (flow != null) {
                throw new UnsupportedOperationException("Message flows (F-*) are measured on one Wharf instance only: " + peer
                        + (this == REPLICATED ? " runs none" : " has no flow engine"));
            }
            if (!hostedDrivers.isEmpty()) {
                throw new UnsupportedOperationException("In-VM workloads (RR-1, RR-2, RR-2b, RR-3) on " + peer + " are not supported yet: "
                        + "use RR-4, RR-4b or OW-1");
            }
            if (this == REPLICATED) {
                return List.of("replicated");
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
            command.addAll(List.of("--flow", flow.id(), "--flow-instances", Integer.toString(flowInstances)));
        }
        for (String d : hostedDrivers) {
            command.add("--driver");
            command.add(d);
        }
        return command;
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
        return user == null ? List.of("-pc", "Wharf", "-url", tcpUrl)
                : List.of("-pc", "Wharf", "-url", tcpUrl, "-us", user, "-pw", password);
    }
}
