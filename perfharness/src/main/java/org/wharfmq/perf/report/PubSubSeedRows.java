package org.wharfmq.perf.report;

import java.util.Map;

/**
 * The seeds' published publish/subscribe figures, for reference beside Wharf's numbers from other hardware.
 *
 * <p>Rates: report 002 (WebSphere Message Broker V6.1 for pLinux, 2008; a 4-way 1.7 GHz POWER5 pSeries 570),
 * "Topic Based Publish/Subscribe using MQ Messages with 1 / 10 / 100 Subscribers", 4 KB: the total message rate
 * at the subscribers (publications/s x subscribers), the machine's CPU% busy and CPU ms per message.
 * Non-persistent rows stand beside PS-N, persistent ones beside PS-D.
 *
 * <p>Dummy subscriptions: report 001 (MQSeries Publish/Subscribe SupportPac, 1999), "Single Broker with a variable
 * number of subscribers and topics": elapsed times (not rates) with extra dummy subscribers on other topics, which
 * PS-T reproduces as a rate.
 */
public final class PubSubSeedRows {

    /** A report 002 row: deliveries/s at the subscribers, CPU% busy, CPU ms per delivery. */
    public record Row(double rate, double cpuPercent, double cpuMillisPerMessage) {
    }

    /** The message size report 002 gives its smallest rows for. */
    public static final int SEED_SIZE = 4096;

    private static final Map<String, Row> ROWS = Map.of(
            "1/false", new Row(948.38, 32.33, 1.36),
            "10/false", new Row(5_398.22, 43.33, 0.32),
            "100/false", new Row(8_559.25, 51.00, 0.24),
            "1/true", new Row(459.85, 27.00, 2.35),
            "10/true", new Row(1_076.44, 23.00, 0.85),
            "100/true", new Row(1_113.81, 21.00, 0.75));

    /**
     * Report 000's row for 1,000 subscribers on one topic (MQSeries Integrator V2 on AIX, 4 KB non-persistent, section
     * 7.11), as deliveries/s: it published 2.6 messages/s, counting a publication's put and one subscriber's get as two
     * (a background program took the other 999 copies), so 1.3 publications/s, each reaching 1,000 subscribers.
     */
    public static final String THOUSAND_SUBSCRIBERS = "1,300 (seed 000, 4 KB, 1,000 subscribers: 1.3 publications/s, "
            + "its 2.6 messages/s counting a put and one get per publication)";

    /** Report 001's dummy-subscription finding, quoted in PS-T reports. */
    public static final String DUMMY_SUBSCRIPTIONS = "Seed 001 (MQSeries Publish/Subscribe, 1999), 1 genuine subscriber, "
            + "10-byte non-persistent publications: 4.57 ms per publication with no dummy subscriptions, 4.71 ms with "
            + "10,000 dummies on other topics (4.76 ms with 10,000 on one other topic): \"not effected by the total "
            + "number of subscriptions ... Subscriptions are maintained in a hashed table.\"";

    private PubSubSeedRows() {
    }

    /** Report 002's 4 KB row for {@code subscribers} (1, 10 or 100), persistent or not; null when there is none. */
    public static Row find(int subscribers, boolean persistent) {
        return ROWS.get(subscribers + "/" + persistent);
    }
}
