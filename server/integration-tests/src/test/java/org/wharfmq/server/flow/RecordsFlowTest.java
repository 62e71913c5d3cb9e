package org.wharfmq.server.flow;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.flow.Domain;
import org.wharfmq.flow.ExceptionList;
import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.node.ConvertNode;
import org.wharfmq.flow.node.FileInputNode;
import org.wharfmq.flow.node.InputNode;
import org.wharfmq.flow.node.OutputNode;
import org.wharfmq.flow.records.CsvFormat;
import org.wharfmq.flow.records.FixedFormat;

import javax.jms.Message;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The records domain in flows on a real server: CSV to XML, fixed-length to JSON and XML to CSV through the Convert
 * node, a file read one CSV record per message, and hostile records (an unterminated quote, a record shorter than
 * its model, a line longer than the limit) sent to the failure terminal with their number while the others pass.
 */
class RecordsFlowTest {

    private static final FixedFormat ORDER = FixedFormat.builder(30)
            .string("name", 0, 10)
            .integer("qty", 10, 6)
            .decimal("price", 16, 6, 2)
            .date("shipped", 22, 8, "yyyyMMdd")
            .build();

    @TempDir
    Path root;
    private FlowFixture fixture;

    @BeforeEach
    void start() throws Exception {
        fixture = new FlowFixture();
    }

    @AfterEach
    void stop() throws Exception {
        fixture.close();
    }

    /** in -> convert -> out, the convert node's failures to why -> BAD. */
    private void runConversion(InputNode input, ConvertNode convert) throws Exception {
        fixture.run(FlowDefinition.builder("convert")
                .node("in", input)
                .node("convert", convert)
                .node("out", OutputNode.queue("OUT"))
                .node("why", new RecordExceptionList())
                .node("bad", OutputNode.queue("BAD"))
                .wire("in", "out", "convert")
                .wire("convert", "out", "out")
                .wire("convert", "failure", "why")
                .wire("why", "out", "bad")
                .build(), 1);
    }

    @Test
    void csvBecomesXmlAndAnUnterminatedQuoteGoesToFailureNamingItsRecordAndLine() throws Exception {
        runConversion(InputNode.queue("IN").records(CsvFormat.withHeader().delimiter(';')),
                ConvertNode.toXml("Orders", "Order"));
        fixture.send("IN", "id;name\n1;Ann\n2;\"Smith; Bob\"\n", false, "seq", 1);
        fixture.send("IN", "id;name\n3;Cy\n4;\"Dee\n5;Eve\n", false, "seq", 2);
        fixture.send("IN", "id;name\n6;Fay\n", false, "seq", 3);

        List<Message> out = fixture.receive("OUT", 2);
        assertEquals("<Orders><Order><id>1</id><name>Ann</name></Order><Order><id>2</id><name>Smith; Bob</name>"
                + "</Order></Orders>", FlowFixture.text(out.get(0)));
        assertEquals(1, out.get(0).getIntProperty("seq"), "the properties pass through the conversion");
        assertEquals("<Orders><Order><id>6</id><name>Fay</name></Order></Orders>", FlowFixture.text(out.get(1)));
        Message bad = fixture.receiveOne("BAD");
        assertEquals(2, bad.getIntProperty("seq"));
        String why = bad.getStringProperty(ExceptionList.PROPERTY);
        assertTrue(why.contains("CSV record 2 (line 3) cannot be parsed"), why);
        assertTrue(why.contains("quote"), why);
        assertEquals("id;name\n3;Cy\n4;\"Dee\n5;Eve\n", FlowFixture.text(bad), "the failure gets the body as it came");
    }

    @Test
    void fixedLengthRecordsBecomeJsonAndAShortRecordGoesToFailureNamingItsOffset() throws Exception {
        runConversion(InputNode.queue("IN").records(ORDER), ConvertNode.toJson());
        fixture.sendBytes("IN", ("Ann       000003012.5020261201" + "Bob Smith -00012000.0520260101").getBytes());
        fixture.sendBytes("IN", ("Ann       000003012.5020261201" + "Bob Smith -00012").getBytes());

        assertEquals("[{\"name\":\"Ann\",\"qty\":3,\"price\":12.50,\"shipped\":\"2026-12-01\"},"
                        + "{\"name\":\"Bob Smith\",\"qty\":-12,\"price\":0.05,\"shipped\":\"2026-01-01\"}]",
                FlowFixture.text(fixture.receiveOne("OUT")));
        String why = fixture.receiveOne("BAD").getStringProperty(ExceptionList.PROPERTY);
        assertTrue(why.contains("Fixed-length record 2 (at byte 30) is 16 bytes, shorter than the model's record "
                + "length of 30 bytes: field 'price' (offset 16, length 6) is cut."), why);
    }

