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
     * 1.7 GHz pSeries Power5 server under Linux, clients on another machine; one copy of the flow):
     * message rate, CPU% busy (the whole server: broker and queue manager) and CPU milliseconds per message.
     * The XSLT rows come from the report's V6.0/V6.1 comparison, which published the rate only (NaN for the rest).
     */
    public record FlowRow(String test, double rate, double cpuPercent, double cpuMillisPerMessage) {
    }

    private static final Map<String, FlowRow> FLOW_ROWS = Map.ofEntries(
            Map.entry("F-PASS/4096", new FlowRow("MQ BLOB pass-through 4K", 7144.21, 68.67, 0.38)),
            Map.entry("F-PASS/16384", new FlowRow("MQ BLOB pass-through 16K", 4544.27, 67.67, 0.60)),
            Map.entry("F-PASS/65536", new FlowRow("MQ BLOB pass-through 64K", 1314.28, 46.00, 1.40)),
            Map.entry("F-PASS/262144", new FlowRow("MQ BLOB pass-through 256K", 327.19, 39.00, 4.77)),
            Map.entry("F-PASS/1048576", new FlowRow("MQ BLOB pass-through 1024K", 76.91, 35.00, 18.20)),
            Map.entry("F-HDR/1024", new FlowRow("Setting of the MQ Message Headers 1K", 3590.83, 43.00, 0.48)),
            Map.entry("F-PARSE/4096", new FlowRow("Parsing an XML Input Message 4K", 972.94, 31.33, 1.29)),
            Map.entry("F-PARSE/16384", new FlowRow("Parsing an XML Input Message 16K", 325.30, 28.00, 3.44)),
            Map.entry("F-PARSE/65536", new FlowRow("Parsing an XML Input Message 64K", 85.80, 27.00, 12.59)),
            Map.entry("F-PARSE/262144", new FlowRow("Parsing an XML Input Message 256K", 21.94, 27.00, 49.22)),
            Map.entry("F-PARSE/1048576", new FlowRow("Parsing an XML Input Message 1024K", 5.51, 26.00, 188.75)),
            Map.entry("F-WRITE/4096", new FlowRow("Writing a Generic XMLNSC Output Message 4K", 691.33, 31.00, 1.79)),
            Map.entry("F-WRITE/16384", new FlowRow("Writing a Generic XMLNSC Output Message 16K", 214.90, 27.33, 5.09)),
            Map.entry("F-WRITE/65536", new FlowRow("Writing a Generic XMLNSC Output Message 64K", 53.94, 27.00, 20.02)),
            Map.entry("F-WRITE/262144", new FlowRow("Writing a Generic XMLNSC Output Message 256K", 13.67, 27.00, 79.02)),
            Map.entry("F-WRITE/1048576", new FlowRow("Writing a Generic XMLNSC Output Message 1024K", 3.43, 27.00, 314.87)),
            Map.entry("F-VALID/4096", new FlowRow("Validating an XML Message on Input 4K", 896.95, 32.00, 1.43)),
            Map.entry("F-VALID/16384", new FlowRow("Validating an XML Message on Input 16K", 262.35, 29.00, 4.42)),
            Map.entry("F-VALID/65536", new FlowRow("Validating an XML Message on Input 64K", 63.64, 27.00, 16.97)),
            Map.entry("F-VALID/262144", new FlowRow("Validating an XML Message on Input 256K", 16.02, 27.00, 67.40)),
            Map.entry("F-VALID/1048576", new FlowRow("Validating an XML Message on Input 1024K", 4.16, 27.00, 259.82)),
            Map.entry("F-FILTER-FIRST/4096", new FlowRow("Filter on the first element (ESQL, XMLNSC) 4K", 4281.98, 52.67, 0.49)),
            Map.entry("F-FILTER-FIRST/16384", new FlowRow("Filter on the first element (ESQL, XMLNSC) 16K", 3542.85, 62.00, 0.70)),
            Map.entry("F-FILTER-FIRST/65536", new FlowRow("Filter on the first element (ESQL, XMLNSC) 64K", 1278.88, 50.00, 1.56)),
            Map.entry("F-FILTER-FIRST/262144", new FlowRow("Filter on the first element (ESQL, XMLNSC) 256K", 335.72, 42.00, 5.00)),
            Map.entry("F-FILTER-FIRST/1048576", new FlowRow("Filter on the first element (ESQL, XMLNSC) 1024K", 77.53, 37.00, 19.09)),
            Map.entry("F-FILTER-LAST/4096", new FlowRow("Filter on the last element (ESQL, XMLNSC) 4K", 1133.58, 26.67, 0.94)),
            Map.entry("F-FILTER-LAST/16384", new FlowRow("Filter on the last element (ESQL, XMLNSC) 16K", 339.00, 29.00, 3.42)),
            Map.entry("F-FILTER-LAST/65536", new FlowRow("Filter on the last element (ESQL, XMLNSC) 64K", 86.85, 28.00, 12.90)),
            Map.entry("F-FILTER-LAST/262144", new FlowRow("Filter on the last element (ESQL, XMLNSC) 256K", 21.88, 27.00, 49.36)),
            Map.entry("F-FILTER-LAST/1048576", new FlowRow("Filter on the last element (ESQL, XMLNSC) 1024K", 5.48, 28.00, 204.38)),
            Map.entry("F-OPAQUE/4096", new FlowRow("Filter last element, SaleList parsed opaquely 4K", 3105.05, 45.00, 0.58)),
            Map.entry("F-OPAQUE/16384", new FlowRow("Filter last element, SaleList parsed opaquely 16K", 1235.89, 38.00, 1.23)),
            Map.entry("F-OPAQUE/65536", new FlowRow("Filter last element, SaleList parsed opaquely 64K", 331.48, 34.33, 4.14)),
            Map.entry("F-OPAQUE/262144", new FlowRow("Filter last element, SaleList parsed opaquely 256K", 83.95, 33.33, 15.88)),
            Map.entry("F-OPAQUE/1048576", new FlowRow("Filter last element, SaleList parsed opaquely 1024K", 21.06, 33.00, 62.69)),
            Map.entry("F-ROUTE/4096", new FlowRow("Route node on the first element 4K", 2090.07, 38.67, 0.74)),
            Map.entry("F-ROUTE/16384", new FlowRow("Route node on the first element 16K", 1898.29, 46.00, 0.97)),
            Map.entry("F-ROUTE/65536", new FlowRow("Route node on the first element 64K", 1299.51, 59.33, 1.83)),
            Map.entry("F-ROUTE/262144", new FlowRow("Route node on the first element 256K", 330.41, 43.67, 5.29)),
            Map.entry("F-ROUTE/1048576", new FlowRow("Route node on the first element 1024K", 75.24, 35.33, 18.78)),
            Map.entry("F-COMPUTE/4096", new FlowRow("Computation using the JavaCompute node's XPath 4K", 351.47, 28.00, 3.19)),
            Map.entry("F-COMPUTE/16384", new FlowRow("Computation using the JavaCompute node's XPath 16K", 99.49, 26.33, 10.59)),
            Map.entry("F-COMPUTE/65536", new FlowRow("Computation using the JavaCompute node's XPath 64K", 26.00, 26.00, 40.00)),
            Map.entry("F-COMPUTE/262144", new FlowRow("Computation using the JavaCompute node's XPath 256K", 6.52, 26.33, 161.47)),
            Map.entry("F-COMPUTE/1048576", new FlowRow("Computation using the JavaCompute node's XPath 1024K", 1.63, 26.00, 638.04)),
            Map.entry("F-XSLT/4096", new FlowRow("XSLT Transform sample 4K (rate only)", 413, Double.NaN, Double.NaN)),
            Map.entry("F-XSLT/16384", new FlowRow("XSLT Transform sample 16K (rate only)", 169, Double.NaN, Double.NaN)),
            Map.entry("F-XSLT/65536", new FlowRow("XSLT Transform sample 64K (rate only)", 49.5, Double.NaN, Double.NaN)),
            Map.entry("F-XSLT/262144", new FlowRow("XSLT Transform sample 256K (rate only)", 13.6, Double.NaN, Double.NaN)),
            // persistent: the same tests with persistent messages (002 published no persistent XSLT row)
            Map.entry("F-HDR/1024/persistent", new FlowRow("Setting of the MQ Message Headers 1K persistent", 1029.74, 29.33, 1.14)),
            Map.entry("F-PASS/4096/persistent", new FlowRow("MQ BLOB pass-through 4K persistent", 1109.61, 29.67, 1.07)),
            Map.entry("F-PASS/16384/persistent", new FlowRow("MQ BLOB pass-through 16K persistent", 732.83, 28.33, 1.55)),
            Map.entry("F-PASS/65536/persistent", new FlowRow("MQ BLOB pass-through 64K persistent", 343.58, 30.33, 3.53)),
            Map.entry("F-PASS/262144/persistent", new FlowRow("MQ BLOB pass-through 256K persistent", 113.68, 31.67, 11.14)),
            Map.entry("F-PASS/1048576/persistent", new FlowRow("MQ BLOB pass-through 1024K persistent", 31.04, 32.33, 41.66)),
            Map.entry("F-PARSE/4096/persistent", new FlowRow("Parsing an XML Input Message 4K persistent", 363.20, 28.67, 3.16)),
            Map.entry("F-PARSE/16384/persistent", new FlowRow("Parsing an XML Input Message 16K persistent", 204.15, 28.33, 5.55)),
            Map.entry("F-PARSE/65536/persistent", new FlowRow("Parsing an XML Input Message 64K persistent", 75.70, 28.33, 14.97)),
            Map.entry("F-PARSE/262144/persistent", new FlowRow("Parsing an XML Input Message 256K persistent", 21.44, 28.00, 52.23)),
            Map.entry("F-PARSE/1048576/persistent", new FlowRow("Parsing an XML Input Message 1024K persistent", 5.45, 28.00, 205.38)),
            Map.entry("F-WRITE/4096/persistent", new FlowRow("Writing a Generic XMLNSC Output Message 4K persistent", 427.81, 27.33, 2.56)),
            Map.entry("F-WRITE/16384/persistent", new FlowRow("Writing a Generic XMLNSC Output Message 16K persistent", 127.37, 26.67, 8.37)),
            Map.entry("F-WRITE/65536/persistent", new FlowRow("Writing a Generic XMLNSC Output Message 64K persistent", 44.75, 27.67, 24.73)),
            Map.entry("F-WRITE/262144/persistent", new FlowRow("Writing a Generic XMLNSC Output Message 256K persistent", 12.39, 27.00, 87.17)),
            Map.entry("F-WRITE/1048576/persistent", new FlowRow("Writing a Generic XMLNSC Output Message 1024K persistent", 3.20, 27.00, 337.50)),
            Map.entry("F-VALID/4096/persistent", new FlowRow("Validating an XML Message on Input 4K persistent", 549.46, 30.00, 2.18)),
            Map.entry("F-VALID/16384/persistent", new FlowRow("Validating an XML Message on Input 16K persistent", 177.27, 27.67, 6.24)),
            Map.entry("F-VALID/65536/persistent", new FlowRow("Validating an XML Message on Input 64K persistent", 52.23, 26.67, 20.42)),
            Map.entry("F-VALID/262144/persistent", new FlowRow("Validating an XML Message on Input 256K persistent", 14.52, 28.00, 77.12)),
            Map.entry("F-VALID/1048576/persistent", new FlowRow("Validating an XML Message on Input 1024K persistent", 3.84, 28.00, 291.41)),
            Map.entry("F-FILTER-FIRST/4096/persistent", new FlowRow("Filter on the first element (ESQL, XMLNSC) 4K persistent", 1023.99, 31.33, 1.22)),
            Map.entry("F-FILTER-FIRST/16384/persistent", new FlowRow("Filter on the first element (ESQL, XMLNSC) 16K persistent", 699.41, 30.00, 1.72)),
            Map.entry("F-FILTER-FIRST/65536/persistent", new FlowRow("Filter on the first element (ESQL, XMLNSC) 64K persistent", 331.81, 30.33, 3.66)),
            Map.entry("F-FILTER-FIRST/262144/persistent", new FlowRow("Filter on the first element (ESQL, XMLNSC) 256K persistent", 106.37, 30.33, 11.41)),
            Map.entry("F-FILTER-FIRST/1048576/persistent", new FlowRow("Filter on the first element (ESQL, XMLNSC) 1024K persistent", 31.49, 33.00, 41.92)),
            Map.entry("F-FILTER-LAST/4096/persistent", new FlowRow("Filter on the last element (ESQL, XMLNSC) 4K persistent", 382.44, 29.33, 3.07)),
            Map.entry("F-FILTER-LAST/16384/persistent", new FlowRow("Filter on the last element (ESQL, XMLNSC) 16K persistent", 204.68, 29.00, 5.67)),
            Map.entry("F-FILTER-LAST/65536/persistent", new FlowRow("Filter on the last element (ESQL, XMLNSC) 64K persistent", 69.52, 28.00, 16.11)),
            Map.entry("F-FILTER-LAST/262144/persistent", new FlowRow("Filter on the last element (ESQL, XMLNSC) 256K persistent", 19.45, 28.00, 57.59)),
            Map.entry("F-FILTER-LAST/1048576/persistent", new FlowRow("Filter on the last element (ESQL, XMLNSC) 1024K persistent", 5.02, 28.00, 222.96)),
            Map.entry("F-OPAQUE/4096/persistent", new FlowRow("Filter last element, SaleList parsed opaquely 4K persistent", 830.14, 27.67, 1.33)),
            Map.entry("F-OPAQUE/16384/persistent", new FlowRow("Filter last element, SaleList parsed opaquely 16K persistent", 502.78, 29.00, 2.31)),
            Map.entry("F-OPAQUE/65536/persistent", new FlowRow("Filter last element, SaleList parsed opaquely 64K persistent", 182.66, 28.33, 6.20)),
            Map.entry("F-OPAQUE/262144/persistent", new FlowRow("Filter last element, SaleList parsed opaquely 256K persistent", 50.72, 28.33, 22.34)),
            Map.entry("F-OPAQUE/1048576/persistent", new FlowRow("Filter last element, SaleList parsed opaquely 1024K persistent", 14.34, 30.33, 84.59)),
            Map.entry("F-ROUTE/4096/persistent", new FlowRow("Route node on the first element 4K persistent", 714.96, 27.33, 1.53)),
            Map.entry("F-ROUTE/16384/persistent", new FlowRow("Route node on the first element 16K persistent", 570.15, 28.00, 1.96)),
            Map.entry("F-ROUTE/65536/persistent", new FlowRow("Route node on the first element 64K persistent", 299.87, 30.00, 4.00)),
            Map.entry("F-ROUTE/262144/persistent", new FlowRow("Route node on the first element 256K persistent", 103.69, 30.00, 11.57)),
            Map.entry("F-ROUTE/1048576/persistent", new FlowRow("Route node on the first element 1024K persistent", 30.33, 32.00, 42.20)),
            Map.entry("F-COMPUTE/4096/persistent", new FlowRow("Computation using the JavaCompute node's XPath 4K persistent", 280.48, 28.67, 4.09)),
            Map.entry("F-COMPUTE/16384/persistent", new FlowRow("Computation using the JavaCompute node's XPath 16K persistent", 77.35, 26.67, 13.79)),
            Map.entry("F-COMPUTE/65536/persistent", new FlowRow("Computation using the JavaCompute node's XPath 64K persistent", 23.31, 26.00, 44.62)),
            Map.entry("F-COMPUTE/262144/persistent", new FlowRow("Computation using the JavaCompute node's XPath 256K persistent", 6.27, 26.00, 165.87)),
            Map.entry("F-COMPUTE/1048576/persistent", new FlowRow("Computation using the JavaCompute node's XPath 1024K persistent", 1.61, 26.00, 645.96)),
            // the records workloads: the seed's TDS (Fixed Length) and CWF rows
            Map.entry("F-CSV-PARSE/4096", new FlowRow("Parsing a TDS Fixed Length Input Message 4K", 393.16, 28.00, 2.85)),
            Map.entry("F-CSV-PARSE/16384", new FlowRow("Parsing a TDS Fixed Length Input Message 16K", 134.40, 26.00, 7.74)),
            Map.entry("F-CSV-PARSE/65536", new FlowRow("Parsing a TDS Fixed Length Input Message 64K", 36.94, 26.00, 28.15)),
            Map.entry("F-CSV-PARSE/262144", new FlowRow("Parsing a TDS Fixed Length Input Message 256K", 9.56, 25.67, 107.43)),
            Map.entry("F-CSV-PARSE/1048576", new FlowRow("Parsing a TDS Fixed Length Input Message 1024K", 2.37, 26.00, 438.82)),
            Map.entry("F-CSV-PARSE/4096/persistent", new FlowRow("Parsing a TDS Fixed Length Input Message 4K persistent", 315.12, 28.33, 3.60)),
            Map.entry("F-CSV-PARSE/16384/persistent", new FlowRow("Parsing a TDS Fixed Length Input Message 16K persistent", 95.48, 27.00, 11.31)),
            Map.entry("F-CSV-PARSE/65536/persistent", new FlowRow("Parsing a TDS Fixed Length Input Message 64K persistent", 33.28, 26.00, 31.25)),
            Map.entry("F-CSV-PARSE/262144/persistent", new FlowRow("Parsing a TDS Fixed Length Input Message 256K persistent", 9.21, 26.00, 112.92)),
            Map.entry("F-CSV-PARSE/1048576/persistent", new FlowRow("Parsing a TDS Fixed Length Input Message 1024K persistent", 2.33, 26.00, 445.71)),
            Map.entry("F-FIXED-PARSE/4096", new FlowRow("Parsing a Custom Wire Format Input Message 4K", 423.46, 28.00, 2.64)),
            Map.entry("F-FIXED-PARSE/16384", new FlowRow("Parsing a Custom Wire Format Input Message 16K", 106.23, 26.00, 9.79)),
            Map.entry("F-FIXED-PARSE/65536", new FlowRow("Parsing a Custom Wire Format Input Message 64K", 27.10, 25.00, 36.90)),
            Map.entry("F-FIXED-PARSE/262144", new FlowRow("Parsing a Custom Wire Format Input Message 256K", 6.79, 25.00, 147.28)),
            Map.entry("F-FIXED-PARSE/1048576", new FlowRow("Parsing a Custom Wire Format Input Message 1024K", 2.59, 25.00, 386.10)),
            Map.entry("F-FIXED-PARSE/4096/persistent", new FlowRow("Parsing a Custom Wire Format Input Message 4K persistent", 333.67, 28.67, 3.44)),
            Map.entry("F-FIXED-PARSE/16384/persistent", new FlowRow("Parsing a Custom Wire Format Input Message 16K persistent", 80.06, 25.67, 12.82)),
            Map.entry("F-FIXED-PARSE/65536/persistent", new FlowRow("Parsing a Custom Wire Format Input Message 64K persistent", 25.01, 26.00, 41.58)),
            Map.entry("F-FIXED-PARSE/262144/persistent", new FlowRow("Parsing a Custom Wire Format Input Message 256K persistent", 6.63, 25.00, 150.83)),
            Map.entry("F-FIXED-PARSE/1048576/persistent", new FlowRow("Parsing a Custom Wire Format Input Message 1024K persistent", 2.56, 25.00, 391.13)),
            Map.entry("F-CSV-WRITE/4096", new FlowRow("Writing a TDS Fixed Length Output Message 4K", 273.16, 27.67, 4.05)),
            Map.entry("F-CSV-WRITE/16384", new FlowRow("Writing a TDS Fixed Length Output Message 16K", 84.07, 26.00, 12.37)),
            Map.entry("F-CSV-WRITE/65536", new FlowRow("Writing a TDS Fixed Length Output Message 64K", 22.30, 26.00, 46.64)),
            Map.entry("F-CSV-WRITE/262144", new FlowRow("Writing a TDS Fixed Length Output Message 256K", 5.63, 26.00, 184.62)),
            Map.entry("F-CSV-WRITE/1048576", new FlowRow("Writing a TDS Fixed Length Output Message 1024K", 1.41, 26.00, 737.59)),
            Map.entry("F-CSV-WRITE/4096/persistent", new FlowRow("Writing a TDS Fixed Length Output Message 4K persistent", 230.47, 28.00, 4.86)),
            Map.entry("F-CSV-WRITE/16384/persistent", new FlowRow("Writing a TDS Fixed Length Output Message 16K persistent", 55.07, 26.00, 18.89)),
            Map.entry("F-CSV-WRITE/65536/persistent", new FlowRow("Writing a TDS Fixed Length Output Message 64K persistent", 19.29, 26.00, 53.91)),
            Map.entry("F-CSV-WRITE/262144/persistent", new FlowRow("Writing a TDS Fixed Length Output Message 256K persistent", 5.39, 26.00, 192.95)),
            Map.entry("F-CSV-WRITE/1048576/persistent", new FlowRow("Writing a TDS Fixed Length Output Message 1024K persistent", 1.38, 26.00, 753.62)),
            Map.entry("F-FIXED-WRITE/4096", new FlowRow("Writing a Custom Wire Format Output Message 4K", 337.18, 28.00, 3.32)),
            Map.entry("F-FIXED-WRITE/16384", new FlowRow("Writing a Custom Wire Format Output Message 16K", 101.93, 26.00, 10.20)),
            Map.entry("F-FIXED-WRITE/65536", new FlowRow("Writing a Custom Wire Format Output Message 64K", 26.72, 26.00, 38.92)),
            Map.entry("F-FIXED-WRITE/262144", new FlowRow("Writing a Custom Wire Format Output Message 256K", 6.78, 26.00, 153.39)),
            Map.entry("F-FIXED-WRITE/1048576", new FlowRow("Writing a Custom Wire Format Output Message 1024K", 1.68, 26.00, 619.05)),
            Map.entry("F-FIXED-WRITE/4096/persistent", new FlowRow("Writing a Custom Wire Format Output Message 4K persistent", 275.38, 28.00, 4.07)),
            Map.entry("F-FIXED-WRITE/16384/persistent", new FlowRow("Writing a Custom Wire Format Output Message 16K persistent", 61.74, 26.33, 17.06)),
            Map.entry("F-FIXED-WRITE/65536/persistent", new FlowRow("Writing a Custom Wire Format Output Message 64K persistent", 22.74, 26.00, 45.73)),
            Map.entry("F-FIXED-WRITE/262144/persistent", new FlowRow("Writing a Custom Wire Format Output Message 256K persistent", 6.42, 26.00, 161.99)),
            Map.entry("F-FIXED-WRITE/1048576/persistent", new FlowRow("Writing a Custom Wire Format Output Message 1024K persistent", 1.63, 26.00, 638.04)),
            // "Accessing a Database from a Message Flow" (a compute node's INSERT or UPDATE on DB2)
            Map.entry("F-DB-INSERT/4096", new FlowRow("Inserting into a Database 4K", 942.21, 25.67, 1.09)),
            Map.entry("F-DB-INSERT/16384", new FlowRow("Inserting into a Database 16K", 887.68, 26.67, 1.20)),
            Map.entry("F-DB-INSERT/65536", new FlowRow("Inserting into a Database 64K", 772.94, 34.67, 1.79)),
            Map.entry("F-DB-INSERT/262144", new FlowRow("Inserting into a Database 256K", 383.40, 40.33, 4.21)),
            Map.entry("F-DB-INSERT/1048576", new FlowRow("Inserting into a Database 1024K", 102.49, 34.00, 13.27)),
            Map.entry("F-DB-INSERT/4096/persistent", new FlowRow("Inserting into a Database 4K persistent", 600.20, 29.00, 1.93)),
            Map.entry("F-DB-INSERT/16384/persistent", new FlowRow("Inserting into a Database 16K persistent", 543.10, 29.33, 2.16)),
            Map.entry("F-DB-INSERT/65536/persistent", new FlowRow("Inserting into a Database 64K persistent", 378.58, 31.33, 3.31)),
            Map.entry("F-DB-INSERT/262144/persistent", new FlowRow("Inserting into a Database 256K persistent", 177.08, 33.00, 7.45)),
            Map.entry("F-DB-INSERT/1048576/persistent", new FlowRow("Inserting into a Database 1024K persistent", 56.30, 36.00, 25.58)),
            Map.entry("F-DB-UPDATE/4096", new FlowRow("Updating a row in a Database 4K", 1113.76, 32.00, 1.15)),
            Map.entry("F-DB-UPDATE/16384", new FlowRow("Updating a row in a Database 16K", 1059.70, 34.00, 1.28)),
            Map.entry("F-DB-UPDATE/65536", new FlowRow("Updating a row in a Database 64K", 883.90, 41.33, 1.87)),
            Map.entry("F-DB-UPDATE/262144", new FlowRow("Updating a row in a Database 256K", 438.19, 45.67, 4.17)),
            Map.entry("F-DB-UPDATE/1048576", new FlowRow("Updating a row in a Database 1024K", 102.70, 34.00, 13.24)),
            Map.entry("F-DB-UPDATE/4096/persistent", new FlowRow("Updating a row in a Database 4K persistent", 622.53, 31.33, 2.01)),
            Map.entry("F-DB-UPDATE/16384/persistent", new FlowRow("Updating a row in a Database 16K persistent", 572.32, 32.33, 2.26)),
            Map.entry("F-DB-UPDATE/65536/persistent", new FlowRow("Updating a row in a Database 64K persistent", 382.53, 31.67, 3.31)),
            Map.entry("F-DB-UPDATE/262144/persistent", new FlowRow("Updating a row in a Database 256K persistent", 175.60, 33.67, 7.67)),
            Map.entry("F-DB-UPDATE/1048576/persistent", new FlowRow("Updating a row in a Database 1024K persistent", 56.40, 35.33, 25.06)),
            Map.entry("F-DB-RETRIEVE/4096", new FlowRow("Reading from a Database using the Database Retrieve Node 4K", 948.09, 35.00, 1.48)),
            Map.entry("F-DB-RETRIEVE/16384", new FlowRow("Reading from a Database using the Database Retrieve Node 16K", 902.84, 36.67, 1.62)),
            Map.entry("F-DB-RETRIEVE/65536", new FlowRow("Reading from a Database using the Database Retrieve Node 64K", 742.70, 46.67, 2.51)),
            Map.entry("F-DB-RETRIEVE/262144", new FlowRow("Reading from a Database using the Database Retrieve Node 256K", 300.08, 45.33, 6.04)),
            Map.entry("F-DB-RETRIEVE/1048576", new FlowRow("Reading from a Database using the Database Retrieve Node 1024K", 72.32, 35.67, 19.73)),
            Map.entry("F-DB-RETRIEVE/4096/persistent", new FlowRow("Reading from a Database using the Database Retrieve Node 4K persistent", 579.76, 31.33, 2.16)),
            Map.entry("F-DB-RETRIEVE/16384/persistent", new FlowRow("Reading from a Database using the Database Retrieve Node 16K persistent", 453.11, 30.00, 2.65)),
            Map.entry("F-DB-RETRIEVE/65536/persistent", new FlowRow("Reading from a Database using the Database Retrieve Node 64K persistent", 266.11, 30.67, 4.61)),
            Map.entry("F-DB-RETRIEVE/262144/persistent", new FlowRow("Reading from a Database using the Database Retrieve Node 256K persistent", 100.23, 31.33, 12.50)),
            Map.entry("F-DB-RETRIEVE/1048576/persistent", new FlowRow("Reading from a Database using the Database Retrieve Node 1024K persistent", 29.43, 33.00, 44.85)),
            // "Reading and Writing messages over the HTTP Transport" (HTTP Input -> HTTP Reply, persistent HTTP connections)
            Map.entry("F-HTTP/4096", new FlowRow("HTTP Input -> HTTP Reply BLOB 4K", 3118.13, 66.00, 0.85)),
            Map.entry("F-HTTP/16384", new FlowRow("HTTP Input -> HTTP Reply BLOB 16K", 2032.46, 78.67, 1.55)),
            Map.entry("F-HTTP/65536", new FlowRow("HTTP Input -> HTTP Reply BLOB 64K", 577.16, 67.33, 4.67)),
            Map.entry("F-HTTP/262144", new FlowRow("HTTP Input -> HTTP Reply BLOB 256K", 115.79, 52.33, 18.08)),
            Map.entry("F-HTTP/1048576", new FlowRow("HTTP Input -> HTTP Reply BLOB 1024K", 13.34, 20.67, 61.95)));

    private SeedRows() {
    }

    /** The broker report's row for flow workload {@code workload} at {@code size}, persistent or not, or null. */
    public static FlowRow findFlow(String workload, int size, boolean persistent) {
        return FLOW_ROWS.get(workload + "/" + size + (persistent ? "/persistent" : ""));
    }

    /** The seed's row for {@code workload} at {@code size}, persistent or not, or null when it published none. */
    public static Row find(String workload, int size, boolean persistent) {
        return ROWS.get(workload + "/" + size + (persistent ? "/persistent" : ""));
    }
}
