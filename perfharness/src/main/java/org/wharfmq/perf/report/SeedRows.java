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
            Map.entry("RR-4/204800", new Row("JMS Client Bindings (200KB Non-persistent) : RR-4", 2_752, 8.98, 37)),
            // the report's only persistent request/reply rows
            Map.entry("RR-1/2048/persistent", new Row("MQI Local Bindings (2KB Persistent) : RR-1", 18_391, 27.98, 17)),
            Map.entry("RR-1/20480/persistent", new Row("MQI Local Bindings (20KB Persistent) : RR-1", 8_419, 15.45, 21)),
            Map.entry("RR-1/204800/persistent", new Row("MQI Local Bindings (200KB Persistent) : RR-1", 891, 3.56, 1)),
            Map.entry("RR-1/2097152/persistent", new Row("MQI Local Bindings (2MB Persistent) : RR-1", 87, 5.4, 2)));

    /**
     * A published row of the broker report (002: WebSphere Message Broker V6.1 with WebSphere MQ V6 on a 4-processor
     * 1.7 GHz pSeries Power5 server under Linux, clients on another machine; one copy of the flow, non-persistent):
     * message rate, CPU% busy (the whole server: broker and queue manager) and CPU milliseconds per message.
     */
    public record FlowRow(String test, double rate, double cpuPercent, double cpuMillisPerMessage) {
    }

    private static final Map<String, FlowRow> FLOW_ROWS = Map.ofEntries(
            Map.entry("F-PASS/4096", new FlowRow("MQ BLOB pass-through 4K", 7144.21, 68.67, 0.38)),
            Map.entry("F-PASS/16384", new FlowRow("MQ BLOB pass-through 16K", 4544.27, 67.67, 0.60)),
            Map.entry("F-PASS/65536", new FlowRow("MQ BLOB pass-through 64K", 1314.28, 46.00, 1.40)),
            Map.entry("F-PASS/262144", new FlowRow("MQ BLOB pass-through 256K", 327.19, 39.00, 4.77)),
            Map.entry("F-PASS/1048576", new FlowRow("MQ BLOB pass-through 1024K", 76.91, 35.00, 18.20)),
            Map.entry("F-HDR/1024", new FlowRow("Setting of the MQ Message Headers 1K", 3590.83, 43.00, 0.48)));

    private SeedRows() {
    }

    /** The broker report's non-persistent row for flow workload {@code workload} at {@code size}, or null. */
    public static FlowRow findFlow(String workload, int size) {
        return FLOW_ROWS.get(workload + "/" + size);
    }

    /** The seed's row for {@code workload} at {@code size}, persistent or not, or null when it published none. */
    public static Row find(String workload, int size, boolean persistent) {
        return ROWS.get(workload + "/" + size + (persistent ? "/persistent" : ""));
    }
}
