package org.wharfmq.perf.options;

/** A command line the driver cannot run: the message says which option and why. */
public final class OptionException extends IllegalArgumentException {

    /** An error described by {@code message}. */
    public OptionException(String message) {
        super(message);
    }
}
