package org.wharfmq.server.cli;

import picocli.CommandLine;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;

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

    /**
     * Runs {@code wharf args...} with {@code stdin} as its standard input (a password for {@code --password-stdin}, a
     * script of admin commands), as a process started with it would read it.
     */
    public static synchronized Result runWithInput(String stdin, String... args) {
        StandardInput.use(new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)));
        try {
            return run(args);
        } finally {
            StandardInput.use(InputStream.nullInputStream());
        }
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
