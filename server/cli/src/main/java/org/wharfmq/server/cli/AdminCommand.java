package org.wharfmq.server.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code wharf admin}: administers a running queue manager over its admin command queue, in the spirit of IBM MQ's
 * runmqsc but as scriptable as it is typed. One command from the arguments ({@code wharf admin display queues}), or
 * many: from a script ({@code --file}, or standard input: {@code wharf admin < script.txt}) or typed at a prompt when
 * standard input is a terminal. Tables for people, the server's JSON for programs ({@code --json}). All commands of a
 * run share one connection, opened by the first that needs it. The commands are {@link AdminStatements}'; docs/operations.md shows each with its output.
 *
 * <p>A script runs to its end; its exit status is 0 when every command succeeded, 1 when one failed (each failure is
 * reported with its line), 3 as soon as the server stops answering. Lines that are blank or start with {@code #} are
 * skipped; words are split as a shell does ({@link StatementWords}).
 */
@Command(name = "admin", mixinStandardHelpOptions = true, modelTransformer = AdminCommand.CommandFollows.class,
        description = {"Administers a running queue manager: queues, messages, connections, subscriptions, XA "
                + "branches in doubt, channels, the members of a replicated queue manager (like runmqsc). One COMMAND "
                + "from the arguments; without one, the commands of --file or standard input, one per line, or a "
                + "prompt at a terminal. Options go before the command.", ""})
final class AdminCommand implements Callable<Integer> {

    private static final String PROMPT = "wharf> ";

    @Spec
    private CommandSpec spec;

    @Mixin
    private ServerOption server;

    @Option(names = "--json", description = "Print each answer as the server's JSON, one line per command.")
    private boolean json;

    @Option(names = {"-f", "--file"}, paramLabel = "FILE", description = "Run the commands of this script, one per "
            + "line ('#' starts a comment).")
    private Path file;

    @Parameters(paramLabel = "COMMAND", arity = "0..*", description = "One command and its options, e.g. 'display "
            + "queues ORDERS.*'.")
    private List<String> command = new ArrayList<>();

    /** Options stop at the first word of the command, so the command's own options are the command's. */
    static final class CommandFollows implements CommandLine.IModelTransformer {
        @Override
        public CommandSpec transform(CommandSpec spec) {
            spec.parser().stopAtPositional(true);
            // the footer is made only when the help is shown: every other run of wharf leaves the commands' model alone
            Map<String, CommandLine.IHelpSectionRenderer> sections =
                    new LinkedHashMap<>(spec.usageMessage().sectionMap());
            sections.put(CommandLine.Model.UsageMessageSpec.SECTION_KEY_FOOTER, help -> footer());
            spec.usageMessage().sectionMap(sections);
            return spec;
        }
    }

    /** The help's footer: every command {@link AdminStatements} runs, made from them, and the exit statuses. */
    static String footer() {
        StringBuilder footer = new StringBuilder(String.format("%nCommands (docs/operations.md shows each with its "
                + "output; 'wharf admin help VERB' describes a verb,%n'wharf admin display queues --help' the options "
                + "of one):%n"));
        AdminStatements.synopses().forEach(line -> footer.append("  ").append(line).append(System.lineSeparator()));
        return footer.append(String.format("%nExit status: 0 done; 1 the server refused a command (in a script: any "
                + "command); 2 a command is wrong;%n3 the server does not answer.%n")).toString();
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (!command.isEmpty() && file != null) {
            throw new CommandLine.ParameterException(spec.commandLine(), "Give one command or --file, not both.");
        }
        try {
            server.readPassword(); // before a script on standard input: with --password-stdin it is the first line
        } catch (IOException | IllegalArgumentException e) {
            err.println("wharf: " + e.getMessage());
            return AdminClient.COMMAND_FAILED;
        }
        BufferedReader script;
        try {
            script = !command.isEmpty() ? null
                    : file != null ? Files.newBufferedReader(file, StandardCharsets.UTF_8) : StandardInput.reader();
        } catch (IOException e) {
            err.println("wharf: cannot read the script " + file + ": " + e.getMessage());
            return AdminClient.COMMAND_FAILED;
        }
        try (AdminStatements statements = new AdminStatements(server, out, err, json)) {
            if (script == null) {
                return statements.run(command, "");
            }
            boolean interactive = file == null && System.console() != null;
            if (interactive) {
                out.println("Administering " + server.url + (server.user == null ? "" : " as " + server.user)
                        + ". 'help' lists the commands, 'exit' leaves.");
            }
            return runScript(statements, script, interactive, out, err);
        } catch (IOException e) {
            err.println("wharf: cannot read the script " + (file == null ? "from standard input" : file) + ": "
                    + e.getMessage());
            return AdminClient.COMMAND_FAILED;
        }
    }

    /** Runs every line of {@code script}; at a prompt, until exit or end of input. */
    private int runScript(AdminStatements statements, BufferedReader script, boolean interactive, PrintWriter out,
                          PrintWriter err) throws IOException {
        int failed = 0;
        int number = 0;
        String line;
        while (true) {
            if (interactive) {
                out.print(PROMPT);
                out.flush();
            }
            line = script.readLine();
            if (line == null) {
                break;
            }
            number++;
            String text = line.strip();
            if (text.isEmpty() || text.startsWith("#")) {
                continue;
            }
            String lower = text.toLowerCase(Locale.ROOT);
            if (lower.equals("exit") || lower.equals("quit") || lower.equals("end")) {
                break;
            }
            String where = interactive ? "" : (file != null ? file + ":" : "line ") + number + ": ";
            int status;
            try {
                status = statements.run(StatementWords.split(text), where);
            } catch (IllegalArgumentException e) {
                err.println("wharf: " + where + e.getMessage());
                err.flush();
                status = CommandLine.ExitCode.USAGE;
            }
            if (status == AdminClient.NO_ANSWER) {
                return status; // the server is gone: the rest would fail the same way
            }
            if (status != 0) {
                failed++;
            }
        }
        if (interactive) {
            out.println();
            return 0;
        }
        return failed == 0 ? 0 : AdminClient.COMMAND_FAILED;
    }
}
