package org.wharfmq.flow;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * What went wrong in an invocation, as the nodes that saw it report it: the innermost (original) failure first.
 * Immutable. A TryCatch catch path and an input node's failure path receive it in the assembly; a message backed
 * out to a queue carries {@link #render()} in the property {@link #PROPERTY}.
 */
public final class ExceptionList {

    /** The message property that carries the rendered list on a backed-out or dead-lettered message. */
    public static final String PROPERTY = "WharfExceptionList";

    /** The empty list. */
    public static final ExceptionList EMPTY = new ExceptionList(List.of());

    /**
     * One failure.
     *
     * @param node      the node where it happened (its name in the flow)
     * @param nodeKind  the node's kind, e.g. {@code JavaCompute}
     * @param type      the exception's class name
     * @param text      the exception's message
     */
    public record Entry(String node, String nodeKind, String type, String text) {
        @Override
        public String toString() {
            return node + " (" + nodeKind + "): " + type + ": " + text;
        }
    }

    private final List<Entry> entries;

    private ExceptionList(List<Entry> entries) {
        this.entries = entries;
    }

    /** A list with one entry for {@code failure} raised in {@code node}. */
    public static ExceptionList of(Node node, Throwable failure) {
        return EMPTY.with(node, failure);
    }

    /** This list with one more entry: {@code failure} raised in {@code node}. */
    public ExceptionList with(Node node, Throwable failure) {
        return with(new Entry(node.name(), node.kind(), failure.getClass().getName(),
                String.valueOf(failure.getMessage())));
    }

    /** This list with one more entry (outermost last). */
    public ExceptionList with(Entry entry) {
        List<Entry> more = new ArrayList<>(entries.size() + 1);
        more.addAll(entries);
        more.add(entry);
        return new ExceptionList(Collections.unmodifiableList(more));
    }

    /** The entries, original failure first. */
    public List<Entry> entries() {
        return entries;
    }

    /** Whether nothing failed. */
    public boolean isEmpty() {
        return entries.isEmpty();
    }

    /** One line per entry, for a message property or a log. */
    public String render() {
        StringBuilder sb = new StringBuilder();
        for (Entry e : entries) {
            if (sb.length() > 0) {
                sb.append('\n');
            }
            sb.append(e);
        }
        return sb.toString();
    }

    @Override
    public String toString() {
        return "ExceptionList" + entries;
    }
}
