package org.wharfmq.flow;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.wharfmq.flow.node.InputNode;
import org.wharfmq.flow.node.OutputNode;
import org.wharfmq.flow.records.CsvFormat;
import org.wharfmq.flow.records.FixedFormat;
import org.wharfmq.flow.records.RecordFormatException;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The RECORDS domain in the message tree: parsed once, copied on write, converted to and from XML and JSON. */
class RecordsDomainTest {

    private static final String CSV = "id,name\n1,Ann\n2,Bob\n";

    private static FlowMessage csvMessage() {
        return FlowMessage.ofText(Domain.BLOB, CSV).parseAs(CsvFormat.withHeader());
    }

    @Test
    void theBodyIsParsedOnceForEveryCopyAndLeavesUnchangedAsItCame() {
        FlowMessage message = csvMessage();
        assertEquals(Domain.RECORDS, message.domain());
        MessageAssembly input = MessageAssembly.of(message, Folder.empty("Environment"));
        input.freeze();
        MessageAssembly copy = input.copy();
        assertSame(input.message().records(), copy.message().records());
        assertEquals(1, message.parseCount());
        assertEquals(CSV, copy.message().bodyText(), "an unchanged body is the text that arrived");
        assertFalse(copy.message().isBodyChanged());
    }

    @Test
    void aChangedCopyIsWrittenWithTheFormatAndTheInputKeepsItsRecords() {
        MessageAssembly input = MessageAssembly.of(csvMessage(), Folder.empty("Environment"));
        input.freeze();
        MessageAssembly copy = input.copy();
        ((ObjectNode) copy.message().recordsForUpdate().get(1)).put("name", "Bob, Jr.");
        assertEquals("id,name\n1,Ann\n2,\"Bob, Jr.\"\n", copy.message().bodyText());
        assertEquals("Bob", input.message().records().get(1).get("name").asText());
        assertThrows(IllegalStateException.class, () -> input.message().recordsForUpdate(), "the input is read-only");
    }

    @Test
    void recordsBecomeXmlAndJsonAndComeBackFromThem() {
        FlowMessage message = csvMessage();
        ArrayNode records = message.records();
        FlowMessage xml = csvMessage().setXml(RecordConversions.toXml(records, "Orders", "Order"));
        assertEquals(Domain.XML, xml.domain());
        assertEquals("<Orders><Order><id>1</id><name>Ann</name></Order><Order><id>2</id><name>Bob</name></Order>"
                + "</Orders>", xml.bodyText());
        assertEquals("Bob", XPathQuery.compile("/Orders/Order[2]/name").string(xml));
        FlowMessage backFromXml = FlowMessage.ofText(Domain.XML, xml.bodyText());
        assertEquals(records, RecordConversions.records(backFromXml));

        FlowMessage json = csvMessage().setJson(records);
        assertEquals("[{\"id\":\"1\",\"name\":\"Ann\"},{\"id\":\"2\",\"name\":\"Bob\"}]", json.bodyText());
        FlowMessage backFromJson = FlowMessage.ofText(Domain.JSON, json.bodyText());
        assertEquals(CSV, new String(CsvFormat.withHeader().write(RecordConversions.records(backFromJson)),
                StandardCharsets.UTF_8));
    }

    @Test
    void jsonBecomesFixedLengthRecords() {
        FixedFormat model = FixedFormat.builder(12).string("name", 0, 6).decimal("total", 6, 6, 2).build();
        FlowMessage json = FlowMessage.ofText(Domain.JSON, "[{\"name\":\"Ann\",\"total\":3.5},{\"name\":\"Bob\","
                + "\"total\":12}]");
        FlowMessage fixed = FlowMessage.ofText(Domain.JSON, "").setRecords(model, RecordConversions.records(json));
        assertEquals(Domain.RECORDS, fixed.domain());
        assertEquals("Ann   003.50Bob   012.00", fixed.bodyText());
    }

    @Test
    void aFieldNameThatIsNoXmlNameIsRefusedNamingIt() {
        ArrayNode records = FlowMessage.ofText(Domain.BLOB, "order id\n1\n").parseAs(CsvFormat.withHeader()).records();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> RecordConversions.toXml(records, "Records", "Record"));
        assertTrue(e.getMessage().startsWith("'order id' (field of record 1) is not an XML element name"),
                e.getMessage());
    }

    @Test
    void aBodyThatDoesNotFitItsFormatFailsWhenRead() {
        FlowMessage message = FlowMessage.ofText(Domain.BLOB, "a,b\n1,\"2\n").parseAs(CsvFormat.withHeader());
        RecordFormatException e = assertThrows(RecordFormatException.class, message::records);
        assertTrue(e.getMessage().startsWith("CSV record 1 (line 2)"), e.getMessage());
    }

    @Test
    void anInputInTheRecordsDomainNeedsAFormat() {
        FlowValidationException e = assertThrows(FlowValidationException.class, () -> FlowDefinition.builder("f")
                .node("in", InputNode.queue("IN").domain(Domain.RECORDS))
                .node("out", OutputNode.queue("OUT"))
                .wire("in", "out", "out")
                .build());
        assertTrue(e.getMessage().contains("needs the records' layout: records(format)"), e.getMessage());
        FlowDefinition.builder("g")
                .node("in", InputNode.queue("IN").records(CsvFormat.columns("a")))
                .node("out", OutputNode.queue("OUT"))
                .wire("in", "out", "out")
                .build();
    }
}
