package org.wharfmq.flow.node;

import org.wharfmq.flow.FlowContext;
import org.wharfmq.flow.HttpExchange;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.Node;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Answers the HTTP request the invocation began with (at an {@link HttpInputNode}), as App Connect's HTTP Reply node:
 * the body is the message's body as its domain writes it, the status {@link #STATUS} of the LocalEnvironment (default
 * 200), the headers {@link #HEADERS} (a {@code Content-Type} there wins over the domain's: JSON
 * {@code application/json}, XML {@code application/xml}, BLOB {@code application/octet-stream}). The answer goes to
 * the caller once the invocation has committed (so a flow that fails after replying answers 500, not the reply); the
 * assembly then goes on to {@code out}.
 *
 * <p><b>A request of another invocation</b> (coordinated request/reply): when the LocalEnvironment or the message (a
 * user property) has an {@link HttpInputNode#REQUEST_ID} that is not the invocation's own request's, the node answers
 * that request, of any flow of the server whose HTTPInput node {@link HttpInputNode#replyLater replies later}, once
 * this invocation commits. An identifier no request waits with (unknown, answered, timed out) is logged and the reply
 * dropped; the assembly goes on to {@code out} all the same.
 *
 * <p>No request to answer (the invocation began elsewhere and the message has no identifier), a request answered
 * already (its timeout's 504, or another HTTPReply), a status outside 200-599, or a header that is not one (a name
 * that is not an HTTP token, a value with a control character: a CR or LF would let the value write headers of its
 * own), or a header the HTTP listener sets on every answer ({@link #LISTENER_HEADERS}) go to {@code failure}, or fail
 * the path when it is unwired.
 *
 * <p><b>The listener's security headers are not a flow's to change.</b> A flow's paths share the web console's
 * origin (the listener's scheme, host and port), so the Content-Security-Policy, X-Frame-Options,
 * X-Content-Type-Options, Referrer-Policy and Cache-Control the listener sets on every answer keep the console safe
 * from what a flow answers: a flow may add headers of its own, not replace those (the listener keeps its own
 * whatever an answer says, and this node refuses a reply that names one, so that its flow learns why).
 */
public final class HttpReplyNode extends Node {

    /** LocalEnvironment field: the answer's status (an Integer, 200 to 599; default 200). */
    public static final String STATUS = "HttpReplyStatus";
    /** LocalEnvironment field: the answer's headers, a {@code Map<String, ?>} of a String (or a List of them) each. */
    public static final String HEADERS = "HttpReplyHeaders";

    /**
     * The headers the HTTP listener sets on every answer, lower case, which a reply may not name: the security
     * headers (docs/security.md, "HTTP answers' security headers") and those of the message's framing.
     */
    public static final Set<String> LISTENER_HEADERS = Set.of("content-security-policy", "x-frame-options",
            "x-content-type-options", "referrer-policy", "cache-control", "content-length", "transfer-encoding",
            "connection", "www-authenticate");

    private static final System.Logger LOG = System.getLogger(HttpReplyNode.class.getName());

    public HttpReplyNode() {
        super("HTTPReply", List.of("in"), List.of("out", "failure"));
    }

    @Override
    public void receive(String terminal, MessageAssembly assembly, FlowContext context) throws Exception {
        try {
            HttpExchange.Reply reply = reply(assembly);
            HttpExchange own = context.httpExchange();
            String id = requestId(assembly);
            if (own != null && (id == null || id.equals(own.id()))) {
                own.reply(reply);
            } else if (id == null) {
                throw new IllegalStateException("no HTTP request to reply to: the invocation did not begin at an "
                        + "HTTPInput node, and neither the LocalEnvironment nor the message has a "
                        + HttpInputNode.REQUEST_ID + ".");
            } else if (!context.replyTo(id, reply)) {
                // unknown, answered or timed out: no one waits for it, so it goes to no one
                LOG.log(System.Logger.Level.WARNING, this + " in flow '" + context.flowName() + "': no HTTP request "
                        + "with identifier " + id + " waits for a reply (it timed out, was answered, or is not of "
                        + "this server): the reply (status " + reply.status() + ") is dropped.");
            }
        } catch (IllegalStateException | IllegalArgumentException e) {
            propagateFailure(assembly, e, context);
            return;
        }
        context.propagate(this, "out", assembly);
    }

    /** The identifier of the request to answer: the LocalEnvironment's, else the message's; null when neither. */
    private static String requestId(MessageAssembly assembly) {
        Object id = assembly.localEnvironment().get(HttpInputNode.REQUEST_ID);
        if (id == null) {
            id = assembly.message().userProperty(HttpInputNode.REQUEST_ID);
        }
        return id == null ? null : id.toString();
    }

    private static HttpExchange.Reply reply(MessageAssembly assembly) {
        Object statusField = assembly.localEnvironment().get(STATUS);
        int status = statusField == null ? 200 : statusField instanceof Number n ? n.intValue()
                : Integer.parseInt(statusField.toString().trim());
        if (status < 200 || status > 599) {
            throw new IllegalArgumentException("LocalEnvironment." + STATUS + " must be an HTTP status from 200 to 599, "
                    + "was " + statusField + ".");
        }
        Map<String, String> headers = new LinkedHashMap<>();
        Object headerField = assembly.localEnvironment().get(HEADERS);
        if (headerField instanceof Map<?, ?> map) {
            map.forEach((name, value) -> {
                if (value != null) {
                    headers.put(String.valueOf(name), value instanceof List<?> values
                            ? values.stream().map(String::valueOf).collect(Collectors.joining(", "))
                            : String.valueOf(value));
                }
            });
        } else if (headerField != null) {
            throw new IllegalArgumentException("LocalEnvironment." + HEADERS + " must be a Map of header name to value, "
                    + "not a " + headerField.getClass().getName() + ".");
        }
        String contentType = HttpRequestNode.contentType(assembly.message().domain());
        for (var it = headers.entrySet().iterator(); it.hasNext(); ) {
            var header = it.next();
            checkHeader(header.getKey(), header.getValue());
            if (header.getKey().equalsIgnoreCase("Content-Type")) {
                contentType = header.getValue();
                it.remove();
            }
        }
        return new HttpExchange.Reply(status, contentType, headers, assembly.message().bodyBytes());
    }

    /**
     * Refuses a reply header that is not one: a name that is not an HTTP token, or a value that is not one line of
     * text. Its values often come from the message (what a caller sent), and a CR or LF in one would end the header
     * and start others of the caller's making (a cookie, a redirect) or a second response.
     *
     * @throws IllegalArgumentException naming the header, what is wrong and the fix
     */
    private static void checkHeader(String name, String value) {
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || "!#$%&'*+-.^_`|~".indexOf(c)
                    >= 0)) {
                throw new IllegalArgumentException("LocalEnvironment." + HEADERS + " names a header with "
                        + String.format("U+%04X", (int) c) + " at position " + (i + 1) + " of its name: a header's name"
                        + " is letters, digits and !#$%&'*+-.^_`|~ only.");
            }
        }
        if (name.isEmpty()) {
            throw new IllegalArgumentException("LocalEnvironment." + HEADERS + " names a header with an empty name.");
        }
        if (LISTENER_HEADERS.contains(name.toLowerCase(Locale.ROOT))) {
            throw new IllegalArgumentException("LocalEnvironment." + HEADERS + " names header '" + name + "', which the"
                    + " HTTP listener sets on every answer itself: a flow's paths share the web console's origin, so"
                    + " its security headers (Content-Security-Policy, X-Frame-Options, X-Content-Type-Options,"
                    + " Referrer-Policy, Cache-Control) and the message's framing stay the listener's. Take '" + name
                    + "' out of " + HEADERS + "; a flow may add headers of its own.");
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < 0x20 && c != '\t' || c == 0x7f) {
                throw new IllegalArgumentException("Header '" + name + "' of LocalEnvironment." + HEADERS + " holds"
                        + " the control character " + String.format("U+%04X", (int) c) + " at position " + (i + 1) + " of"
                        + " its value: a header's value is one line of text (a CR or LF would end it, and what follows"
                        + " would be headers of the message's making). Take the control characters out of the value,"
                        + " or encode it (URL-encoded, Base64).");
            }
        }
    }
}
