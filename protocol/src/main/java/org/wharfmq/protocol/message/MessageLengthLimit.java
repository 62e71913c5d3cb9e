package org.wharfmq.protocol.message;

/**
 * The words of a refusal of a message longer than a queue manager's {@code maxMessageLength}, the one text the client
 * (before it sends the message) and the server (as the message arrives) give. The limit counts the whole encoded
 * message, headers, properties and body (docs/protocol.md, "Sending"): one of exactly the limit is taken.
 */
public final class MessageLengthLimit {

    /**
     * Room for a frame's fields beyond the message it carries: {@value} bytes (64 KiB). A frame may be up to a
     * queue manager's {@code maxMessageLength} plus this long, both ways: the server reads frames up to it, and a client
     * reads none longer from a server that declared that {@code maxMessageLength} in {@code HELLO_OK}.
     */
    public static final int FRAME_OVERHEAD_BYTES = 64 * 1024;

    private MessageLengthLimit() {
    }

    /**
     * The longest frame (type byte and payload) an end that accepts messages of {@code maxMessageLength} bytes reads:
     * {@code maxMessageLength} plus {@link #FRAME_OVERHEAD_BYTES}, at most {@code Integer.MAX_VALUE - 16}.
     */
    public static int frameLimit(int maxMessageLength) {
        return (int) Math.min(Integer.MAX_VALUE - 16, Math.max(0, maxMessageLength) + (long) FRAME_OVERHEAD_BYTES);
    }

    /** What a message of {@code length} bytes encoded is, for {@link #refusal}. */
    public static String encoded(long length) {
        return "The message is " + length + " bytes long (encoded: headers, properties and body)";
    }

    /**
     * The refusal of a message that {@code what} describes ({@link #encoded}, or a body alone) by queue manager
     * {@code queueManager}, whose limit is {@code maxMessageLength}: it names the limit, the setting and the fix;
     * {@code outcome} says what did not happen to the message ("sent", "stored").
     */
    public static String refusal(String what, int maxMessageLength, String queueManager, String outcome) {
        return what + ", more than queue manager " + queueManager + "'s maximum message length of " + maxMessageLength
                + " bytes (setting maxMessageLength); it was not " + outcome + ". Send a smaller message, or raise"
                + " maxMessageLength in queue manager " + queueManager + "'s configuration.";
    }
}
