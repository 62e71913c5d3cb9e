package org.wharfmq.protocol.frame;

/**
 * A frame's bytes do not follow the format: a bad length, an unknown type, a field that runs past the end.
 * The receiving end answers with a {@code PROTOCOL_ERROR} and closes that one connection.
 */
public final class MalformedFrameException extends RuntimeException {
    /** Creates the exception with a message that says what was wrong. */
    public MalformedFrameException(String message) {
        super(message);
    }
}
