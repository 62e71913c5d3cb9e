package org.wharfmq.perf.flow;

import com.sun.net.httpserver.HttpServer;
import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.FlowFactory;
import org.wharfmq.flow.node.HttpInputNode;
import org.wharfmq.flow.node.HttpReplyNode;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.ToIntFunction;

/**
 * F-HTTP: HTTPInput → HTTPReply, the body a BLOB sent back unchanged (seed 002, "Reading and Writing messages over the
 * HTTP Transport"). The flow serves {@value #PATH} on the server's HTTP listener; the requesters are HTTP clients.
 */
public final class HttpFlow implements FlowFactory {

    /** The flow's name. */
    public static final String NAME = "F-HTTP";
    /** The path the flow serves. */
    public static final String PATH = HttpInputNode.PATH_PREFIX + "perf-http";
    /** The largest request the flow takes: seed 002's 8 MB rows, with room (the node's default is 1 MiB). */
    static final int MAX_REQUEST_BYTES = 16 << 20;

    @Override
    public FlowDefinition create() {
        return FlowDefinition.builder(NAME)
                .node("in", HttpInputNode.path(PATH).maxRequestBytes(MAX_REQUEST_BYTES))
                .node("reply", new HttpReplyNode())
                .wire("in", "out", "reply")
                .build();
    }

    /**
     * The ceiling: the same exchange with no broker: a JDK HTTP client on this thread POSTing the body to a JDK HTTP
     * server in this JVM that answers with it, over one persistent connection to 127.0.0.1 (TCP_NODELAY, as Wharf's
     * listener). Its CPU figure is this thread's, the client's: the server's handler thread is not counted.
     */
    static final class Loop implements ToIntFunction<byte[]>, AutoCloseable {
        private final HttpServer server;
        private final ExecutorService handlers = Executors.newSingleThreadExecutor();
        private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        private final URI uri;

        Loop() {
            // without it the JDK server's small writes wait for the client's delayed ACK (Nagle): 40 ms a round trip.
            // Read once, when the server's classes load; Wharf's listener (Netty) sets TCP_NODELAY itself
            System.setProperty("sun.net.httpserver.nodelay", "true");
            try {
                server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            server.createContext(PATH, exchange -> {
                try (InputStream in = exchange.getRequestBody(); OutputStream out = exchange.getResponseBody()) {
                    byte[] body = in.readAllBytes();
                    exchange.sendResponseHeaders(200, body.length);
                    out.write(body);
                }
            });
            server.setExecutor(handlers);
            server.start();
            uri = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + PATH);
        }

        @Override
        public int applyAsInt(byte[] body) {
            try {
                HttpResponse<byte[]> answer = client.send(HttpRequest.newBuilder(uri)
                        .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofByteArray());
                if (answer.statusCode() != 200) {
                    throw new IllegalStateException("the ceiling's echo server answered " + answer.statusCode());
                }
                return answer.body().length;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }

        @Override
        public void close() {
            server.stop(0);
            handlers.shutdownNow();
        }
    }
}
