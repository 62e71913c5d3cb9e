package org.wharfmq.flow.node;

import org.wharfmq.flow.FlowContext;
import org.wharfmq.flow.FlowMessage;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.Node;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * Writes the assembly (properties, headers, user properties, LocalEnvironment, Environment, ExceptionList and
 * the body, cut at 1 KiB) to a file or to the log, then propagates to {@code out}. Writing is switched on and off
 * while the flow runs ({@code wharf flow trace NAME on|off}); when off the node only propagates.
 */
public final class TraceNode extends Node {

    private static final System.Logger LOG = System.getLogger(TraceNode.class.getName());
    private static final int BODY_LIMIT = 1024;

    private final Path file;

    private TraceNode(Path file) {
        super("Trace", List.of("in"), List.of("out"));
        this.file = file;
    }

    /** Traces to the log (System.Logger, level INFO). */
    public static TraceNode toLog() {
        return new TraceNode(null);
    }

    /** Traces to a file, appending. */
    public static TraceNode toFile(Path file) {
        return new TraceNode(file);
    }

    @Override
    public Map<String, Object> properties() {
        return Map.of("destination", file == null ? "log" : file.toString());
    }

    @Override
    public void receive(String terminal, MessageAssembly assembly, FlowContext context) throws Exception {
        if (context.traceEnabled()) {
            String text = describe(context.flowName(), assembly);
            if (file == null) {
                LOG.log(System.Logger.Level.INFO, text);
            } else {
                append(text);
            }
        }
        context.propagate(this, "out", assembly);
    }

    private synchronized void append(String text) {
        try {
            Files.writeString(file, text + System.lineSeparator(), StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("Trace node '" + name() + "' cannot write " + file + ": " + e, e);
        }
    }

    private String describe(String flow, MessageAssembly assembly) {
        FlowMessage message = assembly.message();
        StringBuilder sb = new StringBuilder(256);
        sb.append("Trace ").append(flow).append('.').append(name()).append(':')
                .append("\n  Properties ").append(message.properties().asMap())
                .append("\n  Headers ").append(message.headers().asMap())
                .append("\n  UserProperties ").append(message.userProperties().asMap())
                .append("\n  LocalEnvironment ").append(assembly.localEnvironment().asMap())
                .append("\n  Environment ").append(assembly.environment().asMap())
                .append("\n  ExceptionList ").append(assembly.exceptionList().entries())
                .append("\n  Body (").append(message.domain()).append(") ");
        if (message.isTextBody() || message.isBodyChanged()) {
            String text = message.bodyText();
            sb.append(text.length() > BODY_LIMIT ? text.substring(0, BODY_LIMIT) + "..." : text);
        } else {
            byte[] bytes = message.bodyBytes();
            sb.append(bytes.length).append(" bytes ")
                    .append(HexFormat.of().formatHex(bytes, 0, Math.min(bytes.length, BODY_LIMIT)));
        }
        return sb.toString();
    }
}
