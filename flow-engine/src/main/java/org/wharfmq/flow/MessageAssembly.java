package org.wharfmq.flow;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * What a node receives: the {@link FlowMessage}, the LocalEnvironment (per message: scratch data and the
 * destination list; a copy of the assembly copies it, so changes made downstream are gone when propagation
 * returns), the Environment (one per invocation, always writable, shared by every assembly of the invocation, so
 * it survives backtracking) and the {@link ExceptionList}.
 *
 * <p>A node's input is read-only. A node that changes the message works on {@link #copy()}, which shares every
 * part with the input until the copy writes to it (copy-on-write). Propagating an assembly freezes it: what a
 * node has passed on cannot change under the nodes downstream.
 */
public final class MessageAssembly {

    /** LocalEnvironment field holding the destination list: a {@code List<String>} of queue names. */
    public static final String DESTINATIONS = "Destinations";

    private final FlowMessage message;
    private final Folder localEnvironment;
    private final Folder environment;
    private final ExceptionList exceptionList;
    private boolean readOnly;

    private MessageAssembly(FlowMessage message, Folder localEnvironment, Folder environment,
                            ExceptionList exceptionList) {
        this.message = message;
        this.localEnvironment = localEnvironment;
        this.environment = environment;
        this.exceptionList = exceptionList;
    }

    /**
     * A new writable assembly for {@code message}, with an empty LocalEnvironment and ExceptionList, in the
     * invocation whose Environment is {@code environment}.
     */
    public static MessageAssembly of(FlowMessage message, Folder environment) {
        return new MessageAssembly(message, Folder.empty("LocalEnvironment"), environment, ExceptionList.EMPTY);
    }

    /** The message. */
    public FlowMessage message() {
        return message;
    }

    /** Per-message scratch data and the destination list. */
    public Folder localEnvironment() {
        return localEnvironment;
    }

    /** Per-invocation data, shared by all assemblies of the invocation and always writable. */
    public Folder environment() {
        return environment;
    }

    /** The failures that led here (empty on a normal path). */
    public ExceptionList exceptionList() {
        return exceptionList;
    }

    /** Whether this assembly refuses changes (a node's input). */
    public boolean isReadOnly() {
        return readOnly;
    }

    /** A writable copy; unchanged parts stay shared with this assembly (copy-on-write). */
    public MessageAssembly copy() {
        return new MessageAssembly(message.copy(), localEnvironment.copy(), environment, exceptionList);
    }

    /** A writable assembly carrying a new message, with a copy of this LocalEnvironment (e.g. a reply built from scratch). */
    public MessageAssembly withMessage(FlowMessage newMessage) {
        return new MessageAssembly(newMessage, localEnvironment.copy(), environment, exceptionList);
    }

    /** A read-only assembly sharing this one's parts, with {@code list} as its ExceptionList. */
    public MessageAssembly withExceptionList(ExceptionList list) {
        MessageAssembly assembly = new MessageAssembly(message.copy(), localEnvironment.copy(), environment, list);
        assembly.freeze();
        return assembly;
    }

    /** The destination list in the LocalEnvironment: queue names an Output node in destination-list mode sends to. */
    @SuppressWarnings("unchecked")
    public List<String> destinations() {
        Object list = localEnvironment.get(DESTINATIONS);
        return list == null ? List.of() : (List<String>) list;
    }

    /** Adds a queue to the destination list (the assembly must be writable). */
    public MessageAssembly addDestination(String queue) {
        List<String> more = new ArrayList<>(destinations());
        more.add(queue);
        localEnvironment.set(DESTINATIONS, Collections.unmodifiableList(more));
        return this;
    }

    /**
     * Makes this assembly read-only for good (the Environment excepted). The runtime calls it on every assembly a
     * node propagates; calling it again does nothing.
     */
    public void freeze() {
        if (!readOnly) {
            readOnly = true;
            message.freeze();
            localEnvironment.freeze();
        }
    }

    @Override
    public String toString() {
        return "MessageAssembly[" + message + ", " + localEnvironment + ", " + environment + ", " + exceptionList + "]";
    }
}
