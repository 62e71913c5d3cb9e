package org.wharfmq.server.metrics;

import org.wharfmq.server.WharfServer;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.http.HttpPlugin;
import org.wharfmq.server.http.HttpSettings;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * How long {@code GET /metrics} takes with many queues: a server with QUEUES queues defined in its configuration,
 * scraped SCRAPES times one after another over HTTP; prints the median, the fastest and the slowest scrape and the
 * answer's size, then the {@code # HELP} lines of Wharf's own meters (what docs/operations.md lists).
 *
 * <pre>java -cp ... org.wharfmq.server.metrics.MetricsScrapeBenchmark DATA_DIR [QUEUES] [SCRAPES]</pre>
 */
public final class MetricsScrapeBenchmark {

    private MetricsScrapeBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        Path data = Files.createTempDirectory(Files.createDirectories(Path.of(args[0])), "scrape-");
        int queues = args.length > 1 ? Integer.parseInt(args[1]) : 10_000;
        int scrapes = args.length > 2 ? Integer.parseInt(args[2]) : 20;
        ServerConfig.Builder config = ServerConfig.builder().port(0).host("127.0.0.1").inVmName("scrape")
                .dataDirectory(data).maxQueues(queues + 100);
        for (int i = 0; i < queues; i++) {
            config.queue("APP.QUEUE." + i);
        }
        HttpPlugin http = new HttpPlugin(HttpSettings.on("127.0.0.1"));
        try (WharfServer server = WharfServer.start(config.build(), new MetricsPlugin(http.routes(), null, null, null), http)) {
            HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            HttpRequest scrape = HttpRequest.newBuilder(URI.create(http.url() + MetricsPlugin.PATH)).build();
            long[] millis = new long[scrapes];
            String body = "";
            for (int i = 0; i < scrapes; i++) {
                long start = System.nanoTime();
                HttpResponse<String> answer = client.send(scrape, HttpResponse.BodyHandlers.ofString());
                millis[i] = (System.nanoTime() - start) / 1_000_000;
                body = answer.body();
                if (answer.statusCode() != 200) {
                    throw new IllegalStateException(answer.statusCode() + " " + body);
                }
            }
            long[] sorted = millis.clone();
            Arrays.sort(sorted);
            System.out.printf("%d queues (%d in the server), %d scrapes: median %d ms, min %d ms, max %d ms, %d bytes, "
                            + "first %d ms%n", queues, server.management().server().queues(), scrapes,
                    sorted[scrapes / 2], sorted[0], sorted[scrapes - 1], body.length(), millis[0]);
            body.lines().filter(l -> l.startsWith("# HELP wharf_")).forEach(System.out::println);
        }
    }
}
