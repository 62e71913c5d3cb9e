package org.wharfmq.flow.records;

import com.fasterxml.jackson.databind.node.ArrayNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Fixed-length records described by a model: types, padding, repeating records, the model in YAML, and refusals. */
class FixedFormatTest {

    /** 30 bytes: name 0-10, qty 10-16, price 16-22, shipped 22-30. */
    private static final FixedFormat ORDER = FixedFormat.builder(30)
            .string("name", 0, 10)
            .integer("qty", 10, 6)
            .decimal("price", 16, 6, 2)
            .date("shipped", 22, 8, "yyyyMMdd")
            .build();

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** {@code text} with spaces on its right (or left) to make {@code length} bytes of UTF-8. */
    private static String padded(String text, int length, boolean left) {
        String spaces = " ".repeat(length - bytes(text).length);
        return left ? spaces + text : text + spaces;
    }

    @Test
    void repeatingRecordsParseIntoTypedValuesAndWriteBackByteForByte() {
        String body = "Ann       000003012.5020261201" + "Bob Smith -00012000.0520260101";
        ArrayNode records = ORDER.parse(bytes(body));
        assertEquals(2, records.size());
        assertEquals("Ann", records.get(0).get("name").asText(), "right padding removed");
        assertEquals(3, records.get(0).get("qty").asLong());
        assertEquals(new BigDecimal("12.50"), records.get(0).get("price").decimalValue());
        assertEquals("2026-12-01", records.get(0).get("shipped").asText(), "dates are ISO in the tree");
        assertEquals(-12, records.get(1).get("qty").asLong());
        assertEquals(body, new String(ORDER.write(records), StandardCharsets.UTF_8));
    }

    @Test
    void paddingAndJustificationAreTheFieldsOwn() {
        FixedFormat format = FixedFormat.builder(8)
                .field(FixedField.of("code", 0, 4, FixedField.Type.STRING).justify(FixedField.Justify.RIGHT)
                        .padding('*'))
                .field(FixedField.of("n", 4, 4, FixedField.Type.INT).padding(' '))
                .build();
        ArrayNode records = format.parse(bytes("**AB  42"));
        assertEquals("AB", records.get(0).get("code").asText());
        assertEquals(42, records.get(0).get("n").asInt());
        assertEquals("**AB  42", new String(format.write(records), StandardCharsets.UTF_8));
    }

    @Test
    void numbersAndPaddedTextReadAsTheirTextSays() {
        // the fields read from the bytes and those read from their text give what the text says
        FixedFormat format = FixedFormat.builder(48)
                .string("s", 0, 8)
                .field(FixedField.of("r", 8, 8, FixedField.Type.STRING).justify(FixedField.Justify.RIGHT))
                .integer("i", 16, 20)
                .decimal("d", 36, 12, -1)
                .build();
        // raw text of s, r, i, d (each padded with spaces on the right, r on the left, to its bytes), then the values
        String[][] cases = {
                {"a b", "x  y", "+0000000000000000005", "  1e3", "a b", "x  y", "5", "1E+3"},
                {"\u00e9t\u00e9", "\u20ac", "  -42", "-000012.500", "\u00e9t\u00e9", "\u20ac", "-42", "-12.500"},
                {"", "", "9223372036854775807", "\t1.5\t", "", "", "9223372036854775807", "1.5"},
                {"x", "y", " \u0664\u0662", "\u0661.5", "x", "y", "42", "1.5"},
        };
        for (String[] c : cases) {
            byte[] body = bytes(padded(c[0], 8, false) + padded(c[1], 8, true) + padded(c[2], 20, false)
                    + padded(c[3], 12, false));
            ArrayNode records = format.parse(body);
            assertEquals(c[4], records.get(0).get("s").asText(), c[0]);
            assertEquals(c[5], records.get(0).get("r").asText(), c[1]);
            assertEquals(Long.parseLong(c[6]), records.get(0).get("i").longValue(), c[2]);
            assertTrue(records.get(0).get("i").isLong(), c[2]);
            assertEquals(new BigDecimal(c[7]), records.get(0).get("d").decimalValue(), c[3]);
        }
        RecordFormatException tooLarge = assertThrows(RecordFormatException.class,
                () -> format.parse(bytes("        " + "        " + "9223372036854775808 " + "1           ")));
        assertEquals("Fixed-length record 1, field 'i' (offset 16, length 20): '9223372036854775808 ' is not a whole "
                + "number.", tooLarge.getMessage());
        RecordFormatException signs = assertThrows(RecordFormatException.class,
                () -> format.parse(bytes("        " + "        " + "--1                 " + "1           ")));
        assertTrue(signs.getMessage().endsWith("'--1                 ' is not a whole number."), signs.getMessage());
        RecordFormatException decimal = assertThrows(RecordFormatException.class,
                () -> format.parse(bytes("        " + "        " + "1                   " + "1.2.3       ")));
        assertEquals("Fixed-length record 1, field 'd' (offset 36, length 12): '1.2.3       ' is not a decimal "
                + "number.", decimal.getMessage());
    }

