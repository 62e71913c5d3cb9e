package org.wharfmq.perf.options;

import java.util.Locale;

/** The JMSPerfHarness test classes ({@code -tc}) this driver implements, and four of its own (the last four). */
public enum TestClass {
    REQUESTOR("Requestor"),
    RESPONDER("Responder"),
    SENDER("Sender"),
    RECEIVER("Receiver"),
    PUT_GET("PutGet"),
    PUBLISHER("Publisher"),
    SUBSCRIBER("Subscriber"),
    /** Not JMSPerfHarness's: a short session per operation (connect, one request and its reply, disconnect). */
    SHORT_SESSION("ShortSession"),
    /** Not JMSPerfHarness's: a connection opened and closed per operation, nothing sent. */
    CONNECTOR("Connector"),
    /** Not JMSPerfHarness's: an HTTP client POSTing the body to the URL of {@code -iq}, the answer its round trip. */
    HTTP_REQUESTOR("HttpRequestor"),
    /**
     * Not JMSPerfHarness's: writes files into the folder of {@code -iq} for a FileInput flow, keeping {@code -fw} of its
     * own there, and takes the flow's outputs from {@code -oq}.
     */
    FILE_FEEDER("FileFeeder");

    private final String simpleName;

    TestClass(String simpleName) {
        this.simpleName = simpleName;
    }

    /** The JMSPerfHarness name, e.g. {@code jms.r11.Requestor}. */
    public String harnessName() {
        return "jms.r11." + simpleName;
    }

    /** Accepts {@code jms.r11.Requestor}, {@code Requestor} or {@code requestor}. */
    public static TestClass parse(String text) {
        String name = text.startsWith("jms.r11.") ? text.substring("jms.r11.".length()) : text;
        for (TestClass t : values()) {
            if (t.simpleName.toLowerCase(Locale.ROOT).equals(name.toLowerCase(Locale.ROOT))) {
                return t;
            }
        }
        throw new OptionException("-tc " + text + ": unknown test class; use one of jms.r11.Requestor, Responder, "
                + "Sender, Receiver, PutGet, Publisher, Subscriber, ShortSession, Connector, HttpRequestor, FileFeeder");
    }
}
