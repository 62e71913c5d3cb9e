package org.wharfmq.perf.jmh;

import net.sf.saxon.s9api.SaxonApiException;
import net.sf.saxon.s9api.XsltExecutable;
import net.sf.saxon.s9api.XsltTransformer;
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
import org.wharfmq.flow.XsltStylesheet;
import org.wharfmq.perf.flow.SaleFlow;
import org.wharfmq.perf.flow.SaleMessage;

import javax.xml.transform.stream.StreamSource;
import java.io.ByteArrayOutputStream;
import java.net.URL;
import java.util.concurrent.TimeUnit;

/**
 * F-XSLT's transformation (the seed's {@code wmb-transform.xsl}) of the seed's 4 KB sale message, on a tree already
 * built, serialised to bytes, as the XSLTransform node does for each message; and, for comparison, the same with a
 * transformer loaded for it alone, as the node did before it kept one transformer per thread. Run with
 * {@code -prof gc} for the allocation per transformation ({@code gc.alloc.rate.norm}), which the machine's load
 * does not move.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class XsltBenchmark {

    private static final URL SOURCE = SaleFlow.class.getResource("wmb-transform.xsl");
    private static final XsltStylesheet STYLESHEET = XsltStylesheet.compile(SOURCE);
    private static final XsltExecutable EXECUTABLE = compile(SOURCE);

    private FlowMessage parsed;
    private FlowMessage output;

    @Setup
    public void setUp() {
        parsed = FlowMessage.ofBytes(Domain.XML, SaleMessage.ofSize(4096));
        parsed.xml();
        output = FlowMessage.ofBytes(Domain.XML, new byte[0]);
    }

    /** The stylesheet applied to the sale message's tree, the result serialised to bytes. */
    @Benchmark
    public FlowMessage transform() throws SaxonApiException {
        STYLESHEET.transform(parsed, output);
        return output;
    }

    /** The same transformation with a transformer (and its controller) loaded for it alone. */
    @Benchmark
    public FlowMessage transformWithItsOwnTransformer() throws SaxonApiException {
        XsltTransformer transformer = EXECUTABLE.load();
        transformer.setInitialContextNode(parsed.xml());
        ByteArrayOutputStream result = new ByteArrayOutputStream(parsed.bodyBytes().length);
        transformer.setDestination(Xml.processor().newSerializer(result));
        transformer.transform();
        output.setBody(result.toByteArray());
        return output;
    }

    private static XsltExecutable compile(URL stylesheet) {
        try {
            return Xml.processor().newXsltCompiler().compile(new StreamSource(stylesheet.toString()));
        } catch (SaxonApiException e) {
            throw new IllegalStateException(e);
        }
    }
}
