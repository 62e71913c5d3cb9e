package org.wharfmq.server.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * What a {@link HttpHandler} answers: a status, a content type, headers of its own and the body's bytes.
 *
 * @param status      the HTTP status
 * @param contentType the body's media type, with its charset for text
 * @param headers     more headers, by name (a message flow's reply's); the listener's own (Content-Length, Connection,
 *                    Transfer-Encoding) cannot be set here
 * @param body        the body
 */
public record HttpAnswer(int status, String contentType, Map<String, String> headers, byte[] body) {

    public HttpAnswer {
        headers = Map.copyOf(headers);
    }

    /** An answer with no headers of its own. */
    public HttpAnswer(int status, String contentType, byte[] body) {
        this(status, contentType, Map.of(), body);
    }

    /** The media type of JSON answers. */
    public static final String JSON = "application/json; charset=utf-8";
    /** The media type of plain text answers (refusals among them). */
    public static final String TEXT = "text/plain; charset=utf-8";

    private static final ObjectMapper MAPPER = new ObjectMapper();

    /** 200 with {@code value} as JSON (records, maps, lists, Jackson nodes). */
    public static HttpAnswer json(Object value) {
        try {
            return new HttpAnswer(200, JSON, MAPPER.writeValueAsBytes(value));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write " + value.getClass().getName() + " as JSON: " + e, e);
        }
    }

    /** 200 with {@code text} in {@code contentType} (UTF-8). */
    public static HttpAnswer text(String contentType, String text) {
        return new HttpAnswer(200, contentType, text.getBytes(StandardCharsets.UTF_8));
    }

    /** A refusal or error: {@code status} with {@code message} as plain text. */
    public static HttpAnswer refusal(int status, String message) {
        return new HttpAnswer(status, TEXT, (message + "\n").getBytes(StandardCharsets.UTF_8));
    }
}
