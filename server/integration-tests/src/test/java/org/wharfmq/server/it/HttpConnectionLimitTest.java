package org.wharfmq.server.it;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.http.HttpPlugin;
import org.wharfmq.server.http.HttpSettings;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The HTTP listener counts its connections against the server's limits (here maxConnectionsPerAddress 2), apart from
 * the wire's: callers that open connections and send nothing (slowloris) hold at most that many, and one more is
 * answered 503 naming the limit and closed, before it sends a byte; a place freed is taken again.
 */
class HttpConnectionLimitTest {

    private HttpPlugin http;
    private TestServer server;
    private final List<Socket> held = new ArrayList<>();

    @BeforeEach
    void start() throws Exception {
        http = new HttpPlugin(HttpSettings.on("127.0.0.1"));
        server = TestServer.start(c -> c.maxConnectionsPerAddress(2),
                config -> WharfServer.builder(config).plugins(http).start());
    }

    @AfterEach
    void stop() throws IOException {
        for (Socket socket : held) {
            socket.close();
        }
        server.close();
    }

    /**
     * What the listener answers {@code request} (none when null) on a new connection, until it closes it; a reset (a
     * connection refused while its request arrived) reads as "reset".
     */
    private String ask(String request) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", http.port())) {
            socket.setSoTimeout(30_000);
            if (request != null) {
                OutputStream out = socket.getOutputStream();
                out.write(request.getBytes(StandardCharsets.US_ASCII));
                out.flush();
            }
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        } catch (SocketException reset) {
            return "reset: " + reset.getMessage();
        }
    }

    @Test
    void connectionsPastTheLimitPerAddressAreAnswered503AndClosed() throws Exception {
        String request = "GET /nowhere HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
        assertTrue(ask(request).startsWith("HTTP/1.1 4"), "a place is free");
        held.add(new Socket("127.0.0.1", http.port())); // silent: they send nothing
        held.add(new Socket("127.0.0.1", http.port()));

        String refused = ask(null); // answered without having sent a byte
        assertTrue(refused.startsWith("HTTP/1.1 503 Service Unavailable\r\n"), refused);
        assertTrue(refused.endsWith("\r\n\r\nConnection from 127.0.0.1 refused: queue manager "
                + server.server().config().name() + " already has 2 connections from that address, its maximum"
                + " (setting maxConnectionsPerAddress). Close connections this address does not need, or raise"
                + " maxConnectionsPerAddress (clients behind one NAT or proxy share its address).\n"), refused);

        held.remove(0).close();
        String answer = refused;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!answer.startsWith("HTTP/1.1 4") && System.nanoTime() < deadline) {
            answer = ask(request); // refused until the listener has seen the close and freed the place
        }
        assertTrue(answer.startsWith("HTTP/1.1 4"), answer);
    }
}
