package org.wharfmq.perf.driver;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Arrays;

/**
 * Not JMSPerfHarness's: an HTTP client (the JDK's, HTTP/1.1, persistent connections as the seed's test had) that POSTs
 * the body to the URL of {@code -iq} and waits for the answer: a round trip per operation. The answer must be a 200
 * carrying the body back unchanged (the F-HTTP flow echoes it); any other answer is counted as a loss, naming what
 * came back. No JMS connection is held.
 */
final class HttpRequestor extends Worker {

    private final byte[] body;
    private HttpClient client;
    private HttpRequest request;

    HttpRequestor(WorkerSetup setup) {
        super(setup);
        this.body = setup.bodies().bytes();
    }

    @Override
    boolean holdsConnection() {
        return false;
    }

    @Override
    void open() {
        client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build(); // one connection per worker
        request = HttpRequest.newBuilder(URI.create(options.requestQueue()))
                .timeout(java.time.Duration.ofMillis(receiveTimeoutMillis))
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
    }

    @Override
    void iterate() {
        try {
            HttpResponse<byte[]> answer = client.send(request, HttpResponse.BodyHandlers.ofByteArray());
            if (answer.statusCode() != 200 || !Arrays.equals(body, answer.body())) {
                control.loss("POST " + request.uri() + " answered " + answer.statusCode() + " with " + answer.body().length
                        + " bytes (expected 200 and the " + body.length + " bytes sent)");
                return;
            }
        } catch (IOException e) {
            control.loss("POST " + request.uri() + " failed: " + e);
            return;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        recordLatency(dueNanos);
        control.iterationDone();
    }
}
