package org.wharfmq.server.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.LogCapture;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.admin.AdminPlugin;
import org.wharfmq.server.console.ConsolePlugin;
import org.wharfmq.server.http.HttpPlugin;
import org.wharfmq.server.http.HttpSettings;
import org.wharfmq.server.security.AuditLog;

import javax.jms.Connection;
import javax.jms.JMSException;
import javax.jms.QueueBrowser;
import javax.jms.Session;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A queue manager with its secure defaults (no security file: anonymous clients from this machine only) and the web
 * console, against a page of another site that a browser on the server's machine opened, and whose site's name was
 * then pointed at 127.0.0.1 (DNS rebinding): the page's scripts reach the HTTP listener from this machine, as requests
 * to their own site, with the console's header. They are refused, naming the host they named, and nothing is read or
 * changed; the console still answers callers that name this machine. Before, the listener went by the address alone:
 * the page read a queue's messages ({@code browse-queue}) and purged it.
 *
 * <p>Over a socket with the request a browser sends then, and in a real browser (Chromium told that
 * {@code evil.example} is 127.0.0.1, the name's address after the rebinding), where there is one.
 */
class DnsRebindingTest {

    /** The other site's name. */
    private static final String EVIL = "evil.example";
    private static final String SECRET = "the payroll of March";

    @TempDir
    static Path dir;

    private static final HttpPlugin http = new HttpPlugin(HttpSettings.on("127.0.0.1"));
    private static TestServer server;

    @BeforeAll
    static void start() throws Exception {
        server = TestServer.start(UnaryOperator.identity(), config -> {
            AdminPlugin admin = new AdminPlugin();
            return WharfServer.builder(config).plugins(admin, new ConsolePlugin(http, admin), http).start();
        });
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void aRequestNamingAnotherSiteIsRefusedAndReadsNothing() throws Exception {
        send("REBIND.SOCKET", SECRET);
        String host = EVIL + ":" + http.port();
        List<String> audit;
        String read;
        try (LogCapture capture = LogCapture.of(AuditLog.NAME)) {
            read = raw("GET /api/browse-queue?queue=REBIND.SOCKET HTTP/1.1\r\nHost: " + host + "\r\n"
                    + "Sec-Fetch-Site: same-origin\r\nConnection: close\r\n\r\n");
            audit = capture.messages();
        }
        assertTrue(read.startsWith("HTTP/1.1 403 Forbidden\r\n"), read);
        assertFalse(read.contains(SECRET), read);
        assertTrue(read.endsWith("\r\n\r\nQueue manager WHARF lets anonymous HTTP callers in from this machine only, and"
                + " this request, from 127.0.0.1, names the host '" + host + "' (its Host header), not this machine: a"
                + " page of another site that pointed its name at this machine (DNS rebinding) would send that, to use"
                + " the listener through a browser here. Call it by this machine's address (http://localhost:PORT/,"
                + " http://127.0.0.1:PORT/ or its host name), or add users (bin/wharf user add) and log in.\n"), read);
        assertTrue(audit.stream().anyMatch(line -> line.startsWith("login failed: user '' from /127.0.0.1:")
                && line.endsWith(" mechanism ANONYMOUS: an anonymous HTTP request from this machine names host '"
                + host + "' (its Host header), not this machine: refused, as a page of another site would send it"
                + " from a browser here after pointing its name at this machine (DNS rebinding)")), audit.toString());

        String body = "{\"queue\": \"REBIND.SOCKET\"}";
        String purge = raw("POST /api/clear-queue HTTP/1.1\r\nHost: " + host + "\r\nOrigin: http://" + host + "\r\n"
                + "Sec-Fetch-Site: same-origin\r\nX-Wharf-Console: 1\r\nContent-Type: application/json\r\n"
                + "Content-Length: " + body.length() + "\r\nConnection: close\r\n\r\n" + body);
        assertTrue(purge.startsWith("HTTP/1.1 403 Forbidden\r\n"), purge);
        assertEquals(1, browse("REBIND.SOCKET"), "the queue keeps its message");
    }

    @Test
    void callersNamingThisMachineStillUseTheConsole() throws Exception {
        send("REBIND.LOCAL", SECRET);
        String machine = InetAddress.getLocalHost().getHostName();
        for (String host : List.of("localhost:" + http.port(), "127.0.0.1:" + http.port(), "[::1]:" + http.port(),
                "LOCALHOST", machine + ":" + http.port())) {
            String read = raw("GET /api/browse-queue?queue=REBIND.LOCAL HTTP/1.1\r\nHost: " + host
                    + "\r\nConnection: close\r\n\r\n");
            assertTrue(read.startsWith("HTTP/1.1 200 OK\r\n"), host + ": " + read);
            assertTrue(read.contains(SECRET), host + ": " + read);
        }
    }

    /** In a real browser: the page's script, at http://evil.example:PORT, reads and purges nothing. */
    @Test
    void aBrowsersPageOfAnotherSiteReadsAndPurgesNothing() throws Exception {
        Chromium.assumePresent();
        send("REBIND.BROWSER", SECRET);
        WebDriver browser = Chromium.start(dir.resolve("chromium"), "--host-resolver-rules=MAP " + EVIL + " 127.0.0.1");
        try {
            browser.get("http://" + EVIL + ":" + http.port() + "/"); // what the page's script runs in: that origin
            Object read = ((JavascriptExecutor) browser).executeAsyncScript("""
                    const done = arguments[arguments.length - 1];
                    fetch('/api/browse-queue?queue=REBIND.BROWSER')
                        .then(r => r.text().then(t => done(r.status + ' ' + t)), e => done(String(e)));""");
            assertTrue(String.valueOf(read).startsWith("403 Queue manager WHARF lets anonymous HTTP callers in from"
                    + " this machine only"), String.valueOf(read));
            assertFalse(String.valueOf(read).contains(SECRET), String.valueOf(read));
            Object purged = ((JavascriptExecutor) browser).executeAsyncScript("""
                    const done = arguments[arguments.length - 1];
                    fetch('/api/clear-queue', {method: 'POST', headers: {'X-Wharf-Console': '1',
                            'Content-Type': 'application/json'}, body: JSON.stringify({queue: 'REBIND.BROWSER'})})
                        .then(r => done(r.status), e => done(String(e)));""");
            assertEquals(403L, purged);
            assertEquals(1, browse("REBIND.BROWSER"), "the queue keeps its message");

            browser.get("http://127.0.0.1:" + http.port() + "/"); // the console, called by this machine's address
            Object local = ((JavascriptExecutor) browser).executeAsyncScript("""
                    const done = arguments[arguments.length - 1];
                    fetch('/api/browse-queue?queue=REBIND.BROWSER')
                        .then(r => r.text().then(t => done(r.status + ' ' + t)), e => done(String(e)));""");
            assertTrue(String.valueOf(local).startsWith("200 ") && String.valueOf(local).contains(SECRET),
                    String.valueOf(local));
        } finally {
            browser.quit();
        }
    }

    /** Sends {@code text} to {@code queue} as an anonymous local client. */
    private static void send(String queue, String text) throws JMSException {
        try (Connection connection = connect()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            session.createProducer(session.createQueue(queue)).send(session.createTextMessage(text));
        }
    }

    /** How many messages a JMS browser sees on {@code queue}. */
    private static int browse(String queue) throws JMSException {
        try (Connection connection = connect()) {
            connection.start();
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            QueueBrowser browser = session.createBrowser(session.createQueue(queue));
            return Collections.list(browser.getEnumeration()).size();
        }
    }

    private static Connection connect() throws JMSException {
        return new WharfConnectionFactory(server.server().networkUrls().get(0)).createConnection();
    }

    /** Sends {@code request} on a socket of its own and returns what the listener answers before it closes. */
    private static String raw(String request) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", http.port())) {
            socket.setSoTimeout(30_000);
            socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
