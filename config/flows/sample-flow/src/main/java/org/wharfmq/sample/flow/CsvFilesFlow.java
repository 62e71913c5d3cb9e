package org.wharfmq.sample.flow;

import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.FlowFactory;
import org.wharfmq.flow.node.ConvertNode;
import org.wharfmq.flow.node.FileInputNode;
import org.wharfmq.flow.node.FileOutputNode;
import org.wharfmq.flow.records.CsvFormat;

import java.time.Duration;

/**
 * The files sample: CSV files in, JSON files out, in directories under the server's data directory (the working
 * directory's {@code data/}, which the sample configuration's {@code flowHost.fileDirectories} allows).
 *
 * <ul>
 *   <li>A file {@code data/files/in/NAME.csv} whose first line names the columns is read one record at a time;
 *       each record becomes a JSON line {@code [{"id":"1","customer":"Ann","total":"12.50"}]} of a file
 *       {@code data/files/out/orders-NNNNNN.json}, finished (renamed from {@code .part}) at 1000 records or one
 *       second after its first.</li>
 *   <li>The file read moves to {@code data/files/in/archive/}; one that is not such CSV (a record with too few or
 *       too many values) to {@code data/files/in/backout/}, with {@code NAME.csv.reason} beside it saying which
 *       record and why.</li>
 * </ul>
 */
public final class CsvFilesFlow implements FlowFactory {

    /** The directory watched for CSV files, relative to the server's working directory. */
    public static final String INPUT_DIRECTORY = "data/files/in";
    /** The directory the JSON files are written to. */
    public static final String OUTPUT_DIRECTORY = "data/files/out";

    @Override
    public FlowDefinition create() {
        return FlowDefinition.builder("csv-files")
                .node("in", FileInputNode.directory(INPUT_DIRECTORY).pattern("*.csv").records(CsvFormat.withHeader())
                        .backoutThreshold(1)) // reading the record again cannot help
                .node("toJson", ConvertNode.toJson())
                .node("out", FileOutputNode.directory(OUTPUT_DIRECTORY).name("orders-{seq}.json").maxRecords(1000)
                        .maxAge(Duration.ofSeconds(1)))
                .wire("in", "out", "toJson")
                .wire("toJson", "out", "out")
                .build();
    }
}
