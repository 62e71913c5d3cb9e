package org.wharfmq.perf.flow;

import org.wharfmq.flow.Domain;
import org.wharfmq.flow.FlowFactory;
import org.wharfmq.flow.FlowMessage;
import org.wharfmq.flow.Folder;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.OpaqueElements;
import org.wharfmq.flow.XPathQuery;
import org.wharfmq.flow.records.RecordFormat;

import org.wharfmq.flow.node.FilterNode;
import org.wharfmq.flow.node.RouteNode;
import org.wharfmq.flow.node.XsltNode;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.Locale;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;
import java.util.function.UnaryOperator;

/**
 * The flows of the broker workloads (docs/benchmarks.md, "Message flows"), built into
 * the harness: the server the runner starts deploys the one its workload names
 * ({@code wharf perf server --flow F-PASS}).
 */
public enum BenchmarkFlow {
    F_PASS(new PassThroughFlow(), PassThroughFlow.INPUT_QUEUE, PassThroughFlow.OUTPUT_QUEUE, null),
    F_HDR(new HeaderFlow(), HeaderFlow.INPUT_QUEUE, HeaderFlow.OUTPUT_QUEUE,
            () -> throughNode(Domain.BLOB, HeaderFlow::setHeaders)),
    F_PUB(new PublicationFlow(), PublicationFlow.INPUT_QUEUE, null, null),
    F_PARSE(SaleFlow.through("F-PARSE", () -> new ComputeFunctionNode(SaleComputations::readLast), "out"),
            () -> throughNode(Domain.XML, SaleComputations::readLast)),
    F_WRITE(SaleFlow.through("F-WRITE", () -> new ComputeFunctionNode(SaleComputations::changeLast), "out"),
            () -> throughNode(Domain.XML, SaleComputations::changeLast)),
    F_VALID(SaleFlow.validatingOnInput("F-VALID"), () -> PlainLoops.validate(SaleFlow.SCHEMA)),
    F_FILTER_FIRST(SaleFlow.onDemandThrough("F-FILTER-FIRST", () -> new FilterNode(Conditions.FIRST), "true"),
            () -> onDemandFilter(Conditions.FIRST)),
    F_FILTER_LAST(SaleFlow.onDemandThrough("F-FILTER-LAST", () -> new FilterNode(Conditions.LAST), "true"),
            () -> onDemandFilter(Conditions.LAST)),
    F_OPAQUE(SaleFlow.opaqueThrough("F-OPAQUE", Conditions.SALE_LIST, () -> new FilterNode(Conditions.LAST), "true"),
            () -> opaqueFilter(Conditions.SALE_LIST, Conditions.LAST)),
    F_ROUTE(SaleFlow.onDemandThrough("F-ROUTE", () -> RouteNode.builder().route("first", Conditions.FIRST).build(),
            "first"), () -> onDemandFilter(Conditions.FIRST)),
    F_COMPUTE(SaleFlow.through("F-COMPUTE", () -> new ComputeFunctionNode(SaleComputations::computeTotals), "out"),
            () -> throughNode(Domain.XML, SaleComputations::computeTotals)),
    F_XSLT(SaleFlow.through("F-XSLT", () -> XsltNode.of(SaleFlow.STYLESHEET), "out"),
            () -> PlainLoops.transform(SaleFlow.STYLESHEET)),
    F_CSV_PARSE(SaleFlow.recordsThrough("F-CSV-PARSE", SaleRecords.CSV,
            () -> new ComputeFunctionNode(SaleRecords::readLast), "out"),
            recordsOutput(SaleRecords.CSV, SaleRecords::readLast), SaleRecords::csvOfSize),
    F_CSV_WRITE(SaleFlow.through("F-CSV-WRITE", () -> new ComputeFunctionNode(SaleRecords.writeAs(SaleRecords.CSV)),
            "out"), nodeOutput(Domain.XML, SaleRecords.writeAs(SaleRecords.CSV)), SaleMessage::ofSize),
    F_FIXED_PARSE(SaleFlow.recordsThrough("F-FIXED-PARSE", SaleRecords.FIXED,
            () -> new ComputeFunctionNode(SaleRecords::readLast), "out"),
            recordsOutput(SaleRecords.FIXED, SaleRecords::readLast), SaleRecords::fixedOfSize),
    F_FIXED_WRITE(SaleFlow.through("F-FIXED-WRITE",
            () -> new ComputeFunctionNode(SaleRecords.writeAs(SaleRecords.FIXED)), "out"),
            nodeOutput(Domain.XML, SaleRecords.writeAs(SaleRecords.FIXED)), SaleMessage::ofSize),
    F_DB_INSERT("F-DB-INSERT", DatabaseFlows.INSERT),
    F_DB_UPDATE("F-DB-UPDATE", DatabaseFlows.UPDATE),
    F_DB_RETRIEVE("F-DB-RETRIEVE", DatabaseFlows.RETRIEVE),
    F_DB_ROUTE("F-DB-ROUTE", DatabaseFlows.ROUTE),
    F_HTTP(new HttpFlow(), null, null, HttpFlow.Loop::new),
    /** Its flow watches a folder of the server's data directory: {@link #factory(Path, boolean)}. */
    F_FILE(null, null, FileFlow.OUTPUT_QUEUE, FileFlow.Loop::new),
    /** Its flow writes to a folder of the server's data directory: {@link #factory(Path, boolean)}. */
    F_FILE_OUT(FileOutputFlow.INPUT_QUEUE, FileOutputFlow.OUTPUT_QUEUE, FileOutputFlow::loop),
    /** Its queues are the other provider's, not the flow's server's. */
    F_JMS(JmsFlow.INPUT_QUEUE, JmsFlow.OUTPUT_QUEUE, JmsFlow::loop);

