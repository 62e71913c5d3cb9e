package org.wharfmq.flow.node;

import org.wharfmq.flow.FlowContext;
import org.wharfmq.flow.FlowValidationException;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.Node;
import org.wharfmq.flow.XPathQuery;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Routes by the content of the XML body, as App Connect's Route node: a table of XPath conditions, each naming
 * an output terminal of its own. The assembly goes to the terminal of the first condition that holds (or, with
 * {@link Builder#toAllMatches()}, of every one that holds, in table order), and to {@code default} when none
 * does. A body that is not well-formed XML, or a condition that fails, goes to {@code failure} (or fails the path
 * when that is unwired).
 *
 * <pre>{@code
 * RouteNode.builder()
 *         .route("gold", "/Order/Tier = 'gold'")
 *         .route("bulk", "sum(/Order/Item/Quantity) > 100")
 *         .build()
 * }</pre>
 */
public final class RouteNode extends Node {

    private final List<Route> routes;
    private final boolean toAllMatches;

    private RouteNode(List<Route> routes, boolean toAllMatches) {
        super("Route", List.of("in"), terminals(routes));
        this.routes = routes;
        this.toAllMatches = toAllMatches;
    }

    /** Starts a routing table. */
    public static Builder builder() {
        return new Builder();
    }

    private static List<String> terminals(List<Route> routes) {
        List<String> terminals = new ArrayList<>();
        for (Route route : routes) {
            terminals.add(route.terminal);
        }
        terminals.add("default");
        terminals.add("failure");
        return terminals;
    }

    @Override
    public Map<String, Object> properties() {
        Map<String, Object> p = new LinkedHashMap<>();
        for (Route route : routes) {
            p.put(route.terminal, route.condition.expression());
        }
        p.put("distribution", toAllMatches ? "all" : "first");
        return p;
    }

    @Override
    protected void validate() {
        if (routes.isEmpty()) {
            throw new FlowValidationException("a Route node needs at least one route (terminal and XPath).");
        }
    }

    @Override
    public void receive(String terminal, MessageAssembly assembly, FlowContext context) throws Exception {
        // every condition is evaluated before anything is propagated, so a failing one sends nothing on
        String first = null;
        List<String> all = null; // only in toAllMatches mode: the first-match path allocates nothing
        try {
            for (Route route : routes) {
                if (route.condition.test(assembly.message())) {
                    if (!toAllMatches) {
                        first = route.terminal;
                        break;
                    }
                    if (all == null) {
                        all = new ArrayList<>(routes.size());
                    }
                    all.add(route.terminal);
                }
            }
        } catch (RuntimeException e) {
            propagateFailure(assembly, e, context);
            return;
        }
        if (first != null) {
            context.propagate(this, first, assembly);
        } else if (all != null) {
            for (String out : all) {
                context.propagate(this, out, assembly);
            }
        } else {
            context.propagate(this, "default", assembly);
        }
    }

    private record Route(String terminal, XPathQuery condition) {
    }

    /** Collects the routing table. Not thread-safe. */
    public static final class Builder {
        private final List<Route> routes = new ArrayList<>();
        private boolean toAllMatches;

        private Builder() {
        }

        /**
         * Adds a row: when {@code xpath} holds, the assembly goes to the output terminal {@code terminal}.
         *
         * @throws IllegalArgumentException when {@code xpath} is not valid XPath, or the terminal is taken
         */
        public Builder route(String terminal, String xpath) {
            if (terminal == null || terminal.isBlank() || terminal.equals("default") || terminal.equals("failure")
                    || routes.stream().anyMatch(r -> r.terminal.equals(terminal))) {
                throw new IllegalArgumentException("Route terminal '" + terminal + "' is empty, reserved (default, "
                        + "failure) or already in the table.");
            }
            routes.add(new Route(terminal, XPathQuery.compile(xpath)));
            return this;
        }

        /** Sends the assembly to every terminal whose condition holds, not only the first. */
        public Builder toAllMatches() {
            this.toAllMatches = true;
            return this;
        }

        /** The node. */
        public RouteNode build() {
            return new RouteNode(List.copyOf(routes), toAllMatches);
        }
    }
}
