package org.wharfmq.perf.jmh;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.wharfmq.protocol.selector.Selector;
import org.wharfmq.protocol.selector.SelectorContext;
import org.wharfmq.protocol.selector.SelectorParseException;

import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * JMS selector evaluation as the server does it for every message offered to a general consumer, and parsing
 * as it does once per consumer (the request/reply pattern parses one selector per request).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class SelectorBenchmark {

    private static final String TYPICAL = "JMSPriority > 3 AND region = 'EMEA' AND amount BETWEEN 100 AND 1000 AND sku LIKE 'AB%'";

    private Selector typical;
    private Selector correlation;
    private SelectorContext message;

    @Setup
    public void setUp() throws SelectorParseException {
        typical = Selector.parse(TYPICAL);
        correlation = Selector.parse("JMSCorrelationID = 'ID:bench-connection:12345'");
        Map<String, Object> values = Map.of("JMSPriority", 5, "region", "EMEA", "amount", 500L, "sku", "AB-1234",
                "JMSCorrelationID", "ID:bench-connection:12345");
        message = values::get;
    }

    /** Four comparisons (numeric, string, BETWEEN, LIKE) joined by AND, all true. */
    @Benchmark
    public boolean matchTypical() {
        return typical.matches(message);
    }

    /** The request/reply selector. */
    @Benchmark
    public boolean matchCorrelationId() {
        return correlation.matches(message);
    }

    /** Parsing the request/reply selector (done for every request by a consumer-per-request requester). */
    @Benchmark
    public Selector parseCorrelationId() throws SelectorParseException {
        return Selector.parse("JMSCorrelationID = 'ID:bench-connection:12345'");
    }

    /** Parsing the typical selector. */
    @Benchmark
    public Selector parseTypical() throws SelectorParseException {
        return Selector.parse(TYPICAL);
    }
}