    @Test
    void xmlBecomesCsvAndJsonBecomesFixedLength() throws Exception {
        fixture.run(FlowDefinition.builder("reverse")
                .node("xml", InputNode.queue("XML.IN").domain(Domain.XML))
                .node("json", InputNode.queue("JSON.IN").domain(Domain.JSON))
                .node("toCsv", ConvertNode.toRecords(CsvFormat.withHeader()))
                .node("toFixed", ConvertNode.toRecords(ORDER))
                .node("csv", OutputNode.queue("CSV.OUT"))
                .node("fixed", OutputNode.queue("FIXED.OUT"))
                .wire("xml", "out", "toCsv").wire("toCsv", "out", "csv")
                .wire("json", "out", "toFixed").wire("toFixed", "out", "fixed")
                .build(), 1);
        fixture.send("XML.IN", "<Orders><Order><id>1</id><name>Ann</name></Order>"
                + "<Order><id>2</id><name>Smith, Bob</name></Order></Orders>", false, null, null);
        fixture.send("JSON.IN", "[{\"name\":\"Ann\",\"qty\":3,\"price\":12.5,\"shipped\":\"2026-12-01\"}]", false,
                null, null);
        assertEquals("id,name\n1,Ann\n2,\"Smith, Bob\"\n", FlowFixture.text(fixture.receiveOne("CSV.OUT")));
        assertEquals("Ann       000003012.5020261201", FlowFixture.text(fixture.receiveOne("FIXED.OUT")));
    }

    @Test
    void aFileIsReadOneCsvRecordPerMessageAndItsBadRecordsGoToFailureWhileTheOthersPass() throws Exception {
        Path in = Files.createDirectories(root.resolve("in"));
        fixture.run(FlowDefinition.builder("file-records")
                .node("in", FileInputNode.directory(in).pattern("*.csv")
                        .records(CsvFormat.withHeader().maxRecordLength(40)).pollInterval(Duration.ofMillis(20)))
                .node("convert", ConvertNode.toXml())
                .node("out", OutputNode.queue("OUT"))
                .node("why", new RecordExceptionList())
                .node("bad", OutputNode.queue("BAD"))
                .wire("in", "out", "convert")
                .wire("convert", "out", "out")
                .wire("in", "failure", "why")
                .wire("why", "out", "bad")
                .build(), 1);
        String file = "id,name\n1,Ann\n2,\"Bob\n3," + "x".repeat(100) + "\n4,Dan\n";
        Path part = Files.writeString(in.resolve("orders.csv.part"), file);
        Files.move(part, in.resolve("orders.csv"), StandardCopyOption.ATOMIC_MOVE);

        List<Message> out = fixture.receive("OUT", 2);
        assertEquals("<Records><Record><id>1</id><name>Ann</name></Record></Records>", FlowFixture.text(out.get(0)));
        assertEquals("<Records><Record><id>4</id><name>Dan</name></Record></Records>", FlowFixture.text(out.get(1)),
                "the records after the bad ones are read: the header applies to every record of the file");
        List<Message> bad = fixture.receive("BAD", 2);
        String quote = bad.get(0).getStringProperty(ExceptionList.PROPERTY);
        // one place for the record, the file's: the record parsed alone is line 1 of its body, which is not named
        assertTrue(quote.endsWith("Record 2 of orders.csv (line 3) does not fit its format: Missing closing quote for "
                + "value (column 7)"), quote);
        String tooLong = bad.get(1).getStringProperty(ExceptionList.PROPERTY);
        assertTrue(tooLong.contains("Record 3 of orders.csv is longer than the limit of 40 bytes"), tooLong);
        assertEquals(40, FlowFixture.text(bad.get(1)).length(), "the line's first bytes, not all of it");
        FileNodesTest.awaitFile(in.resolve("backout/orders.csv"));
    }
}
