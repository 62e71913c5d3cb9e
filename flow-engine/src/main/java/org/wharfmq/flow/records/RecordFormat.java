package org.wharfmq.flow.records;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;

import java.nio.charset.Charset;

/**
 * How a body of records is laid out: delimited ({@link CsvFormat}) or fixed-length ({@link FixedFormat}). The
 * records domain parses a body into a tree of records with it and writes a tree back with it.
 *
 * <p>The tree is a Jackson {@link ArrayNode}, one {@code ObjectNode} per record in the body's order, field name to
 * value; a body of one record is an array of one. A format is immutable and thread-safe: one object serves every
 * instance of a flow.
 */
public sealed interface RecordFormat permits CsvFormat, FixedFormat {

    /**
     * The records of {@code body}.
     *
     * @throws RecordFormatException naming the record (and line, field, offset) that does not fit the format
     */
    ArrayNode parse(byte[] body);

    /** As {@link #parse(byte[])}, for a text body. */
    ArrayNode parse(String body);

    /**
     * {@code records} (an array of objects, or one object) written in this format.
     *
     * @throws RecordFormatException naming the record and field that cannot be written
     */
    byte[] write(JsonNode records);

    /** The character set of the records' text. */
    Charset charset();

    /**
     * The longest record (a line of a delimited body, a fixed record) this format accepts, in bytes or characters:
     * a longer one is refused with its number, and the file input node reads no further into it.
     */
    int maxRecordLength();
}
