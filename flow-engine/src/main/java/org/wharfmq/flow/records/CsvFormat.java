package org.wharfmq.flow.records;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SequenceWriter;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.csv.CsvGenerator;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvParser;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Delimited records (CSV and its relatives), parsed and written by Jackson's CSV data format: any delimiter, quote
 * and escape character, the column names from a header line ({@link #withHeader()}) or named here
 * ({@link #columns(String...)}), one record or many per body. Every value is text in the tree.
 *
 * <p>A record with fewer values than columns, one with more, a quote that is never closed and a record longer than
 * {@link #maxRecordLength()} characters are refused, naming the record and its line. Immutable: each setting
 * returns a new format (it keeps the writer it made last, for the next body with the same columns).
 */
public final class CsvFormat implements RecordFormat {

    /** The longest record accepted by default: {@value} characters. */
    public static final int DEFAULT_MAX_RECORD_LENGTH = 64 * 1024;

    /** Jackson's mapper is thread-safe once configured; one for every format. */
    private static final CsvMapper MAPPER = new CsvMapper();

    private final List<String> columns;
    private final boolean header;
    private final char delimiter;
    private final int quote;
    private final int escape;
    private final String lineSeparator;
    private final Charset charset;
    private final int maxRecordLength;
    private final ObjectReader reader;
    /** The writer {@link #write} made last, kept for the next body with the same columns; any thread may replace it. */
    private volatile ColumnsWriter lastWriter;

    private CsvFormat(List<String> columns, boolean header, char delimiter, int quote, int escape,
                      String lineSeparator, Charset charset, int maxRecordLength) {
        this.columns = columns;
        this.header = header;
        this.delimiter = delimiter;
        this.quote = quote;
        this.escape = escape;
        this.lineSeparator = lineSeparator;
        this.charset = charset;
        this.maxRecordLength = maxRecordLength;
        if (columns.stream().distinct().count() != columns.size()) {
            throw new IllegalArgumentException("A CSV format's column names must differ: " + columns + ".");
        }
        if (quote == delimiter || escape == delimiter) {
            throw new IllegalArgumentException("A CSV format's quote and escape characters must differ from its "
                    + "delimiter '" + delimiter + "'.");
        }
        if (maxRecordLength < 1) {
            throw new IllegalArgumentException("maxRecordLength must be at least 1, was " + maxRecordLength + ".");
        }
        this.reader = MAPPER.readerFor(ObjectNode.class).with(schema(columns))
                .with(CsvParser.Feature.FAIL_ON_MISSING_COLUMNS).with(CsvParser.Feature.SKIP_EMPTY_LINES);
    }

    /** Records whose first line names the columns; written back with that line first. Comma, double quote. */
    public static CsvFormat withHeader() {
        return new CsvFormat(List.of(), true, ',', '"', -1, "\n", StandardCharsets.UTF_8, DEFAULT_MAX_RECORD_LENGTH);
    }

    /** Records without a header line, their values named {@code names} in order. Comma, double quote. */
    public static CsvFormat columns(String... names) {
        if (names.length == 0) {
            throw new IllegalArgumentException("A CSV format without a header line needs the columns' names.");
        }
        return new CsvFormat(List.of(names), false, ',', '"', -1, "\n", StandardCharsets.UTF_8,
                DEFAULT_MAX_RECORD_LENGTH);
    }

    /** The character between values (default {@code ,}), e.g. {@code ;}, {@code |} or a tab. */
    public CsvFormat delimiter(char delimiter) {
        return new CsvFormat(columns, header, delimiter, quote, escape, lineSeparator, charset, maxRecordLength);
    }

    /** The character that quotes a value holding the delimiter, a quote or a line end (default {@code "}). */
    public CsvFormat quote(char quote) {
        return new CsvFormat(columns, header, delimiter, quote, escape, lineSeparator, charset, maxRecordLength);
    }

    /** No quoting: every delimiter separates values, and a value holding one cannot be written. */
    public CsvFormat noQuote() {
        return new CsvFormat(columns, header, delimiter, -1, escape, lineSeparator, charset, maxRecordLength);
    }

    /** A character that makes the next one literal (default none: a quote inside quotes is doubled). */
    public CsvFormat escape(char escape) {
        return new CsvFormat(columns, header, delimiter, quote, escape, lineSeparator, charset, maxRecordLength);
    }

    /** What ends each record written (default {@code \n}); either line end is read. */
    public CsvFormat lineSeparator(String separator) {
        return new CsvFormat(columns, header, delimiter, quote, escape, separator, charset, maxRecordLength);
    }

    /** The character set of a body of bytes (default UTF-8). */
    public CsvFormat charset(Charset charset) {
        return new CsvFormat(columns, header, delimiter, quote, escape, lineSeparator, charset, maxRecordLength);
    }

    /** The longest record accepted, in characters (default {@value #DEFAULT_MAX_RECORD_LENGTH}). */
    public CsvFormat maxRecordLength(int characters) {
        return new CsvFormat(columns, header, delimiter, quote, escape, lineSeparator, charset, characters);
    }

    /** Whether the first line names the columns. */
    public boolean hasHeader() {
        return header;
    }

    /** The columns named by {@link #columns(String...)} (empty with a header line). */
    public List<String> columnNames() {
        return columns;
    }

    /**
     * This format with the columns named in {@code headerLine} and no header line: the file input node reads a
     * file's header once and parses each record line with the result.
     *
     * @throws RecordFormatException when the header line cannot be parsed
     */
    public CsvFormat withHeaderLine(String headerLine) {
        List<String> names = new ArrayList<>();
        try (MappingIterator<List<String>> values = MAPPER.readerForListOf(String.class)
                .with(schema(List.of()).withoutHeader()).with(CsvParser.Feature.WRAP_AS_ARRAY)
                .readValues(headerLine)) {
            if (values.hasNext()) {
                names.addAll(values.next());
            }
        } catch (IOException | RuntimeException e) {
            throw new RecordFormatException("The CSV header line cannot be parsed: " + reason(e), e);
        }
        if (names.isEmpty()) {
            throw new RecordFormatException("The CSV header line is empty: it must name the columns.");
        }
        return new CsvFormat(List.copyOf(names), false, delimiter, quote, escape, lineSeparator, charset,
                maxRecordLength);
    }

    @Override
    public Charset charset() {
        return charset;
    }

    @Override
    public int maxRecordLength() {
        return maxRecordLength;
    }

    @Override
    public ArrayNode parse(byte[] body) {
        return parse(new String(body, charset));
    }

    /**
     * The records of {@code body}, read from the CSV parser's tokens into one object of text values per record: what
     * Jackson's data binding makes of them (an {@code ObjectNode} per record, a later value of a repeated column
     * replacing the earlier one), without its context, iterator and deserializer per body. The header line (with
     * {@link #withHeader()}) is read by the first token, so a fault there is the body's, not a record's.
     */
    @Override
    public ArrayNode parse(String body) {
        ArrayNode records = JsonNodeFactory.instance.arrayNode();
        int record = 0;
        int line = header ? 2 : 1;
        try (JsonParser parser = reader.createParser(body)) {
            JsonToken token = parser.nextToken(); // the header line, if any, and the first record's start
            long start = 0;
            while (true) {
                record++;
                try {
                    if (token == null) {
                        token = parser.nextToken();
                        if (token == null || token == JsonToken.END_ARRAY) {
                            break;
                        }
                    }
                    JsonLocation at = parser.currentLocation(); // where this record starts
                    line = at.getLineNr();
                    start = at.getCharOffset();
                    records.add(record(parser, token));
                    token = null;
                } catch (JacksonException e) {
                    String fault = reason(e, line);
                    throw new RecordFormatException("CSV record " + record + " (line " + line + ") cannot be parsed: "
                            + fault, fault, e);
                }
                JsonLocation end = parser.currentLocation();
                if (end.getCharOffset() - start > maxRecordLength) {
                    String fault = "longer than the limit of " + maxRecordLength + " characters: raise the format's "
                            + "maxRecordLength if such records are expected.";
                    throw new RecordFormatException("CSV record " + record + " (line " + line + ") is " + fault,
                            "It is " + fault, null);
                }
                line = end.getLineNr();
            }
        } catch (IOException e) {
            throw new RecordFormatException("The CSV body cannot be parsed: " + reason(e), e);
        }
        return records;
    }

    /** The record whose first token, {@code START_OBJECT}, the parser is at: its values, up to its END_OBJECT. */
    private static ObjectNode record(JsonParser parser, JsonToken first) throws IOException {
        if (first != JsonToken.START_OBJECT) {
            throw new IllegalStateException("The CSV parser began a record with " + first + ", not an object.");
        }
        JsonNodeFactory nodes = JsonNodeFactory.instance;
        ObjectNode values = nodes.objectNode();
        for (String name = parser.nextFieldName(); name != null; name = parser.nextFieldName()) {
            JsonToken value = parser.nextToken();
            if (value == JsonToken.VALUE_STRING) {
                values.set(name, nodes.textNode(parser.getText()));
            } else if (value == JsonToken.VALUE_NULL) {
                values.set(name, nodes.nullNode());
            } else {
                throw new IllegalStateException("The CSV parser gave column '" + name + "' a " + value
                        + ", not a text value.");
            }
        }
        return values;
    }

    @Override
    public byte[] write(JsonNode records) {
        ArrayNode array = RecordTree.array(records);
        List<String> names = columns.isEmpty() ? firstRecordsNames(array) : columns;
        ByteArrayOutputStream out = new ByteArrayOutputStream(64 + array.size() * 32);
        int record = 0;
        try (SequenceWriter writer = writerFor(names).writeValues(out)) {
            for (JsonNode value : array) {
                record++;
                writer.write(RecordTree.record(value, record));
            }
        } catch (JacksonException e) {
            throw new RecordFormatException("Record " + record + " cannot be written as CSV: " + reason(e), e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return charset.equals(StandardCharsets.UTF_8) ? out.toByteArray()
                : out.toString(StandardCharsets.UTF_8).getBytes(charset);
    }

    /**
     * The writer of records with columns {@code names}: the last one made, when the names are the same (a format with
     * named columns always, with a header line as long as the bodies' first records name the same fields), else a new
     * one, kept as the last.
     */
    private ObjectWriter writerFor(List<String> names) {
        ColumnsWriter last = lastWriter;
        if (last != null && last.names().equals(names)) {
            return last.writer();
        }
        ObjectWriter writer = MAPPER.writer(schema(names).withUseHeader(header))
                .with(CsvGenerator.Feature.STRICT_CHECK_FOR_QUOTING);
        lastWriter = new ColumnsWriter(List.copyOf(names), writer);
        return writer;
    }

    /** A writer of records with these columns (Jackson's writers are immutable and thread-safe). */
    private record ColumnsWriter(List<String> names, ObjectWriter writer) {
    }

    private static List<String> firstRecordsNames(ArrayNode records) {
        if (records.isEmpty()) {
            return List.of();
        }
        List<String> names = new ArrayList<>();
        for (Iterator<String> it = RecordTree.record(records.get(0), 1).fieldNames(); it.hasNext(); ) {
            names.add(it.next());
        }
        return names;
    }

    private CsvSchema schema(List<String> names) {
        CsvSchema.Builder builder = CsvSchema.builder();
        names.forEach(builder::addColumn);
        CsvSchema schema = builder.build().withColumnSeparator(delimiter).withLineSeparator(lineSeparator);
        schema = quote < 0 ? schema.withoutQuoteChar() : schema.withQuoteChar((char) quote);
        schema = escape < 0 ? schema.withoutEscapeChar() : schema.withEscapeChar((char) escape);
        return names.isEmpty() && header ? schema.withHeader() : schema.withoutHeader();
    }

    private static String reason(Exception e) {
        return reason(e, -1);
    }

    /**
     * The parser's reason, with where it found the fault: its column alone when that is on the record's first line
     * {@code recordLine} (a record read alone, as the FileInput node reads each, is line 1 of its body, not of its
     * file), else its line and column.
     */
    private static String reason(Exception e, int recordLine) {
        if (e instanceof JacksonException j) {
            JsonLocation at = j.getLocation();
            if (at == null || at.getLineNr() < 1) {
                return j.getOriginalMessage();
            }
            return j.getOriginalMessage() + (at.getLineNr() == recordLine ? " (column " + at.getColumnNr() + ")"
                    : " (line " + at.getLineNr() + ", column " + at.getColumnNr() + ")");
        }
        return String.valueOf(e.getMessage());
    }

    @Override
    public String toString() {
        Map<String, Object> settings = new LinkedHashMap<>();
        settings.put(header ? "header" : "columns", header ? "first line" : columns);
        settings.put("delimiter", String.valueOf(delimiter));
        settings.put("quote", quote < 0 ? "none" : String.valueOf((char) quote));
        settings.put("escape", escape < 0 ? "none" : String.valueOf((char) escape));
        return "CSV" + settings;
    }
}
