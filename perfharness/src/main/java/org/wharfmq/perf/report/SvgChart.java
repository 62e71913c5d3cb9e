package org.wharfmq.perf.report;

import org.wharfmq.perf.workload.StepResult;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.ToIntFunction;

/**
 * A chart of rate (left axis, solid lines) and p99 round-trip latency (right axis, dashed lines) against the
 * client count (or a flow's instances), one colour per target, as a self-contained SVG file.
 */
public final class SvgChart {

    private static final int WIDTH = 760;
    private static final int HEIGHT = 420;
    private static final int LEFT = 80;
    private static final int RIGHT = 80;
    private static final int TOP = 50;
    private static final int BOTTOM = 60;
    private static final String[] COLOURS = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd"};

    private SvgChart() {
    }

    /**
     * The chart of {@code series} (target name → its steps at one message size) against {@code x} (the client
     * count; a flow's instances), whose axis is labelled {@code xLabel}.
     */
    public static String render(String title, String unit, Map<String, List<StepResult>> series,
                                ToIntFunction<StepResult> x, String xLabel) {
        TreeSet<Integer> clientSet = new TreeSet<>();
        double maxRate = 1;
        double maxLatencyMs = 0.001;
        for (List<StepResult> steps : series.values()) {
            for (StepResult s : steps) {
                clientSet.add(x.applyAsInt(s));
                maxRate = Math.max(maxRate, s.medianRate());
                maxLatencyMs = Math.max(maxLatencyMs, s.latencyMicros().p99() / 1000.0);
            }
        }
        List<Integer> clients = new ArrayList<>(clientSet);
        maxRate = niceCeiling(maxRate);
        maxLatencyMs = niceCeiling(maxLatencyMs);
        int plotW = WIDTH - LEFT - RIGHT;
        int plotH = HEIGHT - TOP - BOTTOM;
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                + "font-family=\"sans-serif\" font-size=\"12\">%n", WIDTH, HEIGHT));
        svg.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"25\" font-size=\"15\" text-anchor=\"middle\">%s</text>%n",
                WIDTH / 2, escape(title)));
        for (int i = 0; i <= 5; i++) {
            double y = TOP + plotH - plotH * i / 5.0;
            svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>%n", LEFT, y, LEFT + plotW, y));
            svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%,.0f</text>%n", LEFT - 6, y + 4, maxRate * i / 5));
            svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\">%.2f</text>%n", LEFT + plotW + 6, y + 4, maxLatencyMs * i / 5));
        }
        for (int i = 0; i < clients.size(); i++) {
            double px = xOf(i, clients.size(), plotW);
            svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d</text>%n", px, TOP + plotH + 18, clients.get(i)));
        }
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>%n", LEFT + plotW / 2, HEIGHT - 15, escape(xLabel)));
        svg.append(String.format(Locale.ROOT, "<text transform=\"translate(18,%d) rotate(-90)\" text-anchor=\"middle\">%s (solid)</text>%n", TOP + plotH / 2, escape(unit)));
        svg.append(String.format(Locale.ROOT, "<text transform=\"translate(%d,%d) rotate(90)\" text-anchor=\"middle\">p99 latency ms (dashed)</text>%n", WIDTH - 18, TOP + plotH / 2));
        svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#333\"/>%n", LEFT, TOP, plotW, plotH));
        int c = 0;
        for (Map.Entry<String, List<StepResult>> e : series.entrySet()) {
            String colour = COLOURS[c % COLOURS.length];
            StringBuilder rate = new StringBuilder();
            StringBuilder latency = new StringBuilder();
            for (StepResult s : e.getValue()) {
                if (s.unavailable() != null) {
                    continue;
                }
                double px = xOf(clients.indexOf(x.applyAsInt(s)), clients.size(), plotW);
                double yRate = TOP + plotH - plotH * s.medianRate() / maxRate;
                double yLatency = TOP + plotH - plotH * (s.latencyMicros().p99() / 1000.0) / maxLatencyMs;
                rate.append(String.format(Locale.ROOT, "%.1f,%.1f ", px, yRate));
                latency.append(String.format(Locale.ROOT, "%.1f,%.1f ", px, yLatency));
                svg.append(String.format(Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>%n", px, yRate, colour));
            }
            svg.append(String.format(Locale.ROOT, "<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>%n", rate.toString().trim(), colour));
            svg.append(String.format(Locale.ROOT, "<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" stroke-dasharray=\"6,4\"/>%n", latency.toString().trim(), colour));
            svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" fill=\"%s\">%s</text>%n", LEFT + 10 + 110 * c, TOP - 8, colour, escape(e.getKey())));
            c++;
        }
        svg.append("</svg>\n");
        return svg.toString();
    }

    private static double xOf(int index, int count, int plotW) {
        return count == 1 ? LEFT + plotW / 2.0 : LEFT + 20 + (plotW - 40) * index / (double) (count - 1);
    }

    private static double niceCeiling(double v) {
        double magnitude = Math.pow(10, Math.floor(Math.log10(v)));
        for (double step : new double[] {1, 2, 2.5, 5, 10}) {
            if (step * magnitude >= v) {
                return step * magnitude;
            }
        }
        return 10 * magnitude;
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
