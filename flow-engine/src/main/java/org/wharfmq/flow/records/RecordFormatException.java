package org.wharfmq.flow.records;

/**
 * A body that does not fit its record format, or a tree that cannot be written in it. The message names the
 * record (from 1) and, where it applies, its line, the field, its offset and expected length; in a flow it takes the
 * failure or backout path like any node failure.
 */
public final class RecordFormatException extends RuntimeException {

    public RecordFormatException(String message) {
        super(message);
    }

    RecordFormatException(String message, Throwable cause) {
        super(message, cause);
    }
}
