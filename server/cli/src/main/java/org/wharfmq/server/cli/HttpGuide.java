package org.wharfmq.server.cli;

import org.wharfmq.server.http.HttpPlugin;
import org.wharfmq.server.http.HttpRoutes;

import java.util.ArrayList;
import java.util.List;

/**
 * The lines under the ready line of a queue manager with an HTTP listener: where a newcomer on this machine finds
 * what it serves (the web console, the admin API, the metrics, the flows' paths), each as a URL to open, and the doc
 * that says more. Only what is registered is listed: a flow deployed later adds its path then.
 */
final class HttpGuide {

    private HttpGuide() {
    }

    /** The lines for {@code http}; none when it does not listen. */
    static List<String> lines(HttpPlugin http) {
        String url = http.localUrl();
        if (url == null) {
            return List.of();
        }
        HttpRoutes routes = http.routes();
        List<String> lines = new ArrayList<>();
        if (routes.serves("GET", "/")) {
            lines.add("web console   " + url + "/ (docs/operations.md, \"Web console\")");
        }
        if (routes.serves("GET", "/api/display-server")) {
            lines.add("admin API     " + url + "/api/COMMAND, e.g. " + url + "/api/display-queues (docs/operations.md, "
                    + "\"Web console\")");
        }
        if (routes.serves("GET", "/metrics")) {
            lines.add("metrics       " + url + "/metrics (Prometheus; docs/operations.md, \"Metrics\")");
        }
        List<String> flows = routes.servedPaths();
        if (!flows.isEmpty()) {
            lines.add("flows' paths  " + String.join(", ", flows.stream().map(path -> url + path).toList())
                    + " (docs/flows.md, \"HTTP input and reply nodes\")");
        }
        return lines;
    }
}
