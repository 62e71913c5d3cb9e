package org.wharfmq.server.it;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.http.HttpAnswer;
import org.wharfmq.server.http.HttpPlugin;
import org.wharfmq.server.http.HttpSettings;
import org.wharfmq.server.security.Permission;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The HTTP listener holds the request bodies it reads at once, over all its connections, to
 * {@code http.maxInboundBodyBytes} (here 50,000 bytes; routes take 64 KiB each): a caller whose body would take them
 * past it while another's is on its way is answered 503 at once, naming the setting, and the connection goes on;
 * requests without a body and bodies that fit are served meanwhile; a body alone is read whatever its size; the
 * bytes come back when a body arrives whole or its connection is lost. (Before the bound, every connection could
 * hold a body up to its route's limit: 1,000 connections of one address, 1 GiB for a flow's 1 MiB path.) The
 * barrier that a body is on its way is the listener's own {@code 100 Continue} to its head.
 */
class HttpInboundBodiesTest {

    private static final long MAX = 50_000;
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    private HttpPlugin http;
    private TestServer server;

    @BeforeEach
    void start() throws Exception {
        http = new HttpPlugin(HttpSettings.on("127.0.0.1").maxInboundBodyBytes(MAX));
        http.routes().post("/test/size", Permission.MONITOR, call -> HttpAnswer.text(HttpAnswer.TEXT,
                call.body().length + " bytes"));
        http.routes().get("/test/ping", Permission.MONITOR, call -> HttpAnswer.text(HttpAnswer.TEXT, "pong"));
        server = TestServer.start(UnaryOperator.identity(),
                config -> WharfServer.builder(config).plugins(http).start());
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void bodiesOnTheirWayAreBoundedOverAllConnectionsAndOtherCallersGoOn() throws Exception {
        assertEquals("HTTP/1.1 200 OK 60000 bytes", ask(post(60_000)), "a body alone is read whatever its size");

        try (Socket uploading = new Socket("127.0.0.1", http.port())) {
            InputStream uploads = uploading(uploading, 60_000);

            String busy = answer(post(30_000));
            assertTrue(busy.startsWith("HTTP/1.1 503 "), busy);
            assertTrue(busy.endsWith("\r\n\r\nThe HTTP listener is busy reading request bodies: POST /test/size's "
                    + "30000 bytes would take the bodies it reads at once past 50000 bytes, its most (setting "
                    + "http.maxInboundBodyBytes), while other callers' bodies are on their way. Try again shortly, "
                    + "or raise http.maxInboundBodyBytes if the server's memory allows.\n"), busy);
            String chunked = answer("POST /test/size HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n"
                    + "\r\n4e20\r\n" + "c".repeat(20_000) + "\r\n0\r\n\r\n");
            assertTrue(chunked.startsWith("HTTP/1.1 503 ") && chunked.contains("setting http.maxInboundBodyBytes"),
                    chunked);
            HttpResponse<String> ping = CLIENT.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                    + http.port() + "/test/ping")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, ping.statusCode(), "a request without a body is served meanwhile");
            assertEquals("pong", ping.body());

            OutputStream out = uploading.getOutputStream();
            out.write("u".repeat(60_000).getBytes(StandardCharsets.US_ASCII));
            out.flush();
            assertEquals("HTTP/1.1 200 OK 60000 bytes", summary(read(uploads)), "the upload on its way is served");
        }
        assertEquals("HTTP/1.1 200 OK 30000 bytes", ask(post(30_000)), "its bytes were given back once it arrived");
    }

    @Test
    void aConnectionLostWithItsBodyOnItsWayGivesItsBytesBack() throws Exception {
        try (Socket uploading = new Socket("127.0.0.1", http.port())) {
            uploading(uploading, 60_000);
            uploading.getOutputStream().write("u".repeat(1_000).getBytes(StandardCharsets.US_ASCII));
            uploading.getOutputStream().flush();
            assertTrue(answer(post(30_000)).startsWith("HTTP/1.1 503 "), "the upload holds its 60000 bytes");
        }
        String answer = "";
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!answer.startsWith("HTTP/1.1 200") && System.nanoTime() < deadline) {
            answer = ask(post(30_000)); // 503 until the listener has seen the close and given the bytes back
        }
        assertEquals("HTTP/1.1 200 OK 30000 bytes", answer);
    }

    /** Sends a head declaring {@code length} bytes and asking to be told to continue; returns once it is told. */
    private InputStream uploading(Socket socket, int length) throws IOException {
        socket.setSoTimeout(30_000);
        OutputStream out = socket.getOutputStream();
        out.write(("POST /test/size HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: " + length
                + "\r\nExpect: 100-continue\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
        InputStream in = new BufferedInputStream(socket.getInputStream());
        String told = read(in);
        assertTrue(told.startsWith("HTTP/1.1 100 Continue\r\n"), "the listener reads its body: " + told);
        return in;
    }

    private static String post(int bytes) {
        return "POST /test/size HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: " + bytes + "\r\n\r\n"
                + "p".repeat(bytes);
    }

    /** {@code request}'s answer on a connection of its own, as "HTTP/1.1 200 OK body". */
    private String ask(String request) throws IOException {
        return summary(answer(request));
    }

    /** {@code request}'s whole answer (head and body) on a connection of its own, kept alive until it is read. */
    private String answer(String request) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", http.port())) {
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            out.write(request.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            return read(new BufferedInputStream(socket.getInputStream()));
        }
    }

    /** One answer: its head, and its body by its Content-Length. */
    private static String read(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        int b;
        while (!head.toString().endsWith("\r\n\r\n") && (b = in.read()) != -1) {
            head.append((char) b);
        }
        int length = 0;
        for (String line : head.toString().split("\r\n")) {
            if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                length = Integer.parseInt(line.substring("content-length:".length()).trim());
            }
        }
        return head + new String(in.readNBytes(length), StandardCharsets.UTF_8);
    }

    private static String summary(String answer) {
        int end = answer.indexOf("\r\n\r\n");
        return answer.substring(0, answer.indexOf("\r\n")) + " " + answer.substring(end + 4);
    }
}
