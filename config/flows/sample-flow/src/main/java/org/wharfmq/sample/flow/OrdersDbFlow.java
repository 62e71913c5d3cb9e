package org.wharfmq.sample.flow;

import org.wharfmq.flow.Domain;
import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.FlowFactory;
import org.wharfmq.flow.node.DatabaseNode;
import org.wharfmq.flow.node.DatabaseRetrieveNode;
import org.wharfmq.flow.node.HttpInputNode;
import org.wharfmq.flow.node.HttpReplyNode;

/**
 * The database sample: orders taken over HTTP into a table of the sample configuration's data source
 * {@code samples} (embedded H2, no setup; the configuration's URL creates the table).
 *
 * <ul>
 *   <li>{@code POST /flows/orders} with a JSON order {@code {"id": 1, "customer": "Ann", "total": 12.50}}: a
 *       Database node inserts it (its values bound as parameters, never SQL text), a DatabaseRetrieve node reads
 *       the customer's orders, and the answer is {@code {"customer":"Ann","orders":[{"id":1,"total":12.50}]}}.</li>
 *   <li>An order the database refuses (an id already taken, a value missing) or a body that is not JSON: the
 *       invocation rolls back (nothing inserted) and the caller gets 400 (the database's reason in the server's log).</li>
 * </ul>
 */
public final class OrdersDbFlow implements FlowFactory {

    /** The path it serves. */
    public static final String PATH = "/flows/orders";
    /** The data source it uses (dataSources: in config/wharf.yaml). */
    public static final String DATA_SOURCE = "samples";

    @Override
    public FlowDefinition create() {
        return FlowDefinition.builder("orders-db")
                .node("in", HttpInputNode.path(PATH).domain(Domain.JSON))
                .node("insert", new DatabaseNode(DATA_SOURCE,
                        "INSERT INTO orders (id, customer, total) VALUES (?, ?, ?)",
                        "JSON/id", "JSON/customer", "JSON/total"))
                .node("orders", new DatabaseRetrieveNode(DATA_SOURCE,
                        "SELECT id AS \"id\", total AS \"total\" FROM orders WHERE customer = ? ORDER BY id",
                        "JSON/customer").into(OrdersAnswer.ROWS))
                .node("answer", new OrdersAnswer())
                .node("refused", new OrderRefused())
                .node("reply", new HttpReplyNode())
                .wire("in", "out", "insert")
                .wire("insert", "out", "orders")
                .wire("orders", "out", "answer")
                .wire("answer", "out", "reply")
                .wire("in", "failure", "refused")
                .wire("refused", "out", "reply")
                .build();
    }
}
