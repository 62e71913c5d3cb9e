package org.wharfmq.flow.node;

import org.wharfmq.flow.FlowContext;
import org.wharfmq.flow.FlowValidationException;
import org.wharfmq.flow.MessageAssembly;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs a query with values taken from the message, bound as parameters, and puts the rows it returns into the
 * LocalEnvironment, as App Connect's DatabaseRetrieve node: the field {@link #into(String) into} (default
 * {@value #DEFAULT_FIELD}) holds a {@code List<Map<String, Object>>}, a row per element, column label to value (labels
 * as the database reports them: PostgreSQL lower-cases unquoted names, H2 upper-cases them; write
 * {@code AS "name"} for one label on both). The copy with the rows goes to {@code out}, or the input to
 * {@code noMatch} when there are none. A query the database refuses, or more rows than {@link #maxRows(int)}, goes to
 * {@code failure} (or fails the path when that is unwired).
 *
 * <pre>{@code
 * new DatabaseRetrieveNode("orders", "SELECT name, tier FROM customers WHERE id = ?", "UserProperties/customerId")
 *         .into("Customer")
 * }</pre>
 */
public final class DatabaseRetrieveNode extends SqlNode {

    /** The LocalEnvironment field the rows go to unless {@link #into(String)} names another: {@value}. */
    public static final String DEFAULT_FIELD = "Rows";

    /**
     * The most rows a retrieve takes into the tree unless {@link #maxRows(int)} says otherwise: {@value}. More fail
     * the node (rather than fill the heap with a query that forgot its WHERE clause).
     */
    public static final int DEFAULT_MAX_ROWS = 1000;

    private String field = DEFAULT_FIELD;
    private int maxRows = DEFAULT_MAX_ROWS;

    /**
     * @param dataSource the flow host's data source to run on
     * @param sql        the query, with a {@code ?} per value
     * @param parameters the message paths ({@link org.wharfmq.flow.MessagePath}) of the values, one per {@code ?}
     * @throws IllegalArgumentException when a path is not valid
     */
    public DatabaseRetrieveNode(String dataSource, String sql, String... parameters) {
        super("DatabaseRetrieve", List.of("out", "noMatch", "failure"), dataSource, sql, parameters);
    }

    /** The LocalEnvironment field the rows go to. */
    public DatabaseRetrieveNode into(String localEnvironmentField) {
        this.field = localEnvironmentField;
        return this;
    }

    /** The most rows taken; a query returning more fails the node. */
    public DatabaseRetrieveNode maxRows(int maxRows) {
        this.maxRows = maxRows;
        return this;
    }

    @Override
    public Map<String, Object> properties() {
        Map<String, Object> p = super.properties();
        p.put("into", field);
        p.put("maxRows", maxRows);
        return p;
    }

    @Override
    protected void validate() {
        super.validate();
        if (field == null || field.isBlank()) {
            throw new FlowValidationException("a DatabaseRetrieve node needs the LocalEnvironment field to put rows into.");
        }
        if (maxRows < 1) {
            throw new FlowValidationException("maxRows must be at least 1, was " + maxRows + ".");
        }
    }

    @Override
    public void receive(String terminal, MessageAssembly assembly, FlowContext context) throws Exception {
        List<Map<String, Object>> rows;
        try {
            rows = execute(assembly, context, statement -> {
                statement.setMaxRows(maxRows + 1);
                try (ResultSet result = statement.executeQuery()) {
                    return rows(result);
                }
            });
        } catch (SQLException | RuntimeException e) {
            propagateFailure(assembly, e, context);
            return;
        }
        if (rows.isEmpty()) {
            context.propagate(this, "noMatch", assembly);
            return;
        }
        MessageAssembly out = assembly.copy();
        out.localEnvironment().set(field, rows);
        context.propagate(this, "out", out);
    }

    /**
     * The rows of {@code result}, each a map from column label to value in the columns' order. The labels are read
     * once per result, and nothing is made for a result without rows (noMatch); a result of one row, the common
     * lookup, is a list of that row alone.
     */
    private List<Map<String, Object>> rows(ResultSet result) throws SQLException {
        if (!result.next()) {
            return List.of();
        }
        ResultSetMetaData meta = result.getMetaData();
        String[] labels = new String[meta.getColumnCount()];
        for (int c = 0; c < labels.length; c++) {
            labels[c] = meta.getColumnLabel(c + 1);
        }
        Map<String, Object> first = row(result, labels);
        if (!result.next()) {
            return List.of(first);
        }
        List<Map<String, Object>> rows = new ArrayList<>();
        rows.add(first);
        do {
            if (rows.size() == maxRows) { // not the database's failure: its transaction is intact
                throw new IllegalStateException(this + " got more than maxRows (" + maxRows + ") rows: narrow the query "
                        + "(WHERE, LIMIT) or raise maxRows.");
            }
            rows.add(row(result, labels));
        } while (result.next());
        return Collections.unmodifiableList(rows);
    }

    /** The result's current row: column label to value (a value may be null: SQL NULL). */
    private static Map<String, Object> row(ResultSet result, String[] labels) throws SQLException {
        Map<String, Object> row = new LinkedHashMap<>(labels.length * 4 / 3 + 1);
        for (int c = 0; c < labels.length; c++) {
            row.put(labels[c], result.getObject(c + 1));
        }
        return Collections.unmodifiableMap(row);
    }
}
