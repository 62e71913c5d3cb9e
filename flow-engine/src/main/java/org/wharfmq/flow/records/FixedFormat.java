package org.wharfmq.flow.records;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.net.URL;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Fixed-length records (COBOL copybooks, C structures: MQSeries Integrator's Custom Wire Format) described by a
 * small model: the record's length in bytes, its fields ({@link FixedField}: name, offset, length, type, padding and
 * justification) and what separates records, if anything. A body is one record or many, one after the other.
 *
 * <p>Build one in Java ({@link #builder(int)}) or read it from YAML ({@link #fromYaml(URL)}). A record shorter than
 * the model, one longer (when records are separated), a field whose text is not of its type and a value too long
 * for its field are refused, naming the record, the field, its offset and its length. Immutable and thread-safe.
 */
public final class FixedFormat implements RecordFormat {

    private static final Set<String> MODEL_KEYS = Set.of("recordLength", "recordSeparator", "charset", "fields");
    private static final Set<String> FIELD_KEYS = Set.of("name", "offset", "length", "type", "padding", "justify",
            "scale", "pattern");

    private final int recordLength;
    private final List<FixedField> fields;
    private final Map<String, FixedField> byName;
    private final DateTimeFormatter[] dates;
    /** Each field's padding byte as written: its character's, or a space when that takes more than one byte. */
    private final byte[] pads;
    private final byte[] separator;
    private final String separatorText;
    private final Charset charset;
    /** Whether the character set writes ASCII as single ASCII bytes that no other character's bytes contain. */
    private final boolean asciiCompatible;

    private FixedFormat(int recordLength, List<FixedField> fields, String separator, Charset charset) {
        this.recordLength = recordLength;
        this.fields = List.copyOf(fields);
        this.separatorText = separator;
        this.separator = separator.getBytes(charset);
        this.charset = charset;
        this.asciiCompatible = charset.equals(StandardCharsets.UTF_8) || charset.equals(StandardCharsets.US_ASCII)
                || charset.equals(StandardCharsets.ISO_8859_1);
        this.byName = new HashMap<>();
        this.dates = new DateTimeFormatter[fields.size()];
        this.pads = new byte[fields.size()];
        if (recordLength < 1) {
            throw new IllegalArgumentException("A fixed-length model's record length must be at least 1, was "
                    + recordLength + ".");
        }
        if (fields.isEmpty()) {
            throw new IllegalArgumentException("A fixed-length model needs at least one field.");
        }
        List<FixedField> sorted = new ArrayList<>(fields);
        sorted.sort(Comparator.comparingInt(FixedField::offset));
        for (int i = 0; i < sorted.size(); i++) {
            FixedField f = sorted.get(i);
            if (f.end() > recordLength) {
                throw new IllegalArgumentException("Field '" + f.name() + "' (offset " + f.offset() + ", length "
                        + f.length() + ") ends after the record's " + recordLength + " bytes.");
            }
            if (i > 0 && sorted.get(i - 1).end() > f.offset()) {
                throw new IllegalArgumentException("Fields '" + sorted.get(i - 1).name() + "' and '" + f.name()
                        + "' overlap (at offset " + f.offset() + ").");
            }
            if (byName.put(f.name(), f) != null) {
                throw new IllegalArgumentException("Two fields are named '" + f.name() + "'.");
            }
        }
        for (int i = 0; i < this.fields.size(); i++) {
            FixedField f = this.fields.get(i);
            byte[] pad = String.valueOf(f.padding()).getBytes(charset);
            pads[i] = pad.length == 1 ? pad[0] : (byte) ' ';
            if (f.type() == FixedField.Type.DATE) {
                try {
                    dates[i] = DateTimeFormatter.ofPattern(f.pattern(), Locale.ROOT);
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("Field '" + f.name() + "': bad date pattern '" + f.pattern()
                            + "': " + e.getMessage(), e);
                }
            }
        }
    }

    /** A model of records {@code recordLength} bytes long; add the fields, then {@link Builder#build()}. */
    public static Builder builder(int recordLength) {
        return new Builder(recordLength);
    }

    /** The model in a YAML resource (e.g. {@code getClass().getResource("order.yaml")}): see docs/flows.md. */
    public static FixedFormat fromYaml(URL url) {
        try (InputStream in = url.openStream()) {
            return fromYaml(new YAMLMapper().readTree(in), url.toString());
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the fixed-length model " + url + ": " + e.getMessage(), e);
        }
    }

    /** The model in a YAML file. */
    public static FixedFormat fromYaml(Path path) {
        try (InputStream in = Files.newInputStream(path)) {
            return fromYaml(new YAMLMapper().readTree(in), path.toString());
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the fixed-length model " + path + ": " + e.getMessage(), e);
        }
    }

    private static FixedFormat fromYaml(JsonNode model, String source) {
        if (model == null || !model.isObject()) {
            throw new IllegalArgumentException(source + ": a fixed-length model is a map with recordLength and fields.");
        }
        checkKeys(model, MODEL_KEYS, source);
        if (!model.path("recordLength").canConvertToInt() || !model.path("fields").isArray()) {
            throw new IllegalArgumentException(source + ": a fixed-length model needs recordLength (a number) and "
                    + "fields (a list).");
        }
        Builder builder = builder(model.get("recordLength").asInt())
                .recordSeparator(model.path("recordSeparator").asText(""))
                .charset(Charset.forName(model.path("charset").asText("UTF-8")));
        int index = 0;
        for (JsonNode f : model.get("fields")) {
            String where = source + ": fields[" + index++ + "]";
            checkKeys(f, FIELD_KEYS, where);
            FixedField.Type type;
            try {
                type = FixedField.Type.valueOf(f.path("type").asText("string").toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(where + ".type: '" + f.path("type").asText()
                        + "' is not string, int, decimal or date.");
            }
            if (!f.path("offset").canConvertToInt() || !f.path("length").canConvertToInt()) {
                throw new IllegalArgumentException(where + ": offset and length are required numbers.");
            }
            FixedField field = FixedField.of(f.path("name").asText(null), f.get("offset").asInt(),
                    f.get("length").asInt(), type);
            if (f.has("padding")) {
                String padding = f.get("padding").asText();
                if (padding.length() != 1) {
                    throw new IllegalArgumentException(where + ".padding: one character, was '" + padding + "'.");
                }
                field = field.padding(padding.charAt(0));
            }
            if (f.has("justify")) {
                field = field.justify(FixedField.Justify.valueOf(f.get("justify").asText().toUpperCase(Locale.ROOT)));
            }
            if (f.has("scale")) {
                field = field.scale(f.get("scale").asInt());
            }
            if (f.has("pattern")) {
                field = field.pattern(f.get("pattern").asText());
            }
            builder.field(field);
        }
        return builder.build();
    }

    private static void checkKeys(JsonNode node, Set<String> known, String where) {
        for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!known.contains(name)) {
                throw new IllegalArgumentException(where + ": unknown key '" + name + "'; the keys are " + known + ".");
            }
        }
    }

    /** The record's length in bytes, separator not counted. */
    public int recordLength() {
        return recordLength;
    }

    /** What follows each record ({@code ""}: records follow one another directly). */
    public String recordSeparator() {
        return separatorText;
    }

    /** The fields, in the order they were given. */
    public List<FixedField> fields() {
        return fields;
    }

    @Override
    public Charset charset() {
        return charset;
    }

    @Override
    public int maxRecordLength() {
        return recordLength;
    }

    @Override
    public ArrayNode parse(String body) {
        return parse(body.getBytes(charset));
    }

    @Override
    public ArrayNode parse(byte[] body) {
        ArrayNode records = JsonNodeFactory.instance.arrayNode(Math.max(1, body.length / recordLength));
        int position = 0;
        int record = 0;
        while (position < body.length) {
            record++;
            int length = recordLengthAt(body, position, record);
            ObjectNode values = records.addObject();
            for (int i = 0; i < fields.size(); i++) {
                FixedField f = fields.get(i);
                values.set(f.name(), read(f, dates[i], body, position, record));
            }
            position += length;
            if (separator.length > 0 && position < body.length) {
                position += separator.length;
            }
        }
        return records;
    }

    /** The bytes of the record at {@code position}, checked against the model. */
    private int recordLengthAt(byte[] body, int position, int record) {
        int length;
        if (separator.length == 0) {
            length = Math.min(recordLength, body.length - position);
        } else {
            int end = indexOf(body, separator, position, position + recordLength + separator.length);
            length = (end < 0 ? Math.min(body.length, position + recordLength + 1) : end) - position;
            if (end < 0 && length > recordLength) {
                throw misfit(record, position, "longer than the model's record length of " + recordLength
                        + " bytes: no record separator after it.");
            }
        }
        if (length != recordLength) {
            throw misfit(record, position, length + " bytes, " + (length < recordLength ? "shorter" : "longer")
                    + " than the model's record length of " + recordLength + " bytes"
                    + (fieldAt(length) == null ? "." : ": field '" + fieldAt(length).name() + "' (offset "
                    + fieldAt(length).offset() + ", length " + fieldAt(length).length() + ") is cut."));
        }
        return length;
    }

    private FixedField fieldAt(int length) {
        for (FixedField f : fields) {
            if (f.end() > length) {
                return f;
            }
        }
        return null;
    }

    private static int indexOf(byte[] body, byte[] separator, int from, int limit) {
        int last = Math.min(limit, body.length) - separator.length;
        outer:
        for (int i = from; i <= last; i++) {
            for (int j = 0; j < separator.length; j++) {
                if (body[i + j] != separator[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    /**
     * The value of field {@code f} of the record at {@code position}. A string, a whole number and a decimal are read
     * from the bytes when the character set writes ASCII as ASCII, its padding stripped there: one string made, or
     * none for a whole number or a plain decimal ({@link #plainDecimal}), rather than the field's text and then its
     * stripped copy.
     */
    private JsonNode read(FixedField f, DateTimeFormatter date, byte[] body, int position, int record) {
        if (!asciiCompatible || f.padding() >= 0x80 || f.type() == FixedField.Type.DATE) {
            return readText(f, date, body, position, record);
        }
        int start = position + f.offset();
        int end = start + f.length();
        if (f.type() == FixedField.Type.STRING || f.padding() != '0') {
            byte pad = (byte) f.padding();
            if (f.justify() == FixedField.Justify.LEFT) {
                while (end > start && body[end - 1] == pad) {
                    end--;
                }
            } else {
                while (start < end && body[start] == pad) {
                    start++;
                }
            }
        }
        JsonNodeFactory nodes = JsonNodeFactory.instance;
        if (f.type() == FixedField.Type.STRING) {
            return nodes.textNode(new String(body, start, end - start, charset));
        }
        while (start < end && asciiWhitespace(body[start])) {
            start++;
        }
        while (end > start && asciiWhitespace(body[end - 1])) {
            end--;
        }
        if (start == end) {
            return nodes.nullNode();
        }
        if (f.type() == FixedField.Type.INT) {
            int at = start;
            boolean negative = body[at] == '-';
            if (negative || body[at] == '+') {
                at++;
            }
            int digits = end - at;
            if (digits >= 1 && digits <= 18) {
                long value = 0;
                for (; at < end && body[at] >= '0' && body[at] <= '9'; at++) {
                    value = value * 10 + (body[at] - '0');
                }
                if (at == end) {
                    return nodes.numberNode(negative ? -value : value);
                }
            }
        } else {
            BigDecimal plain = plainDecimal(body, start, end);
            if (plain != null) {
                return nodes.numberNode(plain);
            }
            if (ascii(body, start, end)) {
                try {
                    return nodes.numberNode(new BigDecimal(new String(body, start, end - start, charset)));
                } catch (NumberFormatException e) {
                    // refused below, as the text says
                }
            }
        }
        return readText(f, date, body, position, record); // anything else as before: its value or its refusal
    }

    /**
     * The decimal written in ASCII in {@code body[start, end)} when it is a plain one: a sign or none, then 1 to 18
     * digits with at most one point among them. It is what {@code new BigDecimal} makes of that text (the same
     * unscaled value and scale), without the text; null for anything else (an exponent, more digits, other
     * characters), which the caller reads from its text.
     */
    static BigDecimal plainDecimal(byte[] body, int start, int end) {
        int at = start;
        boolean negative = at < end && body[at] == '-';
        if (negative || at < end && body[at] == '+') {
            at++;
        }
        long unscaled = 0;
        int digits = 0;
        int point = -1;
        for (; at < end; at++) {
            byte b = body[at];
            if (b >= '0' && b <= '9') {
                if (++digits > 18) {
                    return null;
                }
                unscaled = unscaled * 10 + (b - '0');
            } else if (b == '.' && point < 0) {
                point = digits;
            } else {
                return null;
            }
        }
        if (digits == 0) {
            return null;
        }
        return BigDecimal.valueOf(negative ? -unscaled : unscaled, point < 0 ? 0 : digits - point);
    }

    /** A byte that {@link String#strip()} strips (ASCII whitespace). */
    private static boolean asciiWhitespace(byte b) {
        return b >= 0 && Character.isWhitespace(b);
    }

    private static boolean ascii(String text) {
        for (int i = 0, n = text.length(); i < n; i++) {
            if (text.charAt(i) >= 0x80) {
                return false;
            }
        }
        return true;
    }

    private static boolean ascii(byte[] body, int start, int end) {
        for (int i = start; i < end; i++) {
            if (body[i] < 0) {
                return false;
            }
        }
        return true;
    }

    /** The field's value from its text, as {@link #read} reads the fields it leaves to this. */
    private JsonNode readText(FixedField f, DateTimeFormatter date, byte[] body, int position, int record) {
        String raw = new String(body, position + f.offset(), f.length(), charset);
        String text = raw;
        if (f.type() == FixedField.Type.STRING || f.padding() != '0') {
            text = strip(text, f);
        }
        JsonNodeFactory nodes = JsonNodeFactory.instance;
        if (f.type() == FixedField.Type.STRING) {
            return nodes.textNode(text);
        }
        text = text.strip();
        if (text.isEmpty()) {
            return nodes.nullNode();
        }
        try {
            return switch (f.type()) {
                case INT -> nodes.numberNode(Long.parseLong(text));
                case DECIMAL -> nodes.numberNode(new BigDecimal(text));
                case DATE -> nodes.textNode(LocalDate.parse(text, date).toString());
                case STRING -> throw new AssertionError();
            };
        } catch (NumberFormatException | DateTimeParseException e) {
            String fault = "field '" + f.name() + "' (offset " + f.offset() + ", length " + f.length() + "): '" + raw
                    + "' is not " + (f.type() == FixedField.Type.DATE ? "a date in the pattern " + f.pattern()
                    : f.type() == FixedField.Type.INT ? "a whole number" : "a decimal number") + ".";
            throw new RecordFormatException("Fixed-length record " + record + ", " + fault,
                    Character.toUpperCase(fault.charAt(0)) + fault.substring(1), e);
        }
    }

    private static String strip(String text, FixedField f) {
        int start = 0;
        int end = text.length();
        if (f.justify() == FixedField.Justify.LEFT) {
            while (end > 0 && text.charAt(end - 1) == f.padding()) {
                end--;
            }
        } else {
            while (start < end && text.charAt(start) == f.padding()) {
                start++;
            }
        }
        return text.substring(start, end);
    }

    @Override
    public byte[] write(JsonNode tree) {
        ArrayNode records = RecordTree.array(tree);
        int size = recordLength + separator.length;
        byte[] out = new byte[Math.max(0, records.size() * size - separator.length)];
        Arrays.fill(out, (byte) ' ');
        int record = 0;
        for (JsonNode value : records) {
            ObjectNode values = RecordTree.record(value, record + 1);
            int position = record * size;
            for (Iterator<String> names = values.fieldNames(); names.hasNext(); ) {
                String name = names.next();
                if (!byName.containsKey(name)) {
                    throw new RecordFormatException("Record " + (record + 1) + " has a field '" + name + "' that the "
                            + "fixed-length model does not have; its fields are " + byName.keySet() + ".");
                }
            }
            for (int i = 0; i < fields.size(); i++) {
                FixedField f = fields.get(i);
                write(f, dates[i], pads[i], values.get(f.name()), out, position, record + 1);
            }
            if (separator.length > 0 && record < records.size() - 1) {
                System.arraycopy(separator, 0, out, position + recordLength, separator.length);
            }
            record++;
        }
        return out;
    }

    private void write(FixedField f, DateTimeFormatter date, byte pad, JsonNode value, byte[] out, int position,
                       int record) {
        boolean absent = value == null || value.isNull() || value.isMissingNode()
                || f.type() != FixedField.Type.STRING && value.isTextual() && value.asText().isBlank();
        if (absent && f.type() != FixedField.Type.STRING) {
            return; // spaces: no value
        }
        String text;
        try {
            text = absent ? "" : switch (f.type()) {
                case STRING -> value.asText();
                case INT -> Long.toString(value.isIntegralNumber() ? value.longValue()
                        : Long.parseLong(value.asText().strip()));
                case DECIMAL -> {
                    BigDecimal number = value.isNumber() ? value.decimalValue() : new BigDecimal(value.asText().strip());
                    yield (f.scale() >= 0 ? number.setScale(f.scale()) : number).toPlainString();
                }
                case DATE -> LocalDate.parse(value.asText().strip()).format(date);
            };
        } catch (NumberFormatException | ArithmeticException | DateTimeParseException e) {
            throw new RecordFormatException(where(record, f) + ": the value '" + value.asText() + "' is not "
                    + (f.type() == FixedField.Type.DATE ? "an ISO date (yyyy-MM-dd)"
                    : f.type() == FixedField.Type.INT ? "a whole number"
                    : "a decimal number" + (f.scale() >= 0 ? " with at most " + f.scale() + " decimals" : ""))
                    + ".", e);
        }
        boolean signed = text.startsWith("-") && f.padding() == '0' && f.justify() == FixedField.Justify.RIGHT;
        // ASCII text in a character set that writes it as ASCII goes straight in: no array of its bytes first
        byte[] bytes = asciiCompatible && ascii(text) ? null : text.getBytes(charset);
        int length = bytes == null ? text.length() : bytes.length;
        if (length > f.length()) {
            throw new RecordFormatException(where(record, f) + ": the value '" + text + "' is " + length
                    + " bytes, longer than the field.");
        }
        int free = f.length() - length;
        int start = position + f.offset();
        int valueAt = f.justify() == FixedField.Justify.LEFT ? start : start + free;
        int padAt = f.justify() == FixedField.Justify.LEFT ? start + length : start;
        Arrays.fill(out, padAt, padAt + free, pad);
        if (bytes == null) {
            for (int i = 0; i < length; i++) {
                out[valueAt + i] = (byte) text.charAt(i);
            }
        } else {
            System.arraycopy(bytes, 0, out, valueAt, length);
        }
        if (signed && free > 0) {
            out[start] = '-'; // -00012, not 000-12
            out[valueAt] = '0';
        }
    }

    /** A record of the wrong length: {@code Fixed-length record 2 (at byte 30) is FAULT}, its fault {@code It is FAULT}. */
    private static RecordFormatException misfit(int record, int position, String fault) {
        return new RecordFormatException("Fixed-length record " + record + " (at byte " + position + ") is " + fault,
                "It is " + fault, null);
    }

    private static String where(int record, FixedField f) {
        return "Fixed-length record " + record + ", field '" + f.name() + "' (offset " + f.offset() + ", length "
                + f.length() + ")";
    }

    @Override
    public String toString() {
        return "FixedLength[" + recordLength + " bytes, " + fields.size() + " fields"
                + (separator.length > 0 ? ", separated" : "") + "]";
    }

    /** Collects a model's fields. */
    public static final class Builder {
        private final int recordLength;
        private final List<FixedField> fields = new ArrayList<>();
        private String separator = "";
        private Charset charset = StandardCharsets.UTF_8;

        private Builder(int recordLength) {
            this.recordLength = recordLength;
        }

        /** Adds a field. */
        public Builder field(FixedField field) {
            fields.add(field);
            return this;
        }

        /** Adds a text field, left-justified and padded with spaces. */
        public Builder string(String name, int offset, int length) {
            return field(FixedField.of(name, offset, length, FixedField.Type.STRING));
        }

        /** Adds a whole number, right-justified and padded with zeros. */
        public Builder integer(String name, int offset, int length) {
            return field(FixedField.of(name, offset, length, FixedField.Type.INT));
        }

        /** Adds a decimal number with a point, right-justified and padded with zeros, written with {@code scale} decimals. */
        public Builder decimal(String name, int offset, int length, int scale) {
            return field(FixedField.of(name, offset, length, FixedField.Type.DECIMAL).scale(scale));
        }

        /** Adds a date in {@code pattern} (e.g. {@code yyyyMMdd}). */
        public Builder date(String name, int offset, int length, String pattern) {
            return field(FixedField.of(name, offset, length, FixedField.Type.DATE).pattern(pattern));
        }

        /** What follows each record, e.g. {@code "\n"} (default {@code ""}: records follow one another). */
        public Builder recordSeparator(String separator) {
            this.separator = separator;
            return this;
        }

        /** The character set of text fields (default UTF-8; offsets and lengths are in bytes). */
        public Builder charset(Charset charset) {
            this.charset = charset;
            return this;
        }

        /**
         * The model.
         *
         * @throws IllegalArgumentException for a field outside the record, two fields that overlap or share a name
         */
        public FixedFormat build() {
            return new FixedFormat(recordLength, fields, separator, charset);
        }
    }
}