    private final FlowFactory factory;
    private final String inputQueue;
    private final String outputQueue;
    /**
     * Makes the ceiling's work for a run persistent or not: the flow's own work on a body, returning a number that
     * keeps the result alive.
     */
    private final Function<Boolean, ToIntFunction<byte[]>> work;
    /** The input message of a size: the sale message, or its items as records. */
    private final IntFunction<byte[]> message;
    /** The database the flow's Database node writes to, or null. */
    private final BenchmarkDatabase database;
    /**
     * Makes the second plain loop's work for a run persistent or not, or null when the flow has none: a JMS application
     * doing the flow's work ({@link JmsLoop}), beside the loop of the node's work alone (docs/benchmarks.md, "Plain
     * loops").
     */
    private final Function<Boolean, ToIntFunction<byte[]>> jmsApplication;

    BenchmarkFlow(FlowFactory factory, String inputQueue, String outputQueue, Supplier<ToIntFunction<byte[]>> work) {
        this(factory, inputQueue, outputQueue, work == null ? null : persistent -> work.get(), SaleMessage::ofSize,
                null, null);
    }

    /**
     * A flow whose plain loop does durable work when the run is persistent, as the flow then does (F-FILE-OUT, F-JMS);
     * the flow is built by {@link #factory(Path, boolean)}.
     */
    BenchmarkFlow(String inputQueue, String outputQueue, Function<Boolean, ToIntFunction<byte[]>> loop) {
        this(null, inputQueue, outputQueue, loop, SaleMessage::ofSize, null, null);
    }

    private BenchmarkFlow(FlowFactory factory, String inputQueue, String outputQueue,
                          Function<Boolean, ToIntFunction<byte[]>> work, IntFunction<byte[]> message,
                          BenchmarkDatabase database, Function<Boolean, ToIntFunction<byte[]>> jmsApplication) {
        this.factory = factory;
        this.inputQueue = inputQueue;
        this.outputQueue = outputQueue;
        this.work = work;
        this.message = message;
        this.database = database;
        this.jmsApplication = jmsApplication;
    }

    BenchmarkFlow(SaleFlow flow, Supplier<ToIntFunction<byte[]>> work) {
        this(flow, flow.inputQueue(), flow.outputQueue(), work);
    }