    /**
     * A plain decimal (a sign or none, up to 18 digits, a point or none) is read from the field's bytes: the value is
     * what {@code new BigDecimal} makes of its text, the same unscaled value and scale; anything else is left to it.
     */
    @Test
    void aPlainDecimalReadFromItsBytesIsWhatBigDecimalMakesOfItsText() {
        String[] plain = {"0", "-0", "+0.00", "5.", ".5", "-.5", "000012.500", "-000000.05", "123456789012345678",
                "12345678901234567.8", ".000000000000000001"};
        for (String text : plain) {
            byte[] bytes = bytes("  " + text + "  ");
            BigDecimal read = FixedFormat.plainDecimal(bytes, 2, bytes.length - 2);
            assertEquals(new BigDecimal(text), read, text); // equals compares the scale too
        }
        String[] others = {"1234567890123456789", "1e3", "1.2.3", ".", "-", "+", "", "1 2", "--1", "1-", "0x1"};
        for (String text : others) {
            assertEquals(null, FixedFormat.plainDecimal(bytes(text), 0, bytes(text).length), text);
        }
        FixedFormat format = FixedFormat.builder(24).decimal("d", 0, 24, -1).build();
        for (String text : new String[] {"+.5", "5.", "-0.00", "1234567890123456789", "00001.10", "-1.5E-3"}) {
            assertEquals(new BigDecimal(text), format.parse(bytes(padded(text, 24, true))).get(0).get("d")
                    .decimalValue(), text);
        }
    }

    @Test
    void aRecordShorterThanTheModelIsRefusedNamingTheRecordOffsetAndLength() {
        RecordFormatException e = assertThrows(RecordFormatException.class,
                () -> ORDER.parse(bytes("Ann       000003012.5020261201" + "Bob Smith -00012")));
        assertEquals("Fixed-length record 2 (at byte 30) is 16 bytes, shorter than the model's record length of 30 "
                + "bytes: field 'price' (offset 16, length 6) is cut.", e.getMessage());
        assertEquals("It is 16 bytes, shorter than the model's record length of 30 bytes: field 'price' (offset 16, "
                + "length 6) is cut.", e.fault(), "the fault without its place, for a reader that names the place");
    }

    @Test
    void separatedRecordsRefuseOneLongerOrShorterThanTheModel() {
        FixedFormat lines = FixedFormat.builder(4).integer("n", 0, 4).recordSeparator("\n").build();
        assertEquals(3, lines.parse(bytes("0001\n0002\n0003\n")).size());
        assertEquals("0001\n0002", new String(lines.write(lines.parse(bytes("0001\n0002"))), StandardCharsets.UTF_8));
        RecordFormatException longer = assertThrows(RecordFormatException.class,
                () -> lines.parse(bytes("0001\n00002\n0003")));
        assertTrue(longer.getMessage().startsWith("Fixed-length record 2 (at byte 5) is longer than the model's "
                + "record length of 4 bytes"), longer.getMessage());
        RecordFormatException shorter = assertThrows(RecordFormatException.class,
                () -> lines.parse(bytes("0001\n002\n0003")));
        assertTrue(shorter.getMessage().startsWith("Fixed-length record 2 (at byte 5) is 3 bytes, shorter"),
                shorter.getMessage());
    }

