package org.wharfmq.flow.records;

/**
 * A body that does not fit its record format, or a tree that cannot be written in it. The message names the
 * record (from 1) and, where it applies, its line, the field, its offset and expected length; in a flow it takes the
 * failure or backout path like any node failure. {@link #fault()} is the fault alone, for a reader that names the
 * record's place in its own terms (the FileInput node parses each record of a file as a body of one record, and names
 * the record and line of the file).
 */
public final class RecordFormatException extends RuntimeException {

    private final String fault;

    public RecordFormatException(String message) {
        this(message, message, null);
    }

    RecordFormatException(String message, Throwable cause) {
        this(message, message, cause);
    }

    /**
     * @param message the fault with its place in the body ({@code CSV record 2 (line 3) cannot be parsed: ...})
     * @param fault   the fault without it ({@code Missing closing quote for value (column 7)})
     */
    RecordFormatException(String message, String fault, Throwable cause) {
        super(message, cause);
        this.fault = fault;
    }

    /**
     * What is wrong without the record's number and its line or byte offset in the body: {@code Not enough column
     * values: expected 3, found 2 (column 6)}; the whole message when it has no place apart.
     */
    public String fault() {
        return fault;
    }
}