    /**
     * A records workload: its plain loop is the compute node's {@code work} on the body alone, no messaging; its second
     * loop a JMS application doing that work on each request's body and replying with its output
     * ({@link JmsLoop.FlowWork#replying}).
     */
    BenchmarkFlow(SaleFlow flow, UnaryOperator<byte[]> work, IntFunction<byte[]> message) {
        this(flow, flow.inputQueue(), flow.outputQueue(), persistent -> body -> work.apply(body).length, message, null,
                persistent -> new JmsLoop(flow.inputQueue(), flow.outputQueue(), persistent,
                        JmsLoop.FlowWork.replying(work)));
    }

    /** A database workload: the sale message through its statement's Database node, with a database of its own. */
    BenchmarkFlow(String id, DatabaseFlows.Statement statement) {
        this(SaleFlow.through(id, statement::node, statement.terminal()), statement);
    }

    private BenchmarkFlow(SaleFlow flow, DatabaseFlows.Statement statement) {
        this(flow, flow.inputQueue(), flow.outputQueue(), persistent -> statement.loop(), SaleMessage::ofSize,
                statement.database(), persistent -> statement.jmsApplication(flow, persistent));
    }

    /**
     * The input message of about {@code size} bytes: the seed's sale message with its SaleList repeated, or for the
     * records parse workloads the items of that message as CSV or fixed-length records ({@link SaleRecords}).
     */
    public byte[] message(int size) {
        return message.apply(size);
    }

    /** The flow's name and workload id, e.g. {@code F-PASS}. */
    public String id() {
        return name().replace('_', '-');
    }

    /** The database the flow writes to (its data source {@value BenchmarkDatabase#DATA_SOURCE}), or null. */
    public BenchmarkDatabase database() {
        return database;
    }

    /**
     * Builds the flow for a server whose data directory is {@code data}, the run's messages persistent or not: F-FILE
     * watches a folder in that directory ({@link FileFlow#directory}) and F-FILE-OUT writes to one, and F-FILE and F-JMS read in a transaction
     * only for persistent runs (their input nodes have no AUTOMATIC mode to follow the message's persistence).
     */
    public FlowFactory factory(Path data, boolean persistent) {
        return switch (this) {
            case F_FILE -> new FileFlow(FileFlow.directory(data), persistent);
            case F_FILE_OUT -> new FileOutputFlow(FileOutputFlow.directory(data));
            case F_JMS -> new JmsFlow(persistent);
            default -> factory;
        };
    }

    /** The folder the flow takes its files from in a server whose data directory is {@code data}; else null. */
    public Path inputDirectory(Path data) {
        return this == F_FILE ? FileFlow.directory(data) : null;
    }

    /** The folder the flow writes its files to in a server whose data directory is {@code data}; else null. */
    public Path outputDirectory(Path data) {
        return this == F_FILE_OUT ? FileOutputFlow.directory(data) : null;
    }

    /** Whether the flow's input and output queues are another JMS provider's (F-JMS), not its own server's. */
    public boolean usesOtherProvider() {
        return this == F_JMS;
    }

    /** The path the flow serves on the server's HTTP listener, where its clients send their requests; else null. */
    public String httpPath() {
        return this == F_HTTP ? HttpFlow.PATH : null;
    }

    /**
     * Where the clients put the input messages; null for F-HTTP, whose clients are HTTP clients, and F-FILE, whose
     * clients write files.
     */
    public String inputQueue() {
        return inputQueue;
    }

    /** Where the clients take the outputs; null for F-PUB, whose outputs are publications, and F-HTTP. */
    public String outputQueue() {
        return outputQueue;
    }

    /** The flow of workload {@code id} ({@code F-PASS}, case ignored). */
    public static BenchmarkFlow of(String id) {
        return valueOf(id.toUpperCase(Locale.ROOT).replace('-', '_'));
    }

    /**
     * Whether the flow does work of its own that a loop without messaging can time: F-PASS does none (reading and
     * writing the message is all of it), so it has no ceiling.
     */
    public boolean hasCeiling() {
        return work != null;
    }

