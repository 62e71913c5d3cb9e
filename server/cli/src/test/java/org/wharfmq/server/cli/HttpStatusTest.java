package org.wharfmq.server.cli;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code wharf admin --url http(s)://...}: what is refused before anything is sent. */
class HttpStatusTest {

    private static ServerOption option(String url, String user) {
        ServerOption option = new ServerOption();
        option.url = url;
        option.user = user;
        return option;
    }

    @Test
    void aPasswordIsNeverSentInClearToAnotherHost() {
        // 192.0.2.1 (TEST-NET-1): nothing answers there, so only the refusal before sending can end this at once
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> HttpStatus.displayServer(option("http://192.0.2.1:8443", "bob")));
        assertTrue(refused.getMessage().contains("would send the password of user 'bob' in clear")
                && refused.getMessage().contains("use https://"), refused.getMessage());
    }

    @Test
    void plainHttpToThisMachinesLoopbackIsAllowedAndGoesOut() throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort(); // closed again: the request goes out and finds nobody
        }
        ServerOption option = option("http://127.0.0.1:" + port, "bob");
        option.passwordStdin = true;
        InputStream stdin = System.in;
        System.setIn(new ByteArrayInputStream("secret\n".getBytes(StandardCharsets.UTF_8)));
        try {
            assertThrows(IOException.class, () -> HttpStatus.displayServer(option),
                    "not refused before sending: the connection itself fails");
        } finally {
            System.setIn(stdin);
        }
    }

    @Test
    void aUrlWithoutAHostIsRefused() {
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> HttpStatus.displayServer(option("http:///status", null)));
        assertTrue(refused.getMessage().contains("names no host"), refused.getMessage());
    }
}
