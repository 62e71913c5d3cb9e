package org.wharfmq.flow;

import org.wharfmq.flow.node.FileInputNode;
import org.wharfmq.flow.node.HttpInputNode;
import org.wharfmq.flow.node.InputNode;
import org.wharfmq.flow.node.JmsInputNode;
import org.wharfmq.flow.node.LabelNode;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A validated message flow: named nodes and the wires joining an output terminal of one node to an input terminal
 * of another. Built in Java:
 *
 * <pre>{@code
 * FlowDefinition flow = FlowDefinition.builder("orders")
 *         .node("in", InputNode.queue("ORDERS.IN").domain(Domain.JSON))
 *         .node("enrich", new EnrichOrder())
 *         .node("out", OutputNode.queue("ORDERS.OUT"))
 *         .wire("in", "out", "enrich")
 *         .wire("enrich", "out", "out")
 *         .build();
 * }</pre>
 *
 * Immutable once built; one definition (and its node objects) serves every instance of the flow.
 */
public final class FlowDefinition {

    /**
     * One end of a wire: a node and one of its input terminals.
     *
     * @param node     the receiving node
     * @param terminal its input terminal
     */
    public record Target(Node node, String terminal) {
    }

    /**
     * A wire as written in the definition.
     *
     * @param from         the sending node's name
     * @param fromTerminal its output terminal
     * @param to           the receiving node's name
     * @param toTerminal   its input terminal
     */
    public record Wire(String from, String fromTerminal, String to, String toTerminal) {
        @Override
        public String toString() {
            return from + "." + fromTerminal + " -> " + to + "." + toTerminal;
        }
    }

    private final String name;
    private final Map<String, Node> nodes;
    private final List<Wire> wires;
    private final Map<Node, Map<String, List<Target>>> targets;
    private final Map<String, LabelNode> labels;

    private FlowDefinition(String name, Map<String, Node> nodes, List<Wire> wires,
                           Map<Node, Map<String, List<Target>>> targets, Map<String, LabelNode> labels) {
        this.name = name;
        this.nodes = nodes;
        this.wires = wires;
        this.targets = targets;
        this.labels = labels;
    }

    /** Starts a flow definition. */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    /** The flow's name. */
    public String name() {
        return name;
    }

    /** The nodes by name, in definition order. */
    public Map<String, Node> nodes() {
        return nodes;
    }

    /** The wires, in definition order. */
    public List<Wire> wires() {
        return wires;
    }

    /** The input nodes: each is served by its own instances. */
    public List<InputNode> inputNodes() {
        List<InputNode> inputs = new ArrayList<>();
        for (Node node : nodes.values()) {
            if (node instanceof InputNode input) {
                inputs.add(input);
            }
        }
        return inputs;
    }

    /** Whether any of the flow's nodes may block its thread ({@link Node#mayBlock}: a database, HTTP, file, JMS node). */
    public boolean mayBlock() {
        for (Node node : nodes.values()) {
            if (node.mayBlock()) {
                return true;
            }
        }
        return false;
    }

    /** Where {@code node}'s output {@code terminal} leads (empty when unwired). */
    public List<Target> targets(Node node, String terminal) {
        Map<String, List<Target>> byTerminal = targets.get(node);
        if (byTerminal == null) {
            return List.of();
        }
        List<Target> list = byTerminal.get(terminal);
        return list == null ? List.of() : list;
    }

    /** The Label node for {@code label}, or null. */
    public LabelNode label(String label) {
        return labels.get(label);
    }

    @Override
    public String toString() {
        return "Flow '" + name + "' " + nodes.values() + " " + wires;
    }

    /** Collects nodes and wires; {@link #build()} validates them. Not thread-safe. */
    public static final class Builder {

        private final String name;
        private final Map<String, Node> nodes = new LinkedHashMap<>();
        private final List<Wire> wires = new ArrayList<>();

        private Builder(String name) {
            if (name == null || name.isBlank()) {
                throw new FlowValidationException("A flow needs a name.");
            }
            this.name = name;
        }

        /**
         * Adds a node under a name unique in the flow.
         *
         * @throws FlowValidationException when the name is taken or the node object is already used
         */
        public Builder node(String nodeName, Node node) {
            if (nodeName == null || nodeName.isBlank()) {
                throw new FlowValidationException("Flow '" + name + "': a node needs a name.");
            }
            if (nodes.containsKey(nodeName)) {
                throw new FlowValidationException("Flow '" + name + "': node name '" + nodeName + "' is used twice.");
            }
            node.bind(nodeName);
            nodes.put(nodeName, node);
            return this;
        }

        /** Wires {@code from}'s output {@code fromTerminal} to {@code to}'s input terminal {@code in}. */
        public Builder wire(String from, String fromTerminal, String to) {
            return wire(from, fromTerminal, to, "in");
        }