    @Test
    void aFieldWhoseTextIsNotOfItsTypeIsRefusedNamingRecordFieldOffsetAndLength() {
        RecordFormatException e = assertThrows(RecordFormatException.class,
                () -> ORDER.parse(bytes("Ann       00x003012.5020261201")));
        assertEquals("Fixed-length record 1, field 'qty' (offset 10, length 6): '00x003' is not a whole number.",
                e.getMessage());
        assertEquals("Field 'qty' (offset 10, length 6): '00x003' is not a whole number.", e.fault());
        RecordFormatException date = assertThrows(RecordFormatException.class,
                () -> ORDER.parse(bytes("Ann       000003012.5020261341")));
        assertTrue(date.getMessage().startsWith("Fixed-length record 1, field 'shipped' (offset 22, length 8)"),
                date.getMessage());
    }

    @Test
    void aValueTooLongForItsFieldOrAnUnknownFieldIsRefusedOnWrite() {
        ArrayNode records = ORDER.parse(bytes("Ann       000003012.5020261201"));
        ((com.fasterxml.jackson.databind.node.ObjectNode) records.get(0)).put("name", "Annabel Lee-Smith");
        RecordFormatException e = assertThrows(RecordFormatException.class, () -> ORDER.write(records));
        assertEquals("Fixed-length record 1, field 'name' (offset 0, length 10): the value 'Annabel Lee-Smith' is 17 "
                + "bytes, longer than the field.", e.getMessage());
        ((com.fasterxml.jackson.databind.node.ObjectNode) records.get(0)).put("name", "Ann").put("colour", "red");
        assertTrue(assertThrows(RecordFormatException.class, () -> ORDER.write(records)).getMessage()
                .startsWith("Record 1 has a field 'colour' that the fixed-length model does not have"));
    }

    @Test
    void aNumberOrDateWithoutValueIsWrittenAsSpacesAndReadAsNull() {
        ArrayNode records = ORDER.parse(bytes("Ann       000003012.5020261201"));
        ((com.fasterxml.jackson.databind.node.ObjectNode) records.get(0)).put("qty", "").putNull("shipped");
        String written = new String(ORDER.write(records), StandardCharsets.UTF_8);
        assertEquals("Ann             012.50        ", written, "an empty element of XML is no value");
        assertTrue(ORDER.parse(bytes(written)).get(0).get("qty").isNull());
    }

    @Test
    void aModelOverlappingOrOutsideItsRecordIsRefusedWhenBuilt() {
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> FixedFormat.builder(10).string("a", 0, 6).string("b", 5, 5).build()).getMessage()
                .contains("overlap"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> FixedFormat.builder(10).string("a", 6, 6).build()).getMessage()
                .contains("ends after the record's 10 bytes"));
    }

    @Test
    void theModelReadFromYamlIsTheJavaOne(@TempDir Path dir) throws IOException {
        Path yaml = Files.writeString(dir.resolve("order.yaml"), """
                recordLength: 30
                fields:
                  - {name: name, offset: 0, length: 10, type: string}
                  - {name: qty, offset: 10, length: 6, type: int}
                  - {name: price, offset: 16, length: 6, type: decimal, scale: 2}
                  - {name: shipped, offset: 22, length: 8, type: date, pattern: yyyyMMdd}
                """);
        FixedFormat format = FixedFormat.fromYaml(yaml);
        byte[] body = bytes("Ann       000003012.5020261201");
        assertEquals(ORDER.parse(body), format.parse(body));
        Path bad = Files.writeString(dir.resolve("bad.yaml"), "recordLength: 4\nfields:\n  - {name: a, offset: 0, "
                + "length: 4, typ: int}\n");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> FixedFormat.fromYaml(bad)).getMessage()
                .contains("fields[0]: unknown key 'typ'"));
    }
}
