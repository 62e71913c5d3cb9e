package org.wharfmq.flow.records;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvParser;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Delimited records through Jackson's CSV data format: settings, round trips and hostile bodies. */
class CsvFormatTest {

    private static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    @Test
    void aHeaderLineNamesTheColumnsAndIsWrittenBack() {
        String body = "id,name,qty\n1,Ann,3\n2,\"Smith, Bob\",10\n";
        ArrayNode records = CsvFormat.withHeader().parse(body);
        assertEquals(2, records.size());
        assertEquals("Ann", records.get(0).get("name").asText());
        assertEquals("Smith, Bob", records.get(1).get("name").asText(), "a quoted delimiter is data");
        assertEquals("10", records.get(1).get("qty").asText());
        assertEquals(body, text(CsvFormat.withHeader().write(records)));
    }

    @Test
    void namedColumnsDelimiterQuoteAndEscapeAreTheFormatsOwn() {
        CsvFormat format = CsvFormat.columns("id", "note").delimiter(';').quote('\'').escape('\\');
        ArrayNode records = format.parse("7;'a;b'\n8;it\\;s\n".getBytes(StandardCharsets.UTF_8));
        assertEquals("a;b", records.get(0).get("note").asText());
        assertEquals("it;s", records.get(1).get("note").asText(), "the escape makes the delimiter literal");
        assertEquals("7", records.get(0).get("id").asText());
        ArrayNode again = format.parse(format.write(records));
        assertEquals(records, again, "written and read back unchanged");
        assertTrue(text(format.write(records)).startsWith("7;"), "no header line without one");
    }

    @Test
    void quotesDoubledInsideQuotesAndLineEndsInsideValuesSurviveTheRoundTrip() {
        String body = "a,b\n\"say \"\"hi\"\"\",\"two\nlines\"\r\n";
        ArrayNode records = CsvFormat.withHeader().parse(body);
        assertEquals("say \"hi\"", records.get(0).get("a").asText());
        assertEquals("two\nlines", records.get(0).get("b").asText());
        assertEquals(records, CsvFormat.withHeader().parse(CsvFormat.withHeader().write(records)));
    }

    @Test
    void anUnterminatedQuoteIsRefusedNamingTheRecordAndItsLine() {
        RecordFormatException e = assertThrows(RecordFormatException.class,
                () -> CsvFormat.withHeader().parse("id,name\n1,Ann\n2,\"Bob\n3,Cy\n"));
        assertTrue(e.getMessage().startsWith("CSV record 2 (line 3) cannot be parsed"), e.getMessage());
        assertTrue(e.getMessage().toLowerCase().contains("quote"), e.getMessage());
    }

    @Test
    void aRecordWithTooFewOrTooManyValuesIsRefusedNamingIt() {
        RecordFormatException few = assertThrows(RecordFormatException.class,
                () -> CsvFormat.columns("a", "b", "c").parse("1,2,3\n4,5\n"));
        assertTrue(few.getMessage().startsWith("CSV record 2 (line 2)"), few.getMessage());
        RecordFormatException many = assertThrows(RecordFormatException.class,
                () -> CsvFormat.withHeader().parse("a,b\n1,2\n3,4\n5,6,7\n"));
        assertTrue(many.getMessage().startsWith("CSV record 3 (line 4)"), many.getMessage());
    }

    /**
     * A record read alone (as the FileInput node reads each record of a file) is line 1 of its body: the fault alone
     * names no line, only the column, so that the reader can name the record's line in the file.
     */
    @Test
    void theFaultOfARecordReadAloneNamesItsColumnAndNoLine() {
        RecordFormatException e = assertThrows(RecordFormatException.class,
                () -> CsvFormat.columns("id", "customer", "total").parse("3,Carl"));
        assertEquals("CSV record 1 (line 1) cannot be parsed: " + e.fault(), e.getMessage());
        assertEquals("Not enough column values: expected 3, found 2 (column 3)", e.fault());
        RecordFormatException spans = assertThrows(RecordFormatException.class,
                () -> CsvFormat.withHeader().parse("id,name\n1,Ann\n2,\"Bob\n3,Cy\n"));
        assertTrue(spans.fault().matches("Missing closing quote .* \\(line 5, column \\d+\\)"), spans.fault());
    }

