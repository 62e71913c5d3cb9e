package org.wharfmq.server.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code wharf topic list}: the subscriptions of every topic with their consumers and backlogs, asked of a running
 * server over its admin command queue (as {@code wharf flow} does).
 */
@Command(name = "topic", mixinStandardHelpOptions = true,
        description = "Shows publish/subscribe state of a running server.",
        subcommands = CommandLine.HelpCommand.class)
final class TopicCommand implements Runnable {

    @Spec
    private CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "Missing command: list ('wharf topic --help').");
    }

    @Command(name = "list", mixinStandardHelpOptions = true,
            description = "Lists every subscription: topic, name, client ID, kind, consumers, depth (backlog) and "
                    + "publications missed because it was full; then the topics with a retained publication.")
    int list(@Mixin ServerOption server) {
        return FlowCommand.request(spec, server, "topics", java.util.Map.of());
    }
}
