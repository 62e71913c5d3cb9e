package org.wharfmq.perf.jmh;

import com.fasterxml.jackson.databind.node.ArrayNode;
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
import org.wharfmq.perf.flow.BenchmarkFlow;
import org.wharfmq.perf.flow.SaleRecords;

import java.util.concurrent.TimeUnit;
import java.util.function.ToIntFunction;

/**
 * The records domain's parse and write (F-CSV-PARSE, F-FIXED-PARSE, F-CSV-WRITE, F-FIXED-WRITE) on the sale message's
 * items of {@code size} bytes: each format's parse into the tree and write of the tree alone, and each workload's
 * plain loop (the node's whole work, as the runner times it). Run with {@code -prof gc} for the bytes allocated per
 * operation ({@code gc.alloc.rate.norm}), which the machine's load does not move.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class RecordsBenchmark {

    @Param({"4096"})
    public int size;

    private byte[] csv;
    private byte[] fixed;
    private byte[] xml;
    private ArrayNode records;
    private ToIntFunction<byte[]> csvParseLoop;
    private ToIntFunction<byte[]> fixedParseLoop;
    private ToIntFunction<byte[]> csvWriteLoop;
    private ToIntFunction<byte[]> fixedWriteLoop;

    @Setup
    public void setUp() {
        csv = BenchmarkFlow.F_CSV_PARSE.message(size);
        fixed = BenchmarkFlow.F_FIXED_PARSE.message(size);
        xml = BenchmarkFlow.F_CSV_WRITE.message(size);
        records = SaleRecords.CSV.parse(csv); // every value text, as the write workloads' records from the XML
        csvParseLoop = BenchmarkFlow.F_CSV_PARSE.plainLoopWork(false);
        fixedParseLoop = BenchmarkFlow.F_FIXED_PARSE.plainLoopWork(false);
        csvWriteLoop = BenchmarkFlow.F_CSV_WRITE.plainLoopWork(false);
        fixedWriteLoop = BenchmarkFlow.F_FIXED_WRITE.plainLoopWork(false);
    }

    @Benchmark
    public ArrayNode csvParse() {
        return SaleRecords.CSV.parse(csv);
    }

    @Benchmark
    public ArrayNode fixedParse() {
        return SaleRecords.FIXED.parse(fixed);
    }

    @Benchmark
    public byte[] csvWrite() {
        return SaleRecords.CSV.write(records);
    }

    @Benchmark
    public byte[] fixedWrite() {
        return SaleRecords.FIXED.write(records);
    }

    /** F-CSV-PARSE's plain loop: the node's work on the body (the parse, the last record's last field read). */
    @Benchmark
    public int csvParseLoop() {
        return csvParseLoop.applyAsInt(csv);
    }

    @Benchmark
    public int fixedParseLoop() {
        return fixedParseLoop.applyAsInt(fixed);
    }

    /** F-CSV-WRITE's plain loop: the node's work on the sale message (its records made from the XML, written). */
    @Benchmark
    public int csvWriteLoop() {
        return csvWriteLoop.applyAsInt(xml);
    }

    @Benchmark
    public int fixedWriteLoop() {
        return fixedWriteLoop.applyAsInt(xml);
    }
}
