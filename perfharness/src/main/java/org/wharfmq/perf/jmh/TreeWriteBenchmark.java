package org.wharfmq.perf.jmh;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.w3c.dom.Document;
import org.w3c.dom.Node;
import org.wharfmq.flow.Domain;
import org.wharfmq.flow.FlowMessage;
import org.wharfmq.perf.flow.BenchmarkFlow;

import java.util.concurrent.TimeUnit;
import java.util.function.ToIntFunction;

/**
 * The XML domain's write of a changed tree (F-WRITE, seed 002's "Writing a Generic XMLNSC Output Message"): the
 * serialisation of the changed DOM alone, and F-WRITE's plain loop (the node's whole work: the DOM parse, the change,
 * the write), on the sale message of {@code size} bytes. Run with {@code -prof gc} for the bytes allocated per
 * operation ({@code gc.alloc.rate.norm}), which the machine's load does not move.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class TreeWriteBenchmark {

    @Param({"4096", "4194304"})
    public int size;

    private byte[] body;
    private FlowMessage changed;
    private ToIntFunction<byte[]> plainLoop;

    @Setup
    public void setUp() {
        body = BenchmarkFlow.F_WRITE.message(size);
        changed = FlowMessage.ofBytes(Domain.XML, body);
        Document document = changed.xmlForUpdate();
        Node last = document.getDocumentElement().getLastChild();
        last.setTextContent("Changed");
        plainLoop = BenchmarkFlow.F_WRITE.plainLoopWork(false);
    }

    /** The changed tree written out as the output node sends it: its serialisation alone. */
    @Benchmark
    public byte[] write() {
        return changed.bodyBytes();
    }

    /** F-WRITE's plain loop: the node's whole work on the body, the DOM parse and the write. */
    @Benchmark
    public int parseChangeWrite() {
        return plainLoop.applyAsInt(body);
    }
}
