package org.wharfmq.server.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The {@code wharf} command line: {@code wharf server [--config FILE] [--port N] [--data DIR]} runs a queue
 * manager in the foreground; {@code wharf admin ...} administers a running one (queues, messages, connections,
 * subscriptions); {@code wharf flow ...} manages its message flows; {@code wharf topic list} shows its
 * publish/subscribe state; {@code wharf user ...} edits the users of a security file; {@code wharf perf ...} is the load driver ({@link PerfCommand}:
 * listed here, run by {@code bin/wharf} from the perf harness's jar); {@code wharf version} prints the version.
 * Main class of the server jar. Every command {@code bin/wharf} knows is a subcommand here, so that
 * {@code wharf --help} lists them all.
 */
@Command(name = "wharf", mixinStandardHelpOptions = true, versionProvider = WharfCommand.VersionProvider.class,
        description = "Wharf: an open-source queue manager, message flow host and load driver for JMS on the JVM.",
        subcommands = {ServerCommand.class, AdminCommand.class, FlowCommand.class, TopicCommand.class,
                UserCommand.class, PerfCommand.class, VersionCommand.class, CommandLine.HelpCommand.class})
public final class WharfCommand implements Runnable {

    @Spec
    private CommandSpec spec;

    /** Runs the command line and exits with its status. */
    public static void main(String[] args) {
        useOneLineLogFormat();
        int status = new CommandLine(new WharfCommand()).execute(args);
        System.exit(status);
    }

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(),
                "Missing command: 'wharf server' starts a queue manager, 'wharf --help' lists the commands.");
    }

    /** java.util.logging's default takes two lines per record; one line per event reads better in a terminal. */
    private static void useOneLineLogFormat() {
        String key = "java.util.logging.SimpleFormatter.format";
        if (System.getProperty(key) == null && System.getProperty("java.util.logging.config.file") == null) {
            System.setProperty(key, "%1$tF %1$tT.%1$tL %4$s %3$s: %5$s%6$s%n");
        }
    }

    /** Supplies {@code --version}. */
    static final class VersionProvider implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[]{VersionCommand.versionLine()};
        }
    }
}