    /**
     * Whether the flow has a second plain loop beside the one its ratio's target is judged against: a JMS application
     * doing the flow's work ({@link #jmsApplicationLoop(boolean)}), for the database and records workloads.
     */
    public boolean hasJmsApplicationLoop() {
        return jmsApplication != null;
    }

    /**
     * Whether the plain loop's rate is bound by disk syncs, one or two per operation on one thread: F-FILE's (a sync
     * per file) and, persistent, every JMS loop's ({@link #loopWithMessaging()}: the journal's; also the second loop's,
     * {@link #hasJmsApplicationLoop()}). Its rate is then the disk's sync time, which
     * on a machine whose disk other work shares changes several-fold within minutes, so a loop timed once, after the
     * flow's step, may have met another disk than the flow did: the runner times it before the step as well
     * ({@code RunCommand}) and says when the two differ.
     */
    public boolean syncBound(boolean persistent) {
        return this == F_FILE || persistent && loopWithMessaging();
    }

    /**
     * Whether the plain loop does all its work on its own thread, so that its thread's CPU per operation is the
     * loop's whole cost, to set beside the CPU per operation of the flow's JVMs: F-FILE's file copy (its disk syncs
     * are the same one per file on both sides). A rate is not that comparison on a busy machine: the flow's twenty
     * feeders and the server's threads get far more of the cores than the loop's one thread.
     */
    public boolean loopOnItsThread() {
        return this == F_FILE;
    }

    /**
     * Whether the plain loop is a JMS loop ({@link JmsLoop}) with a Wharf server of its own in this JVM (F-JMS,
     * F-FILE-OUT, whose messages carry their work), whose whole CPU per operation (the loop's thread and its server's)
     * is the comparison with the flow's JVMs that holds on a busy machine. The second loop
     * ({@link #hasJmsApplicationLoop()}) is always one.
     */
    public boolean loopWithMessaging() {
        return this == F_JMS || this == F_FILE_OUT;
    }

    /**
     * What the flow's plain loop is, the one issue 36's target is judged against, as reports name it beside the flow
     * (docs/benchmarks.md, "Plain loops"): the node's work alone, no messaging, for the database flows (a JDBC
     * statement) and the XML and records flows (a parse, a transformation, a write); a plain JMS loop for F-JMS and,
     * with a file append in it, for F-FILE-OUT, whose messages carry their work; the JDK's HTTP client and server for
     * F-HTTP; a file copy for F-FILE. For a persistent run, the durable work it does as the flow does (a transaction
     * per message).
     */
    public String plainLoop(boolean persistent) {
        return switch (this) {
            case F_FILE -> "file copy synced per file, no messaging";
            case F_HTTP -> "JDK HTTP client and server, no broker";
            case F_DB_INSERT, F_DB_UPDATE, F_DB_RETRIEVE, F_DB_ROUTE -> "JDBC statement, no messaging";
            case F_JMS, F_FILE_OUT -> jmsLoop(persistent);
            default -> "the flow's work, no messaging";
        };
    }

    /**
     * What the flow's second plain loop is ({@link #hasJmsApplicationLoop()}): a JMS application with no flow engine
     * that receives the request, does the flow's work (a JDBC statement through a HikariCP pool, a parse or write of
     * records) and replies; for a persistent run, a transaction per message.
     */
    public String jmsApplicationLoop(boolean persistent) {
        if (jmsApplication == null) {
            throw new IllegalStateException(id() + " has no JMS application loop");
        }
        return jmsLoop(persistent);
    }

    private String jmsLoop(boolean persistent) {
        return (persistent ? "persistent JMS loop" : "plain JMS loop") + switch (this) {
            case F_FILE_OUT -> persistent ? " with a file append forced to disk" : " with a file append";
            case F_DB_INSERT, F_DB_UPDATE, F_DB_RETRIEVE, F_DB_ROUTE -> " with a JDBC statement from a HikariCP pool";
            case F_CSV_PARSE, F_CSV_WRITE, F_FIXED_PARSE, F_FIXED_WRITE -> " with the records work";
            default -> "";
        } + (persistent ? ", a transaction per message" : "") + ", no flow engine";
    }

