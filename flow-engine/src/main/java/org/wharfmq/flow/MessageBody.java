package org.wharfmq.flow;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * A message body as it arrived (the bytes of a BytesMessage or the text of a TextMessage) plus, once a node asks,
 * its parsed tree. Shared by every copy of the message, so the body is parsed at most once per invocation and
 * never copied; it is never modified (a node that changes the body gets its own tree or bytes in
 * {@link FlowMessage}).
 */
final class MessageBody {

    /** Jackson's mapper is thread-safe once configured; one for every flow. */
    static final ObjectMapper JSON = new ObjectMapper();

    private final Domain domain;
    private final byte[] bytes;
    private final String text;
    private byte[] encodedText;
    private JsonNode tree;
    private int parseCount;

    private MessageBody(Domain domain, byte[] bytes, String text) {
        this.domain = domain;
        this.bytes = bytes;
        this.text = text;
    }

    static MessageBody ofBytes(Domain domain, byte[] bytes) {
        return new MessageBody(domain, bytes == null ? new byte[0] : bytes, null);
    }

    static MessageBody ofText(Domain domain, String text) {
        return new MessageBody(domain, null, text == null ? "" : text);
    }

    Domain domain() {
        return domain;
    }

    boolean isText() {
        return text != null;
    }

    byte[] bytes() {
        if (bytes != null) {
            return bytes;
        }
        if (encodedText == null) {
            encodedText = text.getBytes(StandardCharsets.UTF_8);
        }
        return encodedText;
    }

    String text() {
        return text != null ? text : new String(bytes, StandardCharsets.UTF_8);
    }

    JsonNode tree() {
        if (domain != Domain.JSON) {
            throw new IllegalStateException("The message body is in the " + domain + " domain, which is never parsed: "
                    + "set domain JSON on the input node to work with a JSON tree.");
        }
        if (tree == null) {
            try {
                tree = text != null ? JSON.readTree(text) : JSON.readTree(bytes);
            } catch (IOException e) {
                throw new UncheckedIOException("The message body is not valid JSON: " + e.getMessage(), e);
            }
            if (tree == null || tree.isMissingNode()) {
                tree = JSON.nullNode();
            }
            parseCount++;
        }
        return tree;
    }

    int parseCount() {
        return parseCount;
    }
}
