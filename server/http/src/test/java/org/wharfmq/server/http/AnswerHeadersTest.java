package org.wharfmq.server.http;

import io.netty.handler.codec.http.HttpHeaders;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A handler's header whose value holds a CR or LF is never written as it is (it would end the header and start others):
 * building the response refuses it, and the listener answers 500 instead ({@code HttpRequestHandler.answer}). The
 * listener's security headers are its own whatever a handler's answer says (a flow's included: its paths share the
 * console's origin); a handler's other headers are added.
 */
class AnswerHeadersTest {

    @Test
    void aHeaderValueWithACrOrLfIsRefused() {
        for (String value : new String[] {"a\r\nSet-Cookie: session=evil", "a\nb", "a\rb"}) {
            HttpAnswer answer = new HttpAnswer(200, HttpAnswer.TEXT, Map.of("X-Echo", value), new byte[0]);
            assertThrows(IllegalArgumentException.class, () -> HttpRequestHandler.response(answer, true, null,
                    "Basic realm=\"WHARF\""), value);
        }
    }

    @Test
    void theListenersSecurityHeadersWinOverAnAnswersOwn() {
        HttpAnswer answer = new HttpAnswer(200, HttpAnswer.TEXT, Map.of("Content-Security-Policy",
                "script-src 'unsafe-inline'", "x-frame-options", "ALLOWALL", "X-Content-Type-Options", "sniff",
                "Referrer-Policy", "unsafe-url", "Cache-Control", "public, max-age=600", "X-Own", "kept"),
                new byte[0]);
        HttpHeaders headers = HttpRequestHandler.response(answer, true, null, "Basic realm=\"WHARF\"").headers();
        assertEquals(List.of(HttpRequestHandler.CONTENT_SECURITY_POLICY), headers.getAll("Content-Security-Policy"));
        assertEquals(List.of("DENY"), headers.getAll("X-Frame-Options"));
        assertEquals(List.of("nosniff"), headers.getAll("X-Content-Type-Options"));
        assertEquals(List.of("no-referrer"), headers.getAll("Referrer-Policy"));
        assertEquals(List.of("no-store"), headers.getAll("Cache-Control"));
        assertEquals(List.of("kept"), headers.getAll("X-Own"));
    }
}