        /** Wires {@code from}'s output {@code fromTerminal} to {@code to}'s input {@code toTerminal}. */
        public Builder wire(String from, String fromTerminal, String to, String toTerminal) {
            wires.add(new Wire(from, fromTerminal, to, toTerminal));
            return this;
        }

        /**
         * Validates and builds: every wire joins known nodes at known terminals, there is an input node, every
         * node's settings are complete, labels are unique, and every cycle passes a loop guard.
         *
         * @throws FlowValidationException saying what is wrong, naming the flow, node and terminal
         */
        public FlowDefinition build() {
            String flow = "Flow '" + name + "'";
            if (nodes.values().stream().noneMatch(n -> n instanceof InputNode || n instanceof FileInputNode
                    || n instanceof JmsInputNode || n instanceof HttpInputNode)) {
                throw new FlowValidationException(flow + " has no input node: add an InputNode, a FileInputNode, a "
                        + "JmsInputNode or an HttpInputNode, where messages enter.");
            }
            for (Node node : nodes.values()) {
                try {
                    node.validate();
                } catch (FlowValidationException e) {
                    throw new FlowValidationException(flow + ", node '" + node.name() + "': " + e.getMessage());
                }
            }
            Map<Node, Map<String, List<Target>>> targets = new IdentityHashMap<>();
            for (Wire wire : wires) {
                Node from = known(flow, wire, wire.from());
                Node to = known(flow, wire, wire.to());
                if (!from.outputTerminals().contains(wire.fromTerminal())) {
                    throw new FlowValidationException(flow + ", wire " + wire + ": " + from + " has no output terminal '"
                            + wire.fromTerminal() + "' (it has " + from.outputTerminals() + ").");
                }
                if (!to.inputTerminals().contains(wire.toTerminal())) {
                    throw new FlowValidationException(flow + ", wire " + wire + ": " + to + " has no input terminal '"
                            + wire.toTerminal() + "' (it has " + to.inputTerminals() + ").");
                }
                targets.computeIfAbsent(from, n -> new HashMap<>())
                        .computeIfAbsent(wire.fromTerminal(), t -> new ArrayList<>())
                        .add(new Target(to, wire.toTerminal()));
            }
            targets.values().forEach(m -> m.replaceAll((t, list) -> List.copyOf(list)));
            Map<String, LabelNode> labels = new HashMap<>();
            for (Node node : nodes.values()) {
                if (node instanceof LabelNode label && labels.put(label.label(), label) != null) {
                    throw new FlowValidationException(flow + ": label '" + label.label() + "' is used by two Label nodes.");
                }
            }
            checkCycles(flow, targets);
            return new FlowDefinition(name, Collections.unmodifiableMap(new LinkedHashMap<>(nodes)),
                    List.copyOf(wires), targets, Map.copyOf(labels));
        }

        private Node known(String flow, Wire wire, String nodeName) {
            Node node = nodes.get(nodeName);
            if (node == null) {
                throw new FlowValidationException(flow + ", wire " + wire + ": there is no node named '" + nodeName
                        + "' (nodes: " + nodes.keySet() + ").");
            }
            return node;
        }

        /** Depth-first search; a back edge closes a cycle, which must contain a loop guard. */
        private void checkCycles(String flow, Map<Node, Map<String, List<Target>>> targets) {
            Map<Node, Integer> state = new IdentityHashMap<>(); // absent = unvisited, 1 = on path, 2 = done
            List<Node> path = new ArrayList<>();
            for (Node node : nodes.values()) {
                if (!state.containsKey(node)) {
                    visit(flow, node, targets, state, path);
                }
            }
        }

        private void visit(String flow, Node node, Map<Node, Map<String, List<Target>>> targets,
                           Map<Node, Integer> state, List<Node> path) {
            state.put(node, 1);
            path.add(node);
            for (List<Target> list : targets.getOrDefault(node, Map.of()).values()) {
                for (Target target : list) {
                    Integer s = state.get(target.node());
                    if (s == null) {
                        visit(flow, target.node(), targets, state, path);
                    } else if (s == 1) {
                        List<Node> cycle = path.subList(path.indexOf(target.node()), path.size());
                        if (cycle.stream().noneMatch(Node::isLoopGuard)) {
                            StringBuilder names = new StringBuilder();
                            cycle.forEach(n -> names.append(n.name()).append(" -> "));
                            throw new FlowValidationException(flow + " has a cycle without a loop guard: " + names
                                    + target.node().name() + ". A cycle must pass a node that decides whether to go on "
                                    + "(a JavaCompute or RouteToLabel node), or it would never end.");
                        }
                    }
                }
            }
            path.remove(path.size() - 1);
            state.put(node, 2);
        }
    }
}