    /**
     * The ceiling: the flow's plain loop ({@link #plainLoop(boolean)}) on {@code body}, on this thread.
     *
     * @param warmupMillis time spent looping before the measurement (the JIT compiles the loop)
     * @param runMillis    time measured
     * @param persistent   whether the run is persistent: the loop then does the durable work the flow does
     *                     ({@link #plainLoop(boolean)})
     */
    public Ceiling ceiling(byte[] body, long warmupMillis, long runMillis, boolean persistent) {
        return time(plainLoopWork(persistent), body, warmupMillis, runMillis);
    }

    /**
     * The second loop's timing ({@link #jmsApplicationLoop(boolean)}), as {@link #ceiling}: a JMS application doing
     * the flow's work on {@code body}, on this thread.
     */
    public Ceiling jmsApplicationCeiling(byte[] body, long warmupMillis, long runMillis, boolean persistent) {
        if (jmsApplication == null) {
            throw new IllegalStateException(id() + " has no JMS application loop");
        }
        return time(jmsApplication.apply(persistent), body, warmupMillis, runMillis);
    }

    /**
     * The plain loop's work on one body, as {@link #ceiling} times it (a number that keeps the result alive), for a
     * benchmark of that work alone ({@code TreeWriteBenchmark}, {@code RecordsBenchmark}). Close it after use when it
     * is {@link AutoCloseable} (a database of its own).
     */
    public ToIntFunction<byte[]> plainLoopWork(boolean persistent) {
        if (work == null) {
            throw new IllegalStateException(id() + " has no work of its own to time without messaging");
        }
        return work.apply(persistent);
    }

