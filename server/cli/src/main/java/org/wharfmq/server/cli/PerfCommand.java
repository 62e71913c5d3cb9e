package org.wharfmq.server.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Unmatched;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code wharf perf}: the load driver, listed here so that {@code wharf --help} shows all of Wharf. The perf harness
 * lives in its own module and jar ({@code perfharness/}, main class {@code org.wharfmq.perf.PerfMain}), which
 * {@code bin/wharf} starts itself for {@code perf} (the server jar does not carry it). Reached in the server jar
 * (its main class run directly), it says so.
 */
@Command(name = "perf",
        description = {"Load driver: measures throughput and latency ('perf --help').",
                "The perf harness: JMSPerfHarness-style clients, workloads stepped to their peak with a report, "
                        + "comparisons with Artemis, JMH. 'wharf perf --help' lists its commands."})
final class PerfCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Unmatched
    private List<String> arguments = new ArrayList<>();

    @Override
    public Integer call() {
        spec.commandLine().getErr().println("wharf: perf runs from the perf harness's own jar, which the launcher "
                + "starts: bin/wharf perf " + String.join(" ", arguments));
        spec.commandLine().getErr().flush();
        return CommandLine.ExitCode.USAGE;
    }
}