    /**
     * The records are what Jackson's data binding reads with the format's settings (an object per record, values and
     * their order), and a body it refuses is refused for the same fault: bodies at the edges of the CSV parser.
     */
    @Test
    void theRecordsAreWhatJacksonsDataBindingReads() {
        String[] bodies = {"", "\n\n", "id,name\n", "id,name", " id , name \n1,Ann\n", "id,name\n\n1,Ann\n\n\n2,Bob",
                "id,name\r\n1,Ann\r\n2,\r\n", "a,a\n1,2\n", "id,name\n1,Ann,\n", "id,name\n\"1\",\"A\nB\"\n",
                "id,name\n1\n", "id,name\n1,2,3\n", "id,name\n1,\"Ann\n", ",\n1\n", "id,\n1,2\n", "\uFEFFid,name\n1,2\n",
                "id,name\n1,\"A\"\"B\"\n2,\"C\"x\n"};
        CsvMapper mapper = new CsvMapper();
        ObjectReader withHeader = mapper.readerFor(ObjectNode.class).with(CsvSchema.emptySchema().withHeader())
                .with(CsvParser.Feature.FAIL_ON_MISSING_COLUMNS).with(CsvParser.Feature.SKIP_EMPTY_LINES);
        ObjectReader columns = mapper.readerFor(ObjectNode.class)
                .with(CsvSchema.builder().addColumn("id").addColumn("name").build().withoutHeader())
                .with(CsvParser.Feature.FAIL_ON_MISSING_COLUMNS).with(CsvParser.Feature.SKIP_EMPTY_LINES);
        for (String body : bodies) {
            assertEquals(dataBinding(withHeader, body), parsed(CsvFormat.withHeader(), body), body);
            assertEquals(dataBinding(columns, body), parsed(CsvFormat.columns("id", "name"), body), body);
        }
        RecordFormatException header = assertThrows(RecordFormatException.class,
                () -> CsvFormat.withHeader().parse(",\n1\n"));
        assertTrue(header.getMessage().startsWith("The CSV body cannot be parsed: "), header.getMessage());
    }

    /** The records as JSON, or the parser's fault: what data binding reads. */
    private static String dataBinding(ObjectReader reader, String body) {
        try (MappingIterator<ObjectNode> values = reader.readValues(body)) {
            ArrayNode records = JsonNodeFactory.instance.arrayNode();
            while (values.hasNextValue()) {
                records.add(values.nextValue());
            }
            return records.toString();
        } catch (IOException e) {
            return fault(e);
        }
    }

    /** The records as JSON, or the parser's fault: what the format reads. */
    private static String parsed(CsvFormat format, String body) {
        try {
            return format.parse(body).toString();
        } catch (RecordFormatException e) {
            return e.getCause() == null ? e.getMessage() : fault(e.getCause());
        }
    }

    private static String fault(Throwable e) {
        return e.getClass().getName() + ": " + (e instanceof JacksonException j ? j.getOriginalMessage()
                + " at " + j.getLocation() : e.getMessage());
    }

    @Test
    void aRecordLongerThanTheLimitIsRefusedNamingIt() {
        String body = "a,b\n1,2\n3," + "x".repeat(200) + "\n5,6\n";
        RecordFormatException e = assertThrows(RecordFormatException.class,
                () -> CsvFormat.withHeader().maxRecordLength(100).parse(body));
        assertTrue(e.getMessage().startsWith("CSV record 2 (line 3) is longer than the limit of 100"), e.getMessage());
        assertEquals(3, CsvFormat.withHeader().maxRecordLength(300).parse(body).size());
    }

    @Test
    void aHeaderLineGivesAFormatForSingleRecordLines() {
        CsvFormat line = CsvFormat.withHeader().delimiter('|').withHeaderLine("id|name");
        assertEquals("Ann", line.parse("1|Ann").get(0).get("name").asText());
        assertEquals("1|Ann\n", text(line.write(line.parse("1|Ann"))), "a record line, no header");
    }

    @Test
    void writingAFieldTheColumnsDoNotHaveIsRefusedNamingTheRecord() {
        ArrayNode records = CsvFormat.columns("a").parse("1\n2\n");
        records.addObject().put("a", "3").put("b", "x");
        RecordFormatException e = assertThrows(RecordFormatException.class,
                () -> CsvFormat.columns("a").write(records));
        assertTrue(e.getMessage().startsWith("Record 3 cannot be written as CSV"), e.getMessage());
    }
}