    private Ceiling time(ToIntFunction<byte[]> ceilingWork, byte[] body, long warmupMillis, long runMillis) {
        try {
            loop(ceilingWork, body, warmupMillis);
            com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            com.sun.management.OperatingSystemMXBean process =
                    (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
            long thread = Thread.currentThread().getId();
            long cpuStart = threads.getCurrentThreadCpuTime();
            long processStart = process.getProcessCpuTime();
            long allocatedStart = threads.getThreadAllocatedBytes(thread);
            long start = System.nanoTime();
            long done = loop(ceilingWork, body, runMillis);
            double seconds = (System.nanoTime() - start) / 1e9;
            long cpuNanos = threads.getCurrentThreadCpuTime() - cpuStart;
            long processNanos = process.getProcessCpuTime() - processStart;
            long allocated = threads.getThreadAllocatedBytes(thread) - allocatedStart;
            return new Ceiling(done / seconds, done == 0 ? Double.NaN : cpuNanos / 1000.0 / done,
                    done == 0 ? Double.NaN : (double) allocated / done,
                    done == 0 ? Double.NaN : processNanos / 1000.0 / done);
        } finally {
            if (ceilingWork instanceof AutoCloseable resources) { // a database of its own
                try {
                    resources.close();
                } catch (Exception e) {
                    throw new IllegalStateException(id() + "'s ceiling could not close its resources", e);
                }
            }
        }
    }

    private static long loop(ToIntFunction<byte[]> work, byte[] body, long millis) {
        long deadline = System.nanoTime() + millis * 1_000_000;
        long done = 0;
        long sink = 0;
        while (System.nanoTime() < deadline) {
            for (int i = 0; i < 10; i++) {
                sink += work.applyAsInt(body);
                done++;
            }
        }
        if (sink < 0) {
            throw new AssertionError(); // keeps the results alive for the JIT
        }
        return done;
    }

    /**
     * A compute node's work as a ceiling: the message the input node would hand the flow (the body and the JMS
     * header fields the requester set), the node's function, and the output body it leaves with.
     */
    static ToIntFunction<byte[]> throughNode(Domain domain, UnaryOperator<MessageAssembly> node) {
        UnaryOperator<byte[]> output = nodeOutput(domain, node);
        return body -> output.apply(body).length;
    }

    /** A compute node's work on a body in {@code domain}, as {@link #throughNode}: returns the output's body. */
    static UnaryOperator<byte[]> nodeOutput(Domain domain, UnaryOperator<MessageAssembly> node) {
        return nodeOutput(body -> FlowMessage.ofBytes(domain, body), node);
    }

    private static UnaryOperator<byte[]> nodeOutput(Function<byte[], FlowMessage> read,
                                                    UnaryOperator<MessageAssembly> node) {
        return body -> {
            FlowMessage message = read.apply(body);
            message.setCorrelationId("perf-ceiling");
            message.setUserProperty("seq", 1);
            MessageAssembly input = MessageAssembly.of(message, Folder.empty("Environment"));
            input.freeze();
            return node.apply(input).message().bodyBytes();
        };
    }

    /** A compute node's work on a records body, as {@link #nodeOutput(Domain, UnaryOperator)} for the other domains. */
    private static UnaryOperator<byte[]> recordsOutput(RecordFormat format, UnaryOperator<MessageAssembly> node) {
        return nodeOutput(body -> FlowMessage.ofBytes(Domain.BLOB, body).parseAs(format), node);
    }

    /**
     * F-OPAQUE's ceiling: Saxon cannot skip an element unparsed, so this is the flow engine's own opaque parse of
     * the body and the filter's XPath on it, with no messaging around them.
     */
    private static ToIntFunction<byte[]> opaqueFilter(String opaquePath, String xpath) {
        OpaqueElements opaque = OpaqueElements.of(opaquePath);
        XPathQuery condition = XPathQuery.compile(xpath);
        return body -> condition.test(FlowMessage.ofBytes(Domain.XML, body).parseOpaquely(opaque)) ? 1 : 0;
    }

    /**
     * The ceiling of the filter and route workloads, which parse on demand: the flow engine's on-demand answer to
     * the condition (a SAX pass that stops at the answer, no tree), with no messaging around it. Plain Saxon (parse,
     * then XPath) builds the whole tree, so it would be a lower bar than the flow itself.
     */
    private static ToIntFunction<byte[]> onDemandFilter(String xpath) {
        XPathQuery condition = XPathQuery.compile(xpath);
        return body -> condition.test(FlowMessage.ofBytes(Domain.XML, body).parseOnDemand()) ? 1 : 0;
    }

    /** The XPath conditions of the filter and route workloads: always true on the sale message, as in the seed. */
    private static final class Conditions {
        /** What F-OPAQUE parses opaquely: every repeating SaleList, almost all of the message. */
        static final String SALE_LIST = "/Parent/SaleList";
        /** The first element, before any SaleList: the seed's "filter first". */
        static final String FIRST = "/Parent/First = '1'";
        /** The last element, after every SaleList: the seed's "filter last". */
        static final String LAST = "/Parent/Last = 'Test'";
    }

    /**
     * A ceiling measurement.
     *
     * @param rate                  operations per second on one thread
     * @param cpuMicrosPerOp        CPU microseconds of the loop's thread per operation
     * @param bytesPerOp            bytes the loop's thread allocated per operation
     * @param processCpuMicrosPerOp CPU microseconds of the loop's whole JVM per operation: its thread's and, for a
     *                              loop with messaging, its server's (the JVM does nothing else meanwhile), to set
     *                              beside the flow's JVMs' (server and clients)
     */
    public record Ceiling(double rate, double cpuMicrosPerOp, double bytesPerOp, double processCpuMicrosPerOp) {

        /** The mean of two timings of one loop (before and after the flow's step). */
        public static Ceiling mean(Ceiling before, Ceiling after) {
            return new Ceiling((before.rate + after.rate) / 2, (before.cpuMicrosPerOp + after.cpuMicrosPerOp) / 2,
                    (before.bytesPerOp + after.bytesPerOp) / 2,
                    (before.processCpuMicrosPerOp + after.processCpuMicrosPerOp) / 2);
        }

        /** How many times faster the faster of two timings was (1 when they agree, infinite when one did nothing). */
        public static double drift(Ceiling before, Ceiling after) {
            return Math.max(before.rate, after.rate) / Math.min(before.rate, after.rate);
        }
    }
}
