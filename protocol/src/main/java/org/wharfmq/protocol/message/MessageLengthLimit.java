package org.wharfmq.protocol.message;

/**
 * The words of a refusal of a message longer than a queue manager's {@code maxMessageLength}, the one text the client
 * (before it sends the message) and the server (as the message arrives) give. The limit counts the whole encoded
 * message, headers, properties and body (docs/protocol.md, "Sending"): one of exactly the limit is taken.
 */
public final class MessageLengthLimit {

    private MessageLengthLimit() {
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
