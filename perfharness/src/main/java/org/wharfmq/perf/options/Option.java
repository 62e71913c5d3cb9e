package org.wharfmq.perf.options;

/**
 * The driver's options, spelled as JMSPerfHarness spells them so its scripts run unchanged ({@code -tc}, {@code -nt},
 * {@code -rl}, ...), plus a few of Wharf's own ({@code -url}, {@code -id}, {@code -jo}, {@code -xs}).
 */
public enum Option {
    TC("tc", "jms.r11.PutGet", "Test class: jms.r11.Requestor, Responder, Sender, Receiver, PutGet, Publisher, Subscriber; "
            + "and the harness's own ShortSession, Connector, HttpRequestor, FileFeeder."),
    NT("nt", "1", "Number of worker threads."),
    RL("rl", "60", "Run length in seconds, the warm-up included (0 = until stopped); the measured period is rl - sw "
            + "seconds after a warm-up that also waits for every worker's first operation."),
    MS("ms", "1000", "Message size in bytes."),
    MT("mt", "text", "Message type: text or bytes."),
    MF("mf", "", "Message file: the body is this file's content (-ms is then ignored)."),
    PP("pp", "false", "Persistent messages."),
    TX("tx", "false", "Transacted sessions."),
    CC("cc", "1", "Commit count: operations per transaction (Sender, Receiver, Publisher, Subscriber)."),
    D("d", "DEST", "Destination prefix (Sender, Receiver, PutGet, Publisher, Subscriber)."),
    DB("db", "0", "Multi-destination numeric base."),
    DX("dx", "0", "Multi-destination numeric maximum."),
    DN("dn", "0", "Multi-destination numeric range."),
    IQ("iq", "REQUEST", "Queue to place requests on."),
    OQ("oq", "REPLY", "Queue to place replies on; \"\" = a temporary reply queue per requester (RR-4b)."),
    RM("rm", "", "Requestor with -oq: JMSReplyTo names the reply queue by a queue manager, <rm><n>/<oq><n> for queue "
            + "pair n (a queue-manager alias that the responders' queue manager routes the replies by: RR-5's reply "
            + "channels); the replies are read from <oq><n>. \"\" = JMSReplyTo is the reply queue itself."),
    CO("co", "false", "Requestor: one correlation id per thread and one long-lived reply consumer (else the reply is "
            + "picked by JMSCorrelationID = the request's JMSMessageID, a consumer per request)."),
    TO("to", "5", "Receive timeout in seconds; a reply later than this is late (a loss if it never comes)."),
    RT("rt", "0", "Rate per thread in operations/s (0 = as fast as possible)."),
    SS("ss", "10", "Statistics reporting period in seconds (0 = none)."),
    SW("sw", "0", "Warm-up in seconds, excluded from the summary, the median and the latencies."),
    SU("su", "true", "Print the final summary."),
    PC("pc", "Wharf", "Provider: Wharf (the URL in -url), JNDI (-ii, -iu, -jf, -cf), or Relay: "
            + "the bare Netty relay's clients (the URL in -url; Requestor and Responder only)."),
    JF("jf", "", "JNDI properties file: every entry goes into the InitialContext environment."),
    II("ii", "", "JNDI initial context factory."),
    IU("iu", "", "JNDI provider URL."),
    CF("cf", "ConnectionFactory", "JNDI name of the ConnectionFactory."),
    URL("url", "tcp://localhost:7414", "Wharf and Relay: the broker URL (tcp://host:port or vm://NAME)."),
    US("us", "", "User name every connection authenticates as (\"\" = none: anonymous)."),
    PW("pw", "", "Password of -us."),
    ID("id", "", "Process identifier, shown in the statistics and used to tell processes apart in the checks."),
    JO("jo", "", "Write the result as JSON to this file."),
    XS("xs", "false", "Stop when standard input closes (used by the workload runner for its child processes)."),
    SC("sc", "1", "Worker threads per connection: each thread has its own session, threads share connections in "
            + "groups of this many (many subscribers on a few connections)."),
    DU("du", "false", "Subscriber: durable subscriptions (a client ID per connection, unsubscribed at the end)."),
    DD("dd", "0", "Subscriber: also hold this many dummy subscriptions on topics <d>DUMMY<n> nobody publishes to; "
            + "prints the count the server has confirmed every 500, and is ready once a probe on the last one reached it."),
    FW("fw", "0", "Flow window. Publisher: publish at most this many messages ahead of the slowest subscriber "
            + "process (-fp of them report); Subscriber: > 0 = report progress for the publisher's window. 0 = off. "
            + "FileFeeder: the files each worker keeps in the flow's folder (0 = 10)."),
    FP("fp", "1", "Publisher with -fw: how many subscriber processes report progress (it waits for all of them)."),
    FQ("fq", "", "Publisher: put each message on this queue, where a message flow publishes it on the topic -d "
            + "names (F-PUB); \"\" = publish on the topic directly.");

    private final String key;
    private final String defaultValue;
    private final String description;

    Option(String key, String defaultValue, String description) {
        this.key = key;
        this.defaultValue = defaultValue;
        this.description = description;
    }

    /** The name after the dash, e.g. {@code tc}. */
    public String key() {
        return key;
    }

    /** The value used when the option is not given. */
    public String defaultValue() {
        return defaultValue;
    }

    /** One line of help. */
    public String description() {
        return description;
    }

    /** The option named {@code key} (without the dash), or null. */
    public static Option byKey(String key) {
        for (Option o : values()) {
            if (o.key.equals(key)) {
                return o;
            }
        }
        return null;
    }
}
