package org.wharfmq.perf.report;

import java.util.Map;

/**
 * The seed report's published rows (IBM MQ V8.0 GM, report 004, Appendix C hardware: 24-core Xeon E5-2697 v2
 * server, separate client machines, 10 Gb LAN), for reference beside Wharf's numbers from other hardware.
 */
public final class SeedRows {

    /** A published row: peak rate, server CPU% and clients at the peak, and the report's test name. */
    public record Row(String test, long maxRate, double cpuPercent, int clients) {
    }

    private static final Map<String, Row> ROWS = Map.ofEntries(
            Map.entry("RR-1/2048", new Row("MQI Local Bindings (2KB Non-persistent) : RR-1", 125_553, 77.92, 49)),
            Map.entry("RR-1/20480", new Row("MQI Local Bindings (20KB Non-persistent) : RR-1", 104_039, 81.15, 41)),
            Map.entry("RR-1/204800", new Row("MQI Local Bindings (200KB Non-persistent) : RR-1", 29_770, 75.52, 22)),
            Map.entry("RR-1/2097152", new Row("MQI Local Bindings (2MB Non-persistent) : RR-1", 1_100, 54.9, 13)),
            Map.entry("RR-2/2048", new Row("MQI Client Bindings (2KB Non-persistent) : RR-2", 67_568, 41.52, 33)),
            Map.entry("RR-2/20480", new Row("MQI Client Bindings (20KB Non-persistent) : RR-2", 50_956, 41.5, 61)),
            Map.entry("RR-2/204800", new Row("MQI Client Bindings (200KB Non-persistent) : RR-2", 5_641, 14.17, 45)),
            Map.entry("RR-2/2097152", new Row("MQI Client Bindings (2MB Non-persistent) : RR-2", 498, 14, 23)),
            Map.entry("RR-3/2048", new Row("JMS Local Bindings (2KB Non-persistent) : RR-3", 67_404, 95.44, 49)),
            Map.entry("RR-3/204800", new Row("JMS Local Bindings (200KB Non-persistent) : RR-3", 14_761, 77.18, 17)),
            Map.entry("RR-4/2048", new Row("JMS Client Bindings (2KB Non-persistent) : RR-4", 56_159, 45.13, 65)),
            Map.entry("RR-4/204800", new Row("JMS Client Bindings (200KB Non-persistent) : RR-4", 2_752, 8.98, 37)));

    private SeedRows() {
    }

    /** The seed's non-persistent row for {@code workload} at {@code size}, or null. */
    public static Row find(String workload, int size) {
        return ROWS.get(workload + "/" + size);
    }
}
