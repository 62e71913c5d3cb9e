package org.wharfmq.server.cli;

import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

/** Runs the {@code wharf} command line in-process and captures its output, for tests in other packages. */
public final class FlowCommandAccess {

    private FlowCommandAccess() {
    }

    /**
     * What a command printed and returned.
     *
     * @param status exit status
     * @param out    standard output
     * @param err    standard error
     */
    public record Result(int status, String out, String err) {
    }

    /** Runs {@code wharf args...}. */
    public static Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine commandLine = new CommandLine(new WharfCommand());
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        int status = commandLine.execute(args);
        return new Result(status, out.toString(), err.toString());
    }
}
