package org.wharfmq.server.cli;

import com.fasterxml.jackson.databind.JsonNode;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.admin.AdminProtocol;
import org.wharfmq.server.admin.AdminRequest;
import org.wharfmq.server.channels.ChannelCommands;
import org.wharfmq.server.replication.ReplicationCommands;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import javax.jms.JMSException;
import javax.jms.JMSSecurityException;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The commands {@code wharf admin} runs, one per call of {@link #run}: from its arguments, a line of a script or a line
 * typed at its prompt, all parsed the same way (picocli). Each becomes one request on the admin command queue
 * ({@link AdminClient}, connected when the first command needs it, so {@code help} works without a server; on a
 * replica of a replicated queue manager, which refuses it, a status session there instead, {@link StatusClient}); the
 * answer is printed for people ({@link AdminOutput}) or, with {@code --json} (anywhere on the line, or for the whole
 * run), as the server's JSON on one line. The caller closes it ({@link #close}).
 *
 * <p>Exit status of each: 0 done; 1 the server refused or failed it (or a move stopped before its limit); 2 the
 * command is wrong; 3 no answer from the server.
 */
@Command(name = "wharf admin", description = "Administers a running queue manager (docs/operations.md).",
        subcommands = CommandLine.HelpCommand.class)
final class AdminStatements implements Runnable, AutoCloseable {

    private final ServerOption server;
    /** Connected by the first command that needs the server; null until then. */
    private AdminClient client;
    /** The status session with a replica, when the URL named one; then {@link #client} is null. */
    private StatusClient status;
    private final PrintWriter out;
    private final PrintWriter err;
    private final boolean jsonAlways;
    private final CommandLine commandLine;
    /** Whether this command prints JSON. */
    private boolean json;
    /** Where the command comes from, for error lines ("script.txt:3: "); empty for the command line's. */
    private String where = "";

    @Spec
    private CommandSpec spec;

    /**
     * @param server the server to connect to, and who to log in as
     * @param json   whether every command prints the server's JSON (else only those that say {@code --json})
     */
    AdminStatements(ServerOption server, PrintWriter out, PrintWriter err, boolean json) {
        this.server = server;
        this.out = out;
        this.err = err;
        this.jsonAlways = json;
        this.commandLine = new CommandLine(this)
                .addSubcommand("define", new Define())
                .addSubcommand("alter", new Alter())
                .addSubcommand("delete", new Delete())
                .addSubcommand("display", new Display())
                .addSubcommand("clear", new Clear())
                .addSubcommand("browse", new Browse())
                .addSubcommand("end", new End())
                .addSubcommand("start", new Start())
                .addSubcommand("stop", new Stop())
                .addSubcommand("reset", new Reset())
                .addSubcommand("resolve", new Resolve());
        commandLine.setOut(out).setErr(err);
        commandLine.setParameterExceptionHandler((e, args) -> {
            err.println("wharf: " + where + e.getMessage() + " ('help' lists the commands; 'COMMAND --help' shows one)");
            err.flush();
            return CommandLine.ExitCode.USAGE;
        });
    }

    /**
     * One line per command, for {@code wharf admin --help}: its words, its parameters and required options, then the
     * others (each, when it takes three or fewer; else {@code [options]}), made from the commands themselves.
     */
    static List<String> synopses() {
        PrintWriter nowhere = new PrintWriter(java.io.Writer.nullWriter());
        List<String> lines = new ArrayList<>();
        for (CommandLine command : new AdminStatements(null, nowhere, nowhere, false).commandLine.getSubcommands()
                .values()) {
            if (command.getCommand() instanceof CommandLine.HelpCommand) {
                continue;
            }
            if (command.getSubcommands().isEmpty()) {
                lines.add(synopsis(command.getCommandName(), command.getCommandSpec()));
            }
            for (CommandLine object : new java.util.TreeMap<>(command.getSubcommands()).values()) {
                lines.add(synopsis(command.getCommandName() + " " + object.getCommandName(), object.getCommandSpec()));
            }
        }
        return lines;
    }

    private static String synopsis(String words, CommandSpec command) {
        StringBuilder line = new StringBuilder(words);
        for (CommandLine.Model.PositionalParamSpec parameter : command.positionalParameters()) {
            line.append(' ').append(parameter.arity().min() == 0 ? "[" + parameter.paramLabel() + "]"
                    : parameter.paramLabel());
        }
        List<CommandLine.Model.OptionSpec> others = new ArrayList<>();
        for (CommandLine.Model.OptionSpec option : command.options()) {
            if (option.usageHelp() || option.versionHelp()) {
                continue;
            }
            if (option.required()) {
                line.append(' ').append(synopsis(option));
            } else {
                others.add(option);
            }
        }
        if (others.size() > 3) {
            line.append(" [options]");
        } else {
            others.forEach(option -> line.append(" [").append(synopsis(option)).append(']'));
        }
        return line.toString();
    }

    private static String synopsis(CommandLine.Model.OptionSpec option) {
        return option.arity().max() == 0 ? option.longestName() : option.longestName() + " " + option.paramLabel();
    }

    /**
     * Runs one command.
     *
     * @param words the command's words, e.g. {@code [display, queue, ORDERS]}
     * @param where where it comes from, for error lines ({@code "script.txt:3: "}), or empty
     * @return its exit status
     */
    int run(List<String> words, String where) {
        this.where = where;
        List<String> args = new ArrayList<>(words);
        boolean asked = args.removeIf("--json"::equals);
        json = jsonAlways || asked;
        return commandLine.execute(args.toArray(String[]::new));
    }

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "Missing command: define, alter, delete, display,"
                + " clear, browse, move, copy, end, start, stop, reset, resolve or switchover");
    }

    // ---- the commands ----

    @Command(name = "move", mixinStandardHelpOptions = true, description = "Moves waiting messages from one queue to another, in delivery order, each "
            + "atomically (like dmpmqmsg -m).")
    int move(@Mixin Transfer transfer) {
        return send("move", transfer.arguments(), result -> AdminOutput.transferred("Moved", result, out, err));
    }

    @Command(name = "copy", mixinStandardHelpOptions = true, description = "Copies waiting messages to another queue, leaving them where they are.")
    int copy(@Mixin Transfer transfer) {
        return send("copy", transfer.arguments(), result -> AdminOutput.transferred("Copied", result, out, err));
    }

    @Command(name = "switchover", mixinStandardHelpOptions = true, description = "Hands the active role of a "
            + "replicated queue manager to a replica (a planned switchover), on its active member: the replica takes"
            + " over, clients reconnect to it, and this member stops serving them and rejoins as a replica in its"
            + " process (docs/resilience.md).")
    int switchover(@Option(names = "--to", paramLabel = "ID", description = "The member to hand it to (default: the "
            + "replica least behind).") String to) {
        return send("switchover", arguments(ReplicationCommands.MEMBER, to),
                result -> done(() -> out.println(result.asText())));
    }

    /** What a move or copy takes: from where, to where, which messages, how many. */
    static final class Transfer {
        @Option(names = "--from", required = true, paramLabel = "QUEUE")
        String from;

        @Option(names = "--to", required = true, paramLabel = "QUEUE")
        String to;

        @Option(names = "--selector", paramLabel = "SELECTOR", description = "Only messages this JMS selector accepts.")
        String selector;

        @Option(names = "--limit", paramLabel = "N", description = "At most N messages.")
        Long limit;

        Map<String, Object> arguments() {
            return AdminStatements.arguments(AdminProtocol.FROM, from, AdminProtocol.TO, to, AdminProtocol.SELECTOR,
                    selector, AdminProtocol.LIMIT, limit);
        }
    }

    @Command(name = "define", description = "Defines a queue, a queue alias, a remote queue or a channel (it survives"
            + " restarts), or adds a member to a replicated queue manager.")
    final class Define extends Verb {
        @Command(name = "member", mixinStandardHelpOptions = true, description = "Adds a member to a replicated queue"
                + " manager, on its active member (docs/resilience.md). Start the new member first, its"
                + " replication.members listing the group with it; it catches up before it counts.")
        int member(@Parameters(paramLabel = "ID") String id,
                   @Option(names = "--address", required = true, paramLabel = "HOST:PORT",
                           description = "The new member's replication listener (its replication.members address).")
                   String address) {
            return send("define-member", arguments(ReplicationCommands.MEMBER, id, ReplicationCommands.ADDRESS,
                    address), result -> done(() -> out.println(result.asText())));
        }

        @Command(name = "channel", mixinStandardHelpOptions = true, description = "Defines a sender or receiver"
                + " channel to or from another queue manager (IBM MQ's DEFINE CHANNEL); it survives restarts. The"
                + " attributes are those of channels: in config/wharf.yaml (docs/distributed.md).")
        int channel(@Parameters(paramLabel = "NAME") String name, @Mixin ChannelOptions options) {
            Map<String, Object> arguments = channelArguments(options, name, false);
            if (arguments == null) {
                return CommandLine.ExitCode.USAGE;
            }
            return send("define-channel", arguments,
                    result -> done(() -> AdminOutput.channel(result, out)));
        }

        @Command(name = "queue", mixinStandardHelpOptions = true, description = "Defines a queue; it exists until deleted, across restarts.")
        int queue(@Parameters(paramLabel = "NAME") String name, @Mixin QueueSettings settings) {
            return send("define-queue", settings.arguments(name),
                    result -> done(() -> AdminOutput.defined("Defined", result, out)));
        }

        @Command(name = "alias", mixinStandardHelpOptions = true, description = "Defines a queue alias: a name for "
                + "another queue (IBM MQ's QALIAS).")
        int alias(@Parameters(paramLabel = "NAME") String name,
                  @Option(names = "--target", required = true, paramLabel = "QUEUE",
                          description = "The queue it stands for (a local queue or a remote definition).") String target) {
            return send("define-alias", arguments(AdminProtocol.QUEUE, name, AdminProtocol.TARGET, target),
                    result -> done(() -> AdminOutput.nameChanged("Defined", result, out)));
        }

        @Command(name = "remote", mixinStandardHelpOptions = true, description = "Defines a remote queue (a local name "
                + "for a queue on another queue manager), or without --remote-queue a queue-manager alias (IBM MQ's "
                + "QREMOTE).")
        int remote(@Parameters(paramLabel = "NAME") String name,
                   @Option(names = "--remote-queue", paramLabel = "QUEUE",
                           description = "The queue on the other queue manager (left out: a queue-manager alias).")
                   String remoteQueue,
                   @Option(names = "--remote-qmgr", paramLabel = "QMGR", description = "The other queue manager.")
                   String remoteQueueManager,
                   @Option(names = "--xmitq", paramLabel = "QUEUE", description = "The transmission queue (left out:"
                           + " the one named as the queue manager, else the default transmission queue).")
                   String transmissionQueue) {
            return send("define-remote", arguments(AdminProtocol.QUEUE, name, AdminProtocol.REMOTE_QUEUE, remoteQueue,
                    AdminProtocol.REMOTE_QUEUE_MANAGER, remoteQueueManager, AdminProtocol.TRANSMISSION_QUEUE,
                    transmissionQueue), result -> done(() -> AdminOutput.nameChanged("Defined", result, out)));
        }
    }

    @Command(name = "alter", description = "Changes a queue's or a channel's settings (kept across restarts).")
    final class Alter extends Verb {
        @Command(name = "channel", mixinStandardHelpOptions = true, description = "Changes a channel's attributes"
                + " (kept across restarts). An attribute left out stays as it is; 'default' puts it back to its"
                + " default. A running channel's partner (connection, user, transmission queue, TLS) is changed once"
                + " it is stopped.")
        int channel(@Parameters(paramLabel = "NAME") String name, @Mixin ChannelOptions options) {
            Map<String, Object> arguments = channelArguments(options, name, true);
            if (arguments == null) {
                return CommandLine.ExitCode.USAGE;
            }
            return send("alter-channel", arguments, result -> done(() -> out.println(result.asText())));
        }

        @Command(name = "queue", mixinStandardHelpOptions = true, description = "Changes a queue's settings; a queue created by use is kept from then on. "
                + "A setting left out stays as it is; 'default' puts it back to its default.")
        int queue(@Parameters(paramLabel = "NAME") String name, @Mixin QueueSettings settings) {
            return send("alter-queue", settings.arguments(name),
                    result -> done(() -> AdminOutput.defined("Altered", result, out)));
        }
    }

    /** A channel's attributes, as define and alter channel take them (config/wharf.yaml's channels: explains each). */
    static final class ChannelOptions {
        @Option(names = "--type", paramLabel = "sender|receiver", description = "What the channel is (define only).")
        String type;

        @Option(names = "--connection", paramLabel = "URL", description = "A sender's partner: tcp://HOST:PORT or"
                + " ssl://HOST:PORT.")
        String connection;

        @Option(names = "--xmitq", paramLabel = "QUEUE", description = "A sender's transmission queue.")
        String transmissionQueue;

        @Option(names = "--user", paramLabel = "NAME", description = "The user a sender logs in to its partner as.")
        String user;

        @Option(names = "--password-file", paramLabel = "FILE", description = "A file whose first line is --user's"
                + " password (never an argument: arguments show in ps).")
        java.nio.file.Path passwordFile;

        @Option(names = "--tls", paramLabel = "KEY=VALUE", description = "A sender's client TLS option (trustStore,"
                + " trustStoreType, keyStore, keyStoreType, verifyHost, protocols, cipherSuites); repeat for each.")
        Map<String, String> tls;

        @Option(names = "--tls-password-file", paramLabel = "KEY=FILE", description = "trustStorePassword or"
                + " keyStorePassword, from the first line of FILE.")
        Map<String, java.nio.file.Path> tlsPasswordFiles;

        @Option(names = "--batch-size", paramLabel = "N", description = "Messages a batch holds at most (BATCHSZ).")
        String batchSize;

        @Option(names = "--batch-bytes", paramLabel = "BYTES", description = "Bytes that end a batch (BATCHLIM).")
        String batchBytes;

        @Option(names = "--batch-interval-millis", paramLabel = "MS", description = "How long a batch waits for more"
                + " messages (BATCHINT).")
        String batchIntervalMillis;

        @Option(names = "--disconnect-interval-millis", paramLabel = "MS", description = "A sender with nothing to"
                + " send this long disconnects (DISCINT).")
        String disconnectIntervalMillis;

        @Option(names = "--retry-millis", paramLabel = "MS", description = "The first wait before connecting again.")
        String retryMillis;

        @Option(names = "--max-retry-millis", paramLabel = "MS", description = "The longest wait between attempts.")
        String maxRetryMillis;

        @Option(names = "--heartbeat-millis", paramLabel = "MS", description = "The heartbeat asked of the partner"
                + " (HBINT).")
        String heartbeatMillis;

        @Option(names = "--connect-timeout-millis", paramLabel = "MS", description = "How long a connect may take.")
        String connectTimeoutMillis;

        @Option(names = "--pipeline-length", paramLabel = "1|2", description = "A sender's batches on the way at"
                + " once: 2 sends the next while the last is confirmed (PIPELINELENGTH).")
        String pipelineLength;

        @Option(names = "--non-persistent-speed", paramLabel = "fast|normal", description = "A sender's and a receiver's:"
                + " fast sends non-persistent messages outside the batches when both ends say fast; normal in them"
                + " (NPMSPEED).")
        String nonPersistentSpeed;

        @Option(names = "--max-batch-attempts", paramLabel = "N", description = "A receiver's: commits of one batch"
                + " before it puts it message by message, refused ones to the dead-letter queue (MRRTY).")
        String maxBatchAttempts;

        @Option(names = "--partner-user", paramLabel = "NAME", description = "A receiver's: the user its partner must"
                + " log in as.")
        String partnerUser;

        @Option(names = "--partner-certificate", paramLabel = "SUBJECT", description = "A receiver's: the subject"
                + " of the TLS client certificate its partner must connect with (CN=qm1,O=Example).")
        String partnerCertificate;

        @Option(names = "--partner-qmgr", paramLabel = "QMGR", description = "A receiver's: the queue manager its"
                + " partner must be.")
        String partnerQueueManager;

        @Option(names = "--set", paramLabel = "KEY=VALUE", description = "Any attribute by its key in"
                + " config/wharf.yaml's channels: (batchSize=20, tls.verifyHost=false), those without an option of"
                + " their own too; repeat for each. Passwords come from files (--password-file, --tls-password-file).")
        Map<String, String> set;

        /**
         * The request's arguments; alter's 'default' is empty.
         *
         * @throws IllegalArgumentException when a password file cannot be read, or a TLS password is an argument
         */
        Map<String, Object> arguments(String name, boolean alter) {
            Map<String, Object> a = new HashMap<>();
            a.put(ChannelCommands.CHANNEL, name);
            put(a, "type", type, alter);
            put(a, "connection", connection, alter);
            put(a, "transmissionQueue", transmissionQueue, alter);
            put(a, "user", user, alter);
            put(a, "batchSize", batchSize, alter);
            put(a, "batchBytes", batchBytes, alter);
            put(a, "batchIntervalMillis", batchIntervalMillis, alter);
            put(a, "disconnectIntervalMillis", disconnectIntervalMillis, alter);
            put(a, "retryMillis", retryMillis, alter);
            put(a, "maxRetryMillis", maxRetryMillis, alter);
            put(a, "heartbeatMillis", heartbeatMillis, alter);
            put(a, "connectTimeoutMillis", connectTimeoutMillis, alter);
            put(a, "pipelineLength", pipelineLength, alter);
            put(a, "nonPersistentSpeed", nonPersistentSpeed, alter);
            put(a, "maxBatchAttempts", maxBatchAttempts, alter);
            put(a, "partnerUser", partnerUser, alter);
            put(a, "partnerCertificate", partnerCertificate, alter);
            put(a, "partnerQueueManager", partnerQueueManager, alter);
            if (set != null) {
                for (Map.Entry<String, String> attribute : set.entrySet()) {
                    if (attribute.getKey().endsWith("assword")) {
                        throw new IllegalArgumentException("--set " + attribute.getKey() + "=... would show the"
                                + " password in ps: use --password-file FILE or --tls-password-file KEY=FILE");
                    }
                    put(a, attribute.getKey(), attribute.getValue(), alter);
                }
            }
            if (tls != null) {
                for (Map.Entry<String, String> option : tls.entrySet()) {
                    if (option.getKey().endsWith("Password")) {
                        throw new IllegalArgumentException("--tls " + option.getKey() + "=... would show the"
                                + " password in ps: use --tls-password-file " + option.getKey() + "=FILE");
                    }
                    put(a, "tls." + option.getKey(), option.getValue(), alter);
                }
            }
            try {
                if (passwordFile != null) {
                    a.put(ChannelCommands.propertyOf("password"), firstLine(passwordFile));
                }
                if (tlsPasswordFiles != null) {
                    for (Map.Entry<String, java.nio.file.Path> file : tlsPasswordFiles.entrySet()) {
                        a.put(ChannelCommands.propertyOf("tls." + file.getKey()), firstLine(file.getValue()));
                    }
                }
            } catch (IOException e) {
                throw new IllegalArgumentException("cannot read the password file: " + e, e);
            }
            return a;
        }

        private static void put(Map<String, Object> a, String key, String value, boolean alter) {
            if (value != null) {
                a.put(ChannelCommands.propertyOf(key), alter && "default".equals(value) ? "" : value);
            }
        }

        private static String firstLine(java.nio.file.Path file) throws IOException {
            List<String> lines = java.nio.file.Files.readAllLines(file, java.nio.charset.StandardCharsets.UTF_8);
            if (lines.isEmpty() || lines.get(0).isEmpty()) {
                throw new IOException(file + " is empty");
            }
            return lines.get(0);
        }
    }

    /** {@code options}' arguments, or null after saying why they cannot be had. */
    private Map<String, Object> channelArguments(ChannelOptions options, String name, boolean alter) {
        try {
            return options.arguments(name, alter);
        } catch (IllegalArgumentException e) {
            err.println("wharf: " + where + e.getMessage());
            err.flush();
            return null;
        }
    }

    /** A queue's settings, as define and alter queue take them (config/wharf.yaml's queues: explains each). */
    static final class QueueSettings {
        @Option(names = "--max-depth", paramLabel = "N", description = "Its own depth limit (default: the server-wide maxQueueDepth).")
        String maxDepth;

        @Option(names = "--max-bytes", paramLabel = "BYTES", description = "Its own memory budget (default: none).")
        String maxBytes;

        @Option(names = "--policy", paramLabel = "page|block|fail", description = "What a send meets when a budget is spent (default: the server-wide memoryPolicy).")
        String policy;

        @Option(names = "--max-page-bytes", paramLabel = "BYTES", description = "With page: its own disk budget (default: none; the server-wide maxPageBytes).")
        String maxPageBytes;

        @Option(names = "--page-full-policy", paramLabel = "block|fail", description = "With page: what a send meets when a disk budget is spent too (default: the server-wide pageFullPolicy).")
        String pageFullPolicy;

        @Option(names = "--backout-threshold", paramLabel = "N", description = "Backouts (rollbacks, recovers) a message may have before it is moved to the backout queue (default: never moved).")
        String backoutThreshold;

        @Option(names = "--backout-queue", paramLabel = "QUEUE", description = "Where such a message goes (default: SYSTEM.DEAD.LETTER.QUEUE).")
        String backoutQueue;

        @Option(names = "--depth-high-event", paramLabel = "PERCENT", description = "Publish a depth-high event when the depth reaches this percentage of the max depth (default: no depth events).")
        String depthHighEvent;

        @Option(names = "--depth-low-event", paramLabel = "PERCENT", description = "After a depth-high event, publish a depth-low event when the depth falls to this percentage (default: none).")
        String depthLowEvent;

        @Option(names = "--full-event", paramLabel = "on|off", description = "Publish a queue-full event when a put finds the queue full (default: off).")
        String fullEvent;

        @Option(names = "--usage", paramLabel = "transmission|normal", description = "transmission: a transmission queue, for a channel to another queue manager (default: normal).")
        String usage;

        @Option(names = "--set", paramLabel = "KEY=VALUE", description = "Any setting by its key in"
                + " config/wharf.yaml's queues: (maxDepth=1000, usage=transmission), those without an option of their"
                + " own too; repeat for each.")
        Map<String, String> set;

        /**
         * The request's arguments: the queue's name and each setting given, as the property named after its key
         * ({@code WharfMaxDepth}); {@code default} (alter: back to the default) goes as it is.
         */
        Map<String, Object> arguments(String name) {
            Map<String, String> settings = new LinkedHashMap<>();
            settings.put("maxDepth", maxDepth);
            settings.put("maxBytes", maxBytes);
            settings.put("policy", policy);
            settings.put("maxPageBytes", maxPageBytes);
            settings.put("pageFullPolicy", pageFullPolicy);
            settings.put("backoutThreshold", backoutThreshold);
            settings.put("backoutQueue", backoutQueue);
            settings.put("depthHighEvent", depthHighEvent);
            settings.put("depthLowEvent", depthLowEvent);
            settings.put("fullEvent", "on".equals(fullEvent) ? "true" : "off".equals(fullEvent) ? "false" : fullEvent);
            settings.put("usage", usage);
            if (set != null) {
                settings.putAll(set);
            }
            Map<String, Object> a = new HashMap<>();
            settings.forEach((key, value) -> {
                if (value != null) {
                    a.put(AdminRequest.propertyOf(key), value);
                }
            });
            a.put(AdminProtocol.QUEUE, name);
            return a;
        }
    }

    @Command(name = "delete", description = "Deletes a queue, a queue alias, a remote queue, a durable subscription"
            + " or a channel, or removes a member from a replicated queue manager.")
    final class Delete extends Verb {
        @Command(name = "member", mixinStandardHelpOptions = true, description = "Removes a member from a replicated"
                + " queue manager, on its active member (docs/resilience.md). Stop the member first (a removed member"
                + " left running goes on calling elections) and wipe its data directory before it ever joins again.")
        int member(@Parameters(paramLabel = "ID") String id) {
            return send("delete-member", arguments(ReplicationCommands.MEMBER, id),
                    result -> done(() -> out.println(result.asText())));
        }

        @Command(name = "channel", mixinStandardHelpOptions = true, description = "Deletes a channel defined at run"
                + " time: a sender stopped and with no batch in doubt, a receiver with no partner connected.")
        int channel(@Parameters(paramLabel = "NAME") String name) {
            return send("delete-channel", arguments(ChannelCommands.CHANNEL, name),
                    result -> done(() -> out.println(result.asText())));
        }

        @Command(name = "alias", mixinStandardHelpOptions = true, description = "Deletes a queue alias defined at run time.")
        int alias(@Parameters(paramLabel = "NAME") String name) {
            return send("delete-alias", arguments(AdminProtocol.QUEUE, name),
                    result -> done(() -> AdminOutput.nameChanged("Deleted", result, out)));
        }

        @Command(name = "remote", mixinStandardHelpOptions = true, description = "Deletes a remote queue or queue-manager"
                + " alias defined at run time (messages already on its transmission queue stay there).")
        int remote(@Parameters(paramLabel = "NAME") String name) {
            return send("delete-remote", arguments(AdminProtocol.QUEUE, name),
                    result -> done(() -> AdminOutput.nameChanged("Deleted", result, out)));
        }

        @Command(name = "queue", mixinStandardHelpOptions = true, description = "Deletes a queue; one that holds messages or has consumers only with "
                + "--force.")
        int queue(@Parameters(paramLabel = "NAME") String name,
                  @Option(names = "--force", description = "Delete it even if it holds messages (they are discarded)"
                          + " or has consumers (they are told).") boolean force) {
            return send("delete-queue", arguments(AdminProtocol.QUEUE, name, AdminProtocol.FORCE, force),
                    result -> done(() -> AdminOutput.deleted(result, out)));
        }

        @Command(name = "subscription", mixinStandardHelpOptions = true, description = "Deletes a durable subscription and its messages.")
        int subscription(@Parameters(paramLabel = "NAME") String name,
                         @Option(names = "--client-id", paramLabel = "ID",
                                 description = "Its client ID (none for a shared subscription without one).")
                         String clientId) {
            return send("delete-subscription", arguments(AdminProtocol.SUBSCRIPTION, name, AdminProtocol.CLIENT_ID,
                    clientId), result -> done(() -> AdminOutput.subscriptionDeleted(result, out)));
        }
    }

    @Command(name = "display", description = "Shows queues, the queue aliases and remote queues (names),"
            + " connections, subscriptions, prepared XA branches, channels and their status (chstatus), the"
            + " publish/subscribe hierarchy (pubsub), the settings in force or the server.")
    final class Display extends Verb {
        @Command(name = "queues", mixinStandardHelpOptions = true, description = "Lists the queues: depth, max depth, consumers, producers, oldest "
                + "message, counters, origin.")
        int queues(@Parameters(paramLabel = "PATTERN", arity = "0..1", description = "Only names that match, as "
                + "the security file writes them: ORDERS.* (one part), ORDERS.** (any).") String pattern) {
            return send("display-queues", arguments(AdminProtocol.PATTERN, pattern),
                    result -> done(() -> AdminOutput.queues(result, out)));
        }

        @Command(name = "queue", mixinStandardHelpOptions = true, description = "Shows one queue in full.")
        int queue(@Parameters(paramLabel = "NAME") String name) {
            return send("display-queue", arguments(AdminProtocol.QUEUE, name),
                    result -> done(() -> AdminOutput.queue(result, out)));
        }

        @Command(name = "settings", mixinStandardHelpOptions = true, description = "Shows the settings in "
                + "force of the queue manager and its components, by their keys in config/wharf.yaml (tls.port), "
                + "passwords as ***.")
        int settings() {
            return send("display-settings", arguments(), result -> done(() -> AdminOutput.settings(result, out)));
        }

        @Command(name = "names", mixinStandardHelpOptions = true, description = "Lists the queue aliases, remote queues"
                + " and queue-manager aliases.")
        int names() {
            return send("display-names", arguments(), result -> done(() -> AdminOutput.names(result, out)));
        }

        @Command(name = "connections", mixinStandardHelpOptions = true, description = "Lists the client connections: user, address, client ID, "
                + "sessions, consumers, producers, bytes in and out.")
        int connections() {
            return send("display-connections", arguments(),
                    result -> done(() -> AdminOutput.connections(result, out)));
        }

        @Command(name = "subscriptions", mixinStandardHelpOptions = true, description = "Lists the topic subscriptions.")
        int subscriptions() {
            return send("display-subscriptions", arguments(),
                    result -> done(() -> AdminOutput.subscriptions(result, out)));
        }

        @Command(name = "prepared", mixinStandardHelpOptions = true, description = "Lists the prepared XA transaction "
                + "branches in doubt, oldest first: Xid, age, sends, consumed messages.")
        int prepared() {
            return send("display-prepared", arguments(), result -> done(() -> AdminOutput.prepared(result, out)));
        }

        @Command(name = "channel", mixinStandardHelpOptions = true, description = "Shows a channel's definition,"
                + " every attribute (IBM MQ's DISPLAY CHANNEL); without a name, every channel's.")
        int channel(@Parameters(paramLabel = "NAME", arity = "0..1") String name) {
            return send("display-channel", arguments(ChannelCommands.CHANNEL, name),
                    result -> done(() -> AdminOutput.channels(result, out)));
        }

        @Command(name = "chstatus", mixinStandardHelpOptions = true, description = "Lists the channels to and from other"
                + " queue managers: state, batch in doubt, partner, transmission queue and its depth, messages, bytes,"
                + " batches, sequence number, last batch.")
        int chstatus() {
            return send("display-chstatus", arguments(), result -> done(() -> AdminOutput.chstatus(result, out)));
        }

        @Command(name = "pubsub", mixinStandardHelpOptions = true, description = "Shows the queue manager's place in its"
                + " publish/subscribe hierarchy (IBM MQ's DISPLAY PUBSUB): its parent and children, each one's state,"
                + " proxy subscriptions, the topics it was told of, and the publications forwarded to it.")
        int pubsub() {
            return send("display-pubsub", arguments(), result -> done(() -> AdminOutput.pubsub(result, out)));
        }

        @Command(name = "server", mixinStandardHelpOptions = true, description = "Shows the queue manager: version, uptime, listeners, journal, memory.")
        int server() {
            return send("display-server", arguments(), result -> done(() -> AdminOutput.server(result, out)));
        }
    }

    @Command(name = "clear", description = "Removes the waiting messages of a queue.")
    final class Clear extends Verb {
        @Command(name = "queue", mixinStandardHelpOptions = true, description = "Removes every waiting message (delivered ones and those in open "
                + "transactions stay).")
        int queue(@Parameters(paramLabel = "NAME") String name) {
            return send("clear-queue", arguments(AdminProtocol.QUEUE, name),
                    result -> done(() -> AdminOutput.cleared(result, out)));
        }
    }

    @Command(name = "browse", description = "Shows waiting messages, leaving them on their queue.")
    final class Browse extends Verb {
        @Command(name = "queue", mixinStandardHelpOptions = true, description = "Shows a queue's waiting messages in delivery order: headers, "
                + "properties, body as text or hex.")
        int queue(@Parameters(paramLabel = "NAME") String name,
                  @Option(names = "--limit", paramLabel = "N", description = "At most N messages (default: 10).")
                  Long limit,
                  @Option(names = "--selector", paramLabel = "SELECTOR",
                          description = "Only messages this JMS selector accepts.") String selector,
                  @Option(names = "--hex", description = "Every body in hexadecimal, text ones too.") boolean hex) {
            return send("browse-queue", arguments(AdminProtocol.QUEUE, name, AdminProtocol.LIMIT, limit,
                    AdminProtocol.SELECTOR, selector, AdminProtocol.HEX, hex),
                    result -> done(() -> AdminOutput.browsed(name, result, out)));
        }
    }

    @Command(name = "end", description = "Ends a client connection.")
    final class End extends Verb {
        @Command(name = "connection", mixinStandardHelpOptions = true, description = "Ends a client connection ('display connections' gives its ID);"
                + " its client is told why.")
        int connection(@Parameters(paramLabel = "ID") long id) {
            return send("end-connection", arguments(AdminProtocol.CONNECTION, id),
                    result -> done(() -> AdminOutput.ended(result, out)));
        }
    }

    @Command(name = "start", description = "Starts a channel stopped with 'stop channel' (it stays stopped across"
            + " restarts until then).")
    final class Start extends Verb {
        @Command(name = "channel", mixinStandardHelpOptions = true, description = "Starts a channel again: a sender"
                + " sends, a receiver accepts its partner (whose sender connects at its next retry).")
        int channel(@Parameters(paramLabel = "NAME") String name) {
            return send("start-channel", arguments(ChannelCommands.CHANNEL, name),
                    result -> done(() -> out.println(result.asText())));
        }
    }

    @Command(name = "stop", description = "Stops a sender or receiver channel.")
    final class Stop extends Verb {
        @Command(name = "channel", mixinStandardHelpOptions = true, description = "Stops a channel until 'start"
                + " channel', across restarts too. A sender sends nothing more, even when its transmission queue gets"
                + " messages (the answer names a batch it leaves in doubt, and how it is settled); a receiver ends its"
                + " partner's session and refuses it (the sender retries).")
        int channel(@Parameters(paramLabel = "NAME") String name) {
            return send("stop-channel", arguments(ChannelCommands.CHANNEL, name),
                    result -> done(() -> out.println(result.get("description").asText())));
        }
    }

    @Command(name = "reset", description = "Resets a channel's sequence number.")
    final class Reset extends Verb {
        @Command(name = "channel", mixinStandardHelpOptions = true, description = "Sets a channel's sequence number"
                + " (IBM MQ's RESET CHANNEL SEQNUM). On a receiver at once (no partner connected), its sender taking it"
                + " when it next starts; on a sender, its receiver takes it when the channel next starts.")
        int channel(@Parameters(paramLabel = "NAME") String name,
                    @Option(names = "--sequence", required = true, paramLabel = "N") long sequence) {
            return send("reset-channel", arguments(ChannelCommands.CHANNEL, name, ChannelCommands.SEQUENCE, sequence),
                    result -> done(() -> out.println(result.asText())));
        }
    }

    @Command(name = "resolve", description = "Completes a stopped sender channel's batch in doubt.")
    final class Resolve extends Verb {
        @Command(name = "channel", mixinStandardHelpOptions = true, description = "Completes one batch in doubt of a"
                + " stopped sender (IBM MQ's RESOLVE CHANNEL), by the receiver's LAST BATCH ('display chstatus' on"
                + " the receiving queue manager): commit when the receiver has it (LAST BATCH at least its id: removed"
                + " from the transmission queue), backout when it has not (sent again). With several batches in doubt"
                + " (pipelineLength 2) each is resolved on its own, named by --batch: the oldest may be committed, the"
                + " newest backed out.")
        int channel(@Parameters(paramLabel = "NAME") String name,
                    @Option(names = "--action", required = true, paramLabel = "commit|backout", description = "commit"
                            + " (the receiver has the batch) or backout (it has not); no default: the operator"
                            + " decides.") String action,
                    @Option(names = "--batch", paramLabel = "ID", description = "The batch in doubt ('display"
                            + " chstatus' names each; default: the only one, refused when there are several).")
                    Long batch) {
            return send("resolve-channel", arguments(ChannelCommands.CHANNEL, name, ChannelCommands.ACTION, action,
                    ChannelCommands.BATCH, batch), result -> done(() -> out.println(result.asText())));
        }
    }

    /** A verb such as {@code display}: alone, it is a mistake that lists its objects. */
    abstract static class Verb implements Runnable {
        @Spec
        CommandSpec spec;

        @Override
        public void run() {
            throw new CommandLine.ParameterException(spec.commandLine(), "'" + spec.name() + "' of what? "
                    + String.join(", ", spec.subcommands().keySet()));
        }
    }

    // ---- sending ----

    /** Prints an answer; false when the command did only part of its work (a move stopped early). */
    @FunctionalInterface
    private interface Render {
        boolean render(JsonNode result);
    }

    private static boolean done(Runnable print) {
        print.run();
        return true;
    }

    /** Property name, value pairs; null values are not sent. */
    private static Map<String, Object> arguments(Object... pairs) {
        Map<String, Object> arguments = new HashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            arguments.put((String) pairs[i], pairs[i + 1]);
        }
        return arguments;
    }

    private int send(String command, Map<String, Object> arguments, Render render) {
        if (HttpStatus.isHttp(server.url)) {
            return sendOverHttp(command, render);
        }
        AdminClient.Reply reply;
        try {
            if (client == null && status == null) {
                connect();
            }
            reply = status != null ? status.send(command) : client.send(command, arguments);
        } catch (JMSSecurityException e) { // a login refused, or no admin permission
            err.println("wharf: " + where + e.getMessage());
            err.flush();
            return AdminClient.COMMAND_FAILED;
        } catch (AdminClient.AnswerLost e) {
            err.println("wharf: " + where + e.getMessage());
            err.flush();
            return AdminClient.NO_ANSWER;
        } catch (JMSException | IOException | IllegalArgumentException e) {
            err.println("wharf: " + where + "cannot talk to the server at " + server.url + ": " + e.getMessage());
            err.flush();
            return AdminClient.NO_ANSWER;
        }
        return present(reply, render);
    }

    /**
     * Connects as the user: a JMS connection to the admin command queue of the active instance, or, when the
     * address (every address of the URL) is a replica's, which refuses it (NOT_ACTIVE), a status session there
     * ({@link StatusClient}: {@code display server} only).
     */
    private void connect() throws JMSException, IOException {
        WharfConnectionFactory factory = server.factory();
        try {
            client = AdminClient.connect(server.url, factory);
        } catch (JMSException e) {
            if (!StatusClient.refusedAsReplica(e)) {
                throw e;
            }
            status = StatusClient.open(factory);
        }
    }

    /**
     * A command to a member's HTTP listener ({@link HttpStatus}): its status is asked first, and is the answer to
     * {@code display-server}; any other command is refused, naming the active member the status names.
     */
    private int sendOverHttp(String command, Render render) {
        AdminClient.Reply status;
        try {
            status = HttpStatus.displayServer(server);
        } catch (IOException | IllegalArgumentException e) {
            err.println("wharf: " + where + "cannot talk to the member at " + server.url + ": " + e.getMessage());
            err.flush();
            return e instanceof IllegalArgumentException ? AdminClient.COMMAND_FAILED : AdminClient.NO_ANSWER;
        }
        if (!command.equals("display-server")) {
            err.println("wharf: " + where + HttpStatus.refusal(command, server.url, status));
            err.flush();
            return AdminClient.COMMAND_FAILED;
        }
        return present(status, render);
    }

    /** Prints an answer (null: none came) as a table or as JSON; returns the exit status. */
    private int present(AdminClient.Reply reply, Render render) {
        int status;
        if (reply == null) {
            err.println("wharf: " + where + "no answer from " + server.url + " within "
                    + AdminClient.REPLY_TIMEOUT_MILLIS / 1000 + " s: the server is overloaded or stuck (its log says"
                    + " which), or, a member of a replicated queue manager, cut off from the others: 'display server'"
                    + " at each member's address names the active member");
            status = AdminClient.NO_ANSWER;
        } else if (json) {
            out.println(reply.json());
            // a move or copy that stopped before its limit says why in "stopped" (a channel's "stopped" says whether
            // an operator stopped it: not a failure)
            status = reply.ok() && !reply.result().path("stopped").isTextual() ? 0 : AdminClient.COMMAND_FAILED;
        } else if (!reply.ok()) {
            err.println("wharf: " + where + reply.error());
            status = AdminClient.COMMAND_FAILED;
        } else {
            status = render.render(reply.result()) ? 0 : AdminClient.COMMAND_FAILED;
        }
        out.flush();
        err.flush();
        return status;
    }

    /** Closes the connection, if a command opened one. */
    @Override
    public void close() {
        if (client != null) {
            client.close();
        }
        if (status != null) {
            status.close();
        }
    }
}
