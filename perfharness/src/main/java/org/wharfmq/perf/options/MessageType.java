package org.wharfmq.perf.options;

/** The message body types the driver sends ({@code -mt}). */
public enum MessageType {
    TEXT, BYTES;

    /** Accepts {@code text} or {@code bytes}, in any case. */
    public static MessageType parse(String text) {
        return switch (text.toLowerCase(java.util.Locale.ROOT)) {
            case "text" -> TEXT;
            case "bytes" -> BYTES;
            default -> throw new OptionException("-mt " + text + ": use text or bytes (stream, map, object are not "
                    + "supported yet)");
        };
    }
}
