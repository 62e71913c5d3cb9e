package org.wharfmq.perf.jmh;

import net.sf.saxon.s9api.SaxonApiException;
import net.sf.saxon.s9api.XPathExecutable;
import net.sf.saxon.s9api.XPathSelector;
import net.sf.saxon.s9api.XdmItem;
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
import org.wharfmq.flow.Domain;
import org.wharfmq.flow.FlowMessage;
import org.wharfmq.flow.Xml;
import org.wharfmq.flow.XPathQuery;
import org.wharfmq.perf.flow.SaleMessage;

import java.util.concurrent.TimeUnit;

/**
 * An XPath evaluation of the XML flows (a message path's value, a filter's condition) on the seed's 4 KB sale
 * message: alone on a tree already built, and with the parse that builds it, as a Database node's value or a
 * filter does for each message; and, for comparison, the evaluation with a selector loaded for it alone, as the flow
 * engine evaluated before it kept one selector per thread. Run with {@code -prof gc} for the allocation per
 * evaluation ({@code gc.alloc.rate.norm}), which the machine's load does not move.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class XPathBenchmark {

    private static final XPathQuery LAST = XPathQuery.compile("/Parent/Last");
    private static final XPathExecutable LAST_EXECUTABLE = compile("/Parent/Last");

    private byte[] body;
    private FlowMessage parsed;

    @Setup
    public void setUp() {
        body = SaleMessage.ofSize(4096);
        parsed = FlowMessage.ofBytes(Domain.XML, body);
        parsed.xml();
    }

    /** The string value of the sale message's last element, on its tree. */
    @Benchmark
    public String evaluate() {
        return LAST.string(parsed);
    }

    /** The same evaluation with a selector (and its controller) loaded for it alone. */
    @Benchmark
    public String evaluateWithItsOwnSelector() throws SaxonApiException {
        XPathSelector selector = LAST_EXECUTABLE.load();
        selector.setContextItem(parsed.xml());
        XdmItem first = selector.evaluateSingle();
        return first == null ? null : first.getStringValue();
    }

    private static XPathExecutable compile(String expression) {
        try {
            return Xml.processor().newXPathCompiler().compile(expression);
        } catch (SaxonApiException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The message parsed into a tree, then the same evaluation. */
    @Benchmark
    public String parseAndEvaluate() {
        return LAST.string(FlowMessage.ofBytes(Domain.XML, body));
    }
}
