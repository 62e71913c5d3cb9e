package org.wharfmq.perf.options;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A parsed driver command line: {@code -tc jms.r11.Requestor -nt 8 -rl 60 ...}. Each option is {@code -key value};
 * a boolean option may also be given alone ({@code -pp} means {@code -pp true}). Values are validated here, so a
 * worker never meets a bad one.
 */
public final class PerfOptions {

    private final Map<Option, String> values;

    private PerfOptions(Map<Option, String> values) {
        this.values = values;
    }

    /** Parses a command line; throws {@link OptionException} naming the offending option. */
    public static PerfOptions parse(String... args) {
        Map<Option, String> values = new EnumMap<>(Option.class);
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (!arg.startsWith("-") || arg.length() < 2) {
                throw new OptionException("Unexpected argument '" + arg + "': options are -key value (see -h)");
            }
            Option option = Option.byKey(arg.substring(1));
            if (option == null) {
                throw new OptionException("Unknown option " + arg + " (see -h for the list)");
            }
            boolean nextIsValue = i + 1 < args.length && !(isBoolean(option) && looksLikeOption(args[i + 1]));
            String value;
            if (nextIsValue) {
                value = args[++i];
            } else if (isBoolean(option)) {
                value = "true";
            } else {
                throw new OptionException(arg + " needs a value");
            }
            values.put(option, value);
        }
        PerfOptions options = new PerfOptions(values);
        options.validate();
        return options;
    }

    private static boolean looksLikeOption(String next) {
        return next.startsWith("-") && Option.byKey(next.substring(1)) != null;
    }

    private static boolean isBoolean(Option option) {
        return option.defaultValue().equals("true") || option.defaultValue().equals("false");
    }

    private void validate() {
        testClass();
        messageType();
        for (Option o : Option.values()) {
            if (isBoolean(o)) {
                bool(o);
            }
        }
        positive(Option.NT, threads());
        nonNegative(Option.RL, runLengthSeconds());
        nonNegative(Option.MS, messageSize());
        positive(Option.CC, commitCount());
        nonNegative(Option.DB, integer(Option.DB));
        nonNegative(Option.DX, integer(Option.DX));
        nonNegative(Option.DN, integer(Option.DN));
        destinations();
        positive(Option.TO, timeoutSeconds());
        positive(Option.SC, threadsPerConnection());
        nonNegative(Option.DD, dummySubscriptions());
        nonNegative(Option.FW, flowWindow());
        positive(Option.FP, progressProcesses());
        durable();
        nonNegative(Option.SS, statsIntervalSeconds());
        nonNegative(Option.SW, warmupSeconds());
        if (rate() < 0) {
            throw new OptionException("-rt " + raw(Option.RT) + ": must be 0 (unrated) or a positive rate");
        }
        if (runLengthSeconds() > 0 && warmupSeconds() >= runLengthSeconds()) {
            throw new OptionException("-sw " + warmupSeconds() + ": the warm-up must be shorter than the run (-rl "
                    + runLengthSeconds() + ")");
        }
        String pc = raw(Option.PC).toLowerCase(Locale.ROOT);
        if (!pc.equals("wharf") && !pc.equals("jndi") && !pc.equals("relay")) {
            throw new OptionException("-pc " + raw(Option.PC) + ": use Wharf, JNDI or Relay (any other provider is reached "
                    + "through JNDI: -pc JNDI -ii FACTORY -iu URL, or -jf FILE)");
        }
        if (usesRelay() && testClass() != TestClass.REQUESTOR && testClass() != TestClass.RESPONDER) {
            throw new OptionException("-pc Relay runs " + TestClass.REQUESTOR.harnessName() + " and "
                    + TestClass.RESPONDER.harnessName() + " only: the bare Netty relay forwards frames, it has no queues or topics");
        }
        if (usesJndi() && raw(Option.II).isEmpty() && raw(Option.JF).isEmpty()) {
            throw new OptionException("-pc JNDI needs -ii (initial context factory) or -jf (JNDI properties file)");
        }
    }

    private static void positive(Option o, long v) {
        if (v <= 0) {
            throw new OptionException("-" + o.key() + " " + v + ": must be at least 1");
        }
    }

    private static void nonNegative(Option o, long v) {
        if (v < 0) {
            throw new OptionException("-" + o.key() + " " + v + ": must not be negative");
        }
    }

    /** The value as given (or its default), unparsed. */
    public String raw(Option option) {
        return values.getOrDefault(option, option.defaultValue());
    }

    /** True when the command line named {@code option}. */
    public boolean isSet(Option option) {
        return values.containsKey(option);
    }

    private int integer(Option option) {
        String v = raw(option);
        try {
            return Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            throw new OptionException("-" + option.key() + " " + v + ": not a whole number");
        }
    }

    private boolean bool(Option option) {
        String v = raw(option).toLowerCase(Locale.ROOT);
        return switch (v) {
            case "true", "yes", "1" -> true;
            case "false", "no", "0" -> false;
            default -> throw new OptionException("-" + option.key() + " " + raw(option) + ": use true or false");
        };
    }

    public TestClass testClass() {
        return TestClass.parse(raw(Option.TC));
    }

    public int threads() {
        return integer(Option.NT);
    }

    public int runLengthSeconds() {
        return integer(Option.RL);
    }

    /** {@code -ms}: bytes; {@code 2k}, {@code 20K}, {@code 2m} are accepted as 2048, 20480, 2097152. */
    public int messageSize() {
        return parseSize(raw(Option.MS), "-ms");
    }

    /** Parses a size such as {@code 2048}, {@code 2k} or {@code 2m}. */
    public static int parseSize(String text, String what) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        int multiplier = 1;
        if (t.endsWith("k") || t.endsWith("kb")) {
            multiplier = 1024;
            t = t.substring(0, t.indexOf('k'));
        } else if (t.endsWith("m") || t.endsWith("mb")) {
            multiplier = 1024 * 1024;
            t = t.substring(0, t.indexOf('m'));
        }
        try {
            return Math.multiplyExact(Integer.parseInt(t), multiplier);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new OptionException(what + " " + text + ": not a size (bytes, or with k / m)");
        }
    }

    /** {@code -mf}: the file whose content is the body, or empty for a body of {@code -ms} bytes. */
    public String messageFile() {
        return raw(Option.MF);
    }

    public MessageType messageType() {
        return MessageType.parse(raw(Option.MT));
    }

    public boolean persistent() {
        return bool(Option.PP);
    }

    public boolean transacted() {
        return bool(Option.TX);
    }

    public int commitCount() {
        return integer(Option.CC);
    }

    public String destinationPrefix() {
        return raw(Option.D);
    }

    /** How {@code -d/-db/-dx/-dn} spread destinations over the worker threads. */
    public DestinationNames destinations() {
        return new DestinationNames(integer(Option.DB), integer(Option.DX), integer(Option.DN));
    }

    public String requestQueue() {
        return raw(Option.IQ);
    }

    /** The reply queue; empty means temporary reply queues. */
    public String replyQueue() {
        return raw(Option.OQ);
    }

    /** The queue manager (alias) prefix JMSReplyTo names the reply queue by; empty for the reply queue alone. */
    public String replyQueueManager() {
        return raw(Option.RM);
    }

    public boolean correlationIdPerThread() {
        return bool(Option.CO);
    }

    public int timeoutSeconds() {
        return integer(Option.TO);
    }

    /** Operations per second per thread; 0 = unrated. */
    public double rate() {
        try {
            return Double.parseDouble(raw(Option.RT));
        } catch (NumberFormatException e) {
            throw new OptionException("-rt " + raw(Option.RT) + ": not a number");
        }
    }

    public int statsIntervalSeconds() {
        return integer(Option.SS);
    }

    public int warmupSeconds() {
        return integer(Option.SW);
    }

    public boolean summary() {
        return bool(Option.SU);
    }

    public boolean usesJndi() {
        return raw(Option.PC).equalsIgnoreCase("jndi");
    }

    /** -pc Relay: the bare Netty relay's clients ({@code wharf perf relay}), Netty handlers with no JMS. */
    public boolean usesRelay() {
        return raw(Option.PC).equalsIgnoreCase("relay");
    }

    public String jndiPropertiesFile() {
        return raw(Option.JF);
    }

    public String jndiInitialContextFactory() {
        return raw(Option.II);
    }

    public String jndiProviderUrl() {
        return raw(Option.IU);
    }

    public String jndiConnectionFactory() {
        return raw(Option.CF);
    }

    public String brokerUrl() {
        return raw(Option.URL);
    }

    /** -us: the user connections authenticate as; empty for none. */
    public String user() {
        return raw(Option.US);
    }

    /** -pw: the password of {@link #user()}. */
    public String password() {
        return raw(Option.PW);
    }

    public String processId() {
        return raw(Option.ID);
    }

    public String jsonOutput() {
        return raw(Option.JO);
    }

    public boolean stopOnStdinClose() {
        return bool(Option.XS);
    }

    /** {@code -sc}: worker threads sharing one connection. */
    public int threadsPerConnection() {
        return integer(Option.SC);
    }

    /** {@code -du}: subscribers hold durable subscriptions. */
    public boolean durable() {
        return bool(Option.DU);
    }

    /** {@code -dd}: dummy subscriptions on topics nobody publishes to. */
    public int dummySubscriptions() {
        return integer(Option.DD);
    }

    /** {@code -fw}: the publisher's flow window in messages (0 = off); a subscriber reports progress when > 0. */
    public int flowWindow() {
        return integer(Option.FW);
    }

    /** {@code -fq}: the queue a publisher puts its messages on for a flow to publish; empty = publish directly. */
    public String flowQueue() {
        return raw(Option.FQ);
    }

    /** {@code -fp}: the subscriber processes whose progress the publisher's window waits for. */
    public int progressProcesses() {
        return integer(Option.FP);
    }

    /** The command line that parses back to these options (explicit options only). */
    public List<String> toArgs() {
        List<String> args = new ArrayList<>();
        values.forEach((o, v) -> {
            args.add("-" + o.key());
            args.add(v);
        });
        return args;
    }

    /**
     * Whether {@code args} ask for a command's help: {@code --help} or {@code -h} anywhere, as in {@code wharf perf run
     * RR-1 --help}, which the option parsers would otherwise take for an option missing its value.
     */
    public static boolean helpAsked(String[] args) {
        for (String arg : args) {
            if (arg.equals("--help") || arg.equals("-h")) {
                return true;
            }
        }
        return false;
    }

    /** The option list, for {@code -h}. */
    public static String help() {
        StringBuilder sb = new StringBuilder("Options (JMSPerfHarness vocabulary; default in brackets):\n");
        for (Option o : Option.values()) {
            sb.append(String.format("  -%-4s %s [%s]%n", o.key(), o.description(), o.defaultValue()));
        }
        return sb.toString();
    }
}
