package org.wharfmq.server.http;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A handler's header whose value holds a CR or LF is never written as it is (it would end the header and start others):
 * building the response refuses it, and the listener answers 500 instead ({@code HttpRequestHandler.answer}).
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
}
