package org.wharfmq.perf.workload;

import org.wharfmq.perf.flow.BenchmarkFlow;
import org.wharfmq.perf.options.OptionException;

import java.util.Locale;

/**
 * The workloads the runner can run, as docs/benchmarks.md defines them, and where their clients live. RR-1 and
 * RR-3 are the same run on Wharf (there is no MQI: both are JMS over {@code vm://}); both ids exist so results
 * can be set beside the seed's rows of either. The F-* workloads run a message flow built into the harness
 * ({@link BenchmarkFlow}) in the server; their requesters put the input on the flow's input queue and wait for the
 * output on its output queue.
 */
public enum Workload {
    RR_1("RR-1", "requester/responder, both in the server JVM (vm://)", "round trips/s", true, true),
    RR_2("RR-2", "requesters over TCP in their own JVM, responders in the server JVM (vm://)", "round trips/s", false, true),
    RR_2B("RR-2b", "as RR-2 over n request/reply queue pairs: requester i uses REQUESTk and REPLYk (k = i mod n), "
            + "each pair with its own responders in the server JVM", "round trips/s", false, true),
    RR_3("RR-3", "JMS requester/responder, both in the server JVM (vm://)", "round trips/s", true, true),
    RR_4("RR-4", "JMS requesters and responders over TCP, each in their own JVM", "round trips/s", false, false),
    RR_4B("RR-4b", "as RR-4 over n request queues, a temporary reply queue per requester", "round trips/s", false, false),
    RR_RATED("RR-RATED", "as RR-4 with every requester held to a rate (--rate round trips/s each), the requesters "
            + "stepped into the thousands over several JVMs until the median response time passes "
            + RatedSteps.THRESHOLD_SECONDS + " s (over all requesters or in a requester JVM)", "round trips/s", false, false),
    RR_SHORT("RR-SHORT", "short sessions: each requester connects, sends one request, takes its reply and "
            + "disconnects, again and again; responders over TCP in their own JVM", "round trips/s", false, false),
    CONNECT("CONNECT", "each client connects (the handshake and, with users, the login) and disconnects, again and "
            + "again; nothing is sent", "connections/s", false, false),
    RR_5("RR-5", "distributed queuing: requesters on queue manager QM1, responders on QM2, over n request/reply queue "
            + "pairs, requests and replies crossing channels (1 to 10 each way), each queue manager in its own JVM",
            "round trips/s", false, false),
    RR_5B("RR-5b", "as RR-5 with a temporary reply queue per requester (on QM1, its replies back by QM2's route to QM1)",
            "round trips/s", false, false),
    OW_1("OW-1", "one-way: each rated producer has its own queue and consumer", "messages/s", false, false),
    OW_5("OW-5", "one-way over channels: rated producers on QM1, each queue on QM2 with its consumer, every message "
            + "crossing a channel; counted at the consumers", "messages/s", false, false),
    F_PASS("F-PASS", "message flow input -> output, the body a BLOB never parsed; requesters over TCP in their own JVM",
            "flow invocations/s", false, false),
    F_HDR("F-HDR", "message flow input -> JavaCompute setting two header fields (no payload out) -> output; "
            + "requesters over TCP in their own JVM", "flow invocations/s", false, false),
    F_PARSE("F-PARSE", "message flow input (XML) -> JavaCompute reading the last element (a full parse), headers only "
            + "out -> output; requesters over TCP in their own JVM", "flow invocations/s", false, false),
    F_WRITE("F-WRITE", "message flow input (XML) -> JavaCompute copying the message and changing its last element -> "
            + "output (a full parse and write)", "flow invocations/s", false, false),
    F_VALID("F-VALID", "message flow input validating against wmb-sale.xsd -> output", "flow invocations/s", false, false),
    F_FILTER_FIRST("F-FILTER-FIRST", "message flow input (XML) -> Filter on /Parent/First (XPath) -> true -> output",
            "flow invocations/s", false, false),
    F_FILTER_LAST("F-FILTER-LAST", "message flow input (XML) -> Filter on /Parent/Last (XPath) -> true -> output",
            "flow invocations/s", false, false),
    F_OPAQUE("F-OPAQUE", "message flow input (XML, every SaleList parsed opaquely) -> Filter on /Parent/Last (XPath) -> "
            + "true -> output", "flow invocations/s", false, false),
    F_ROUTE("F-ROUTE", "message flow input (XML) -> Route on the first element (XPath) -> its terminal -> output",
            "flow invocations/s", false, false),
    F_COMPUTE("F-COMPUTE", "message flow input (XML) -> JavaCompute computing balances and InvoicesTotal -> output",
            "flow invocations/s", false, false),
    F_XSLT("F-XSLT", "message flow input (XML) -> XSLTransform with wmb-transform.xsl -> output", "flow invocations/s",
            false, false),
    F_CSV_PARSE("F-CSV-PARSE", "message flow input (RECORDS, CSV) -> JavaCompute reading the last record's last field "
            + "(a full parse), headers only out -> output", "flow invocations/s", false, false),
    F_CSV_WRITE("F-CSV-WRITE", "message flow input (XML) -> JavaCompute turning the sale's items into records -> output "
            + "(written as CSV)", "flow invocations/s", false, false),
    F_FIXED_PARSE("F-FIXED-PARSE", "message flow input (RECORDS, fixed-length) -> JavaCompute reading the last record's "
            + "last field (a full parse), headers only out -> output", "flow invocations/s", false, false),
    F_FIXED_WRITE("F-FIXED-WRITE", "message flow input (XML) -> JavaCompute turning the sale's items into records -> "
            + "output (written as fixed-length records)", "flow invocations/s", false, false),
    F_DB_INSERT("F-DB-INSERT", "message flow input (XML) -> Database inserting the last element's value (a bound "
            + "parameter) into an embedded H2 -> output", "flow invocations/s", false, false),
    F_DB_UPDATE("F-DB-UPDATE", "message flow input (XML) -> Database updating a row of an embedded H2 with the last "
            + "element's value -> output", "flow invocations/s", false, false),
    F_DB_RETRIEVE("F-DB-RETRIEVE", "message flow input (XML) -> DatabaseRetrieve reading the row keyed by the last "
            + "element's value from an embedded H2 into the LocalEnvironment -> output", "flow invocations/s", false, false),
    F_DB_ROUTE("F-DB-ROUTE", "message flow input (XML) -> DatabaseRoute looking the last element's value up in an "
            + "embedded H2, its match terminal -> output", "flow invocations/s", false, false),
    F_HTTP("F-HTTP", "message flow HTTPInput -> HTTPReply, the body a BLOB sent back unchanged; HTTP clients (the JDK's, "
            + "persistent connections) in their own JVM", "flow invocations/s", false, false),
    F_FILE("F-FILE", "message flow FileInput (a whole file, BLOB) -> output; file feeders in their own JVM keep the "
            + "watched folder topped up and take the outputs", "flow invocations/s", false, false),
    F_FILE_OUT("F-FILE-OUT", "message flow input -> FileOutput appending each message as a line to a large file -> an "
            + "empty message to the output", "flow invocations/s", false, false),
    F_JMS("F-JMS", "message flow JMSInput -> JMSOutput, both on another JMS provider (a second Wharf server, through "
            + "its JMS client); requesters on that provider", "flow invocations/s", false, false),
    F_PUB("F-PUB", "message flow input -> Publication node on one topic with N subscribers; a publisher puts the input "
            + "on the flow's queue, each side in its own JVMs over TCP", "deliveries/s", false, false),
    PS_N("PS-N", "1 publisher, 1 topic, N non-durable subscribers, each side in its own JVMs over TCP", "deliveries/s", false, false),
    PS_T("PS-T", "N subscribers each on its own topic (a publisher thread each), plus D dummy subscriptions on topics "
            + "nothing is published to", "deliveries/s", false, false),
    PS_D("PS-D", "as PS-N with durable subscriptions and persistent messages", "deliveries/s", false, false);

