package org.wharfmq.perf;

import org.wharfmq.perf.driver.Driver;
import org.wharfmq.perf.driver.DriverResult;
import org.wharfmq.perf.memory.QueueMemoryProbe;
import org.wharfmq.perf.options.OptionException;
import org.wharfmq.perf.options.PerfOptions;
import org.wharfmq.perf.peer.ArtemisPeerMain;
import org.wharfmq.perf.peer.ClassicPeerMain;
import org.wharfmq.perf.relay.RelayServer;
import org.wharfmq.perf.workload.FootprintCommand;
import org.wharfmq.perf.workload.ReportCommand;
import org.wharfmq.perf.workload.RunCommand;
import org.wharfmq.perf.workload.ServerMain;

import java.util.Arrays;

/**
 * {@code bin/wharf perf ...}: the driver when the first argument is an option ({@code -tc jms.r11.Requestor ...},
 * JMSPerfHarness's command line), else a subcommand: {@code run}, {@code compare}, {@code report}, {@code jmh}, {@code memory},
 * {@code footprint}, and the child
 * processes the runner starts ({@code server}, {@code replicated}, {@code artemis}, {@code classic}, {@code relay}).
 */
public final class PerfMain {

    /** Exit status of a run whose exactly-once check failed, or whose workers failed. */
    public static final int EXIT_FAILED = 1;
    /** Exit status of a command line that cannot run. */
    public static final int EXIT_USAGE = 2;
    /** Exit status when the provider does not support what the test needs yet. */
    public static final int EXIT_UNAVAILABLE = 3;

    private PerfMain() {
    }

    /**
     * Runs the command and exits with its status. A command that throws exits too, with {@link #EXIT_FAILED} and the
     * exception printed: a client library's threads that are not daemons (ActiveMQ Classic's transport threads) kept a
     * driver JVM whose main thread had thrown alive until the runner gave up on its step minutes later.
     */
    public static void main(String[] args) {
        int status;
        try {
            status = run(args);
        } catch (Throwable e) {
            e.printStackTrace();
            status = EXIT_FAILED;
        }
        System.exit(status);
    }

    /** Runs the command and returns the exit status. */
    public static int run(String[] args) throws Exception {
        if (args.length == 0 || args[0].equals("-h") || args[0].equals("--help") || args[0].equals("help")) {
            System.out.println(usage());
            return args.length == 0 ? EXIT_USAGE : 0;
        }
        String[] rest = Arrays.copyOfRange(args, 1, args.length);
        try {
            return switch (args[0]) {
                case "run" -> RunCommand.run(rest, false);
                case "compare" -> RunCommand.run(rest, true);
                case "report" -> ReportCommand.run(rest);
                case "jmh" -> {
                    org.openjdk.jmh.Main.main(rest);
                    yield 0;
                }
                case "server" -> ServerMain.run(rest);
                case "replicated" -> org.wharfmq.perf.workload.ReplicatedServerMain.run(rest);
                case "artemis" -> ArtemisPeerMain.run(rest);
                case "classic" -> ClassicPeerMain.run(rest);
                case "relay" -> RelayServer.run(rest);
                case "memory" -> QueueMemoryProbe.run(rest);
                case "footprint" -> FootprintCommand.run(rest);
                default -> drive(args);
            };
        } catch (OptionException e) {
            System.err.println("wharf perf: " + e.getMessage());
            return EXIT_USAGE;
        }
    }

    private static int drive(String[] args) throws Exception {
        DriverResult r = new Driver(PerfOptions.parse(args), System.out).run();
        return r.passed() ? 0 : r.unavailable() != null ? EXIT_UNAVAILABLE : EXIT_FAILED;
    }

    private static String usage() {
        return """
                Usage:
                  wharf perf -tc jms.r11.Requestor -nt 8 -rl 60 ...   the JMSPerfHarness-compatible driver
                  wharf perf run WORKLOAD [options]                  step the clients, find the peak, write a report
                  wharf perf compare WORKLOAD [options]              the same workload on Wharf and on a peer (--peer: Artemis, the
                                                        default; Classic; Wharf replicated; the bare Netty relay)
                  wharf perf report [options]                        every seed workload on Wharf, Artemis and Classic: the results table
                  wharf perf jmh [JMH options]                       micro-benchmarks of the hot paths
                  wharf perf memory [--messages N] [--size BYTES] [--policy page|block]
                                                        server memory per waiting message, fill and drain rates
                  wharf perf footprint [--queues N] [--connections N] [--peer P] [--tls ENGINE]
                                                        server memory per defined queue and per idle connection

                Workloads: RR-1 RR-2 RR-2b RR-3 RR-4 RR-4b RR-5 RR-5b RR-RATED RR-SHORT CONNECT OW-1 OW-5 PS-N PS-T PS-D
                F-PASS F-HDR F-PUB F-PARSE F-WRITE F-VALID F-FILTER-FIRST F-FILTER-LAST F-OPAQUE F-ROUTE F-COMPUTE F-XSLT F-CSV-PARSE
                F-CSV-WRITE F-FIXED-PARSE F-FIXED-WRITE F-DB-INSERT F-DB-UPDATE F-DB-RETRIEVE F-DB-ROUTE F-HTTP F-FILE
                F-FILE-OUT F-JMS
                (any F-* with --persistent is F-PERSIST).
                `wharf perf run --help` lists the runner's and compare's options (--peer artemis|classic|replicated|relay),
                `wharf perf report --help` the report's; docs/benchmarks.md defines the workloads, docs/performance.md
                holds the results.

                """ + PerfOptions.help();
    }
}