    private final String id;
    private final String description;
    private final String unit;
    private final boolean requestersInServer;
    private final boolean respondersInServer;

    Workload(String id, String description, String unit, boolean requestersInServer, boolean respondersInServer) {
        this.id = id;
        this.description = description;
        this.unit = unit;
        this.requestersInServer = requestersInServer;
        this.respondersInServer = respondersInServer;
    }

    public String id() {
        return id;
    }

    public String description() {
        return description;
    }

    /** What a step counts. */
    public String unit() {
        return unit;
    }

    /** True when the requesters run inside the server JVM. */
    public boolean requestersInServer() {
        return requestersInServer;
    }

    /** True when the responders run inside the server JVM. */
    public boolean respondersInServer() {
        return respondersInServer;
    }

    /**
     * True where the workload's messages are persistent whether or not {@code --persistent} is given (PS-D's durable
     * subscriptions get persistent publications): the run is then persistent on every server, so that a peer's
     * journal syncs each persistent send as Wharf's does.
     */
    public boolean alwaysPersistent() {
        return this == PS_D;
    }

    /** True for request/reply workloads (counted in round trips; a flow's output is its reply). */
    public boolean requestReply() {
        return id.startsWith("RR");
    }

    /**
     * True for the distributed queuing workloads (RR-5, RR-5b, OW-5): two queue managers joined by channels, the
     * measured drivers (requesters, producers) on the first, the background ones (responders, consumers) on the
     * second ({@link QueueManagerPair}).
     */
    public boolean twoQueueManagers() {
        return this == RR_5 || this == RR_5B || this == OW_5;
    }

    /** True for the workloads whose every operation opens and closes a connection of its own. */
    public boolean connectionPerOperation() {
        return this == RR_SHORT || this == CONNECT;
    }

    /** True for publish/subscribe workloads (counted in deliveries to subscribers), F-PUB's flow among them. */
    public boolean publishSubscribe() {
        return id.startsWith("PS") || this == F_PUB;
    }

    /** The message flow a broker workload runs in the server, else null. */
    public BenchmarkFlow flow() {
        return id.startsWith("F-") ? BenchmarkFlow.of(id) : null;
    }

    /** Every id, for help and error messages: {@code RR-1, RR-2, ... or F-PUB}. */
    public static String ids() {
        StringBuilder ids = new StringBuilder();
        Workload[] all = values();
        for (int i = 0; i < all.length; i++) {
            ids.append(i == 0 ? "" : i == all.length - 1 ? " or " : ", ").append(all[i].id);
        }
        return ids.toString();
    }

    /** Parses an id such as {@code RR-4} or {@code rr-4b}; names the issue a not-yet-runnable workload waits for. */
    public static Workload parse(String text) {
        String t = text.toUpperCase(Locale.ROOT);
        for (Workload w : values()) {
            if (w.id.toUpperCase(Locale.ROOT).equals(t)) {
                return w;
            }
        }
        if (t.equals("F-PERSIST")) {
            throw new OptionException(text + " is a flow workload with persistent messages: run any F-* workload with "
                    + "--persistent (each invocation is then one transaction)");
        }
        throw new OptionException("Unknown workload " + text + "; use " + ids());
    }
}
