package org.wharfmq.flow.node;

import org.wharfmq.flow.DatabaseUnavailableException;
import org.wharfmq.flow.FlowContext;
import org.wharfmq.flow.FlowValidationException;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.MessagePath;

import java.sql.CallableStatement;
import java.sql.JDBCType;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Calls a stored procedure (JDBC {@link CallableStatement}) with values taken from the message, and puts its OUT and
 * INOUT parameters' values into the tree, as App Connect's Database node calling a procedure. One parameter is
 * declared per {@code ?} of the call, in order: {@link #in(String) in} (a message path's value bound),
 * {@link #out(String, JDBCType) out} (the value the procedure gives back, into a target path) or
 * {@link #inOut(String, String, JDBCType) inOut} (both). The copy with the values goes to {@code out}; a call the
 * database refuses (the procedure raised an error, a constraint) goes to {@code failure} (or fails the path when that
 * is unwired) with a failure that names the procedure, the data source and the database's reason.
 *
 * <pre>{@code
 * new DatabaseCallNode("orders", "CALL place_order(?, ?, ?, ?)")
 *         .in("JSON/customer")
 *         .in("JSON/quantity")
 *         .inOut("JSON/total", "LocalEnvironment/Total", JDBCType.NUMERIC)
 *         .out("UserProperties/orderId", JDBCType.INTEGER)
 * }</pre>
 *
 * A target is {@code LocalEnvironment/NAME}, {@code Environment/NAME} or {@code UserProperties/NAME}
 * ({@link MessagePath#target}); an SQL NULL removes the field. In a transactional invocation the procedure's work
 * commits or rolls back with the message ({@link SqlNode}).
 */
public final class DatabaseCallNode extends SqlNode {

    /** A call as JDBC writes it: {@code CALL name(...)}, {@code {call name(...)}} or {@code {? = call name(...)}}. */
    private static final Pattern CALL = Pattern.compile(
            "\\s*(?:\\{\\s*(?:\\?\\s*=\\s*)?)?call\\s+([^\\s(}]+)", Pattern.CASE_INSENSITIVE);

    /**
     * One parameter of the call.
     *
     * @param from the path whose value is bound (IN, INOUT), or null (OUT)
     * @param to   the path the value given back goes to (OUT, INOUT), or null (IN)
     * @param type the OUT value's SQL type (OUT, INOUT), or null (IN)
     */
    private record Parameter(MessagePath from, MessagePath to, JDBCType type) {
        String describe() {
            if (to == null) {
                return "IN " + from;
            }
            return (from == null ? "OUT" : "INOUT " + from) + " -> " + to + " (" + type + ")";
        }
    }

    private final List<Parameter> declared = new ArrayList<>();

    /**
     * @param dataSource the flow host's data source to run on
     * @param sql        the call, with a {@code ?} per parameter: {@code CALL name(?, ?)} or JDBC's escape
     *                   {@code {call name(?, ?)}}, {@code {? = call name(?)}} (a function's result: an OUT first)
     */
    public DatabaseCallNode(String dataSource, String sql) {
        super("DatabaseCall", List.of("out", "failure"), dataSource, sql);
    }

    /**
     * The next {@code ?} is an IN parameter: the value at {@code path} is bound to it.
     *
     * @throws IllegalArgumentException when the path is not valid
     */
    public DatabaseCallNode in(String path) {
        declared.add(new Parameter(MessagePath.compile(path), null, null));
        return this;
    }

    /**
     * The next {@code ?} is an OUT parameter of SQL type {@code type}: its value after the call goes to
     * {@code target}.
     *
     * @throws IllegalArgumentException when the target is not a path a value can be put at
     */
    public DatabaseCallNode out(String target, JDBCType type) {
        declared.add(new Parameter(null, MessagePath.target(target), type));
        return this;
    }

    /**
     * The next {@code ?} is an INOUT parameter of SQL type {@code type}: the value at {@code path} is bound to it, and
     * its value after the call goes to {@code target}.
     *
     * @throws IllegalArgumentException when a path is not valid
     */
    public DatabaseCallNode inOut(String path, String target, JDBCType type) {
        declared.add(new Parameter(MessagePath.compile(path), MessagePath.target(target), type));
        return this;
    }

    /** The procedure the call names, as written in its SQL, or the SQL when it is not a call. */
    public String procedure() {
        Matcher call = CALL.matcher(sql() == null ? "" : sql());
        return call.lookingAt() ? call.group(1) : sql();
    }

    @Override
    protected int parameterCount() {
        return declared.size();
    }

    @Override
    public Map<String, Object> properties() {
        Map<String, Object> p = super.properties();
        p.put("parameters", declared.stream().map(Parameter::describe).toList());
        return p;
    }

    @Override
    protected void validate() {
        super.validate();
        if (!CALL.matcher(sql()).lookingAt()) {
            throw new FlowValidationException("a DatabaseCall node calls a stored procedure: its SQL starts with CALL "
                    + "(or JDBC's {call ...}), was: " + sql() + ". Run other statements with a Database node.");
        }
        for (Parameter parameter : declared) {
            if (parameter.to() != null && parameter.type() == null) {
                throw new FlowValidationException("the OUT parameter into " + parameter.to() + " needs its SQL type "
                        + "(JDBCType), which the driver checks the procedure's value against.");
            }
        }
    }

    @Override
    public void receive(String terminal, MessageAssembly assembly, FlowContext context) throws Exception {
        Object[] values;
        try {
            values = inStatementScope(context, () -> call(assembly, context));
        } catch (DatabaseUnavailableException e) {
            propagateFailure(assembly, e, context);
            return;
        } catch (SQLException e) {
            propagateFailure(assembly, refused(e), context);
            return;
        } catch (RuntimeException e) {
            propagateFailure(assembly, e, context);
            return;
        }
        MessageAssembly out = assembly.copy();
        for (int i = 0; i < declared.size(); i++) {
            MessagePath to = declared.get(i).to();
            if (to != null) {
                to.set(out, values[i]);
            }
        }
        context.propagate(this, "out", out);
    }

    /** Binds the IN values, registers the OUT parameters, runs the call, and reads the OUT values (by position). */
    private Object[] call(MessageAssembly assembly, FlowContext context) throws SQLException {
        CallableStatement call = context.call(dataSource(), sql());
        for (int i = 0; i < declared.size(); i++) {
            Parameter parameter = declared.get(i);
            if (parameter.from() != null) {
                call.setObject(i + 1, parameter.from().value(assembly));
            } else { // an OUT parameter: a typed NULL argument (PostgreSQL's procedures take one for each)
                call.setNull(i + 1, parameter.type().getVendorTypeNumber());
            }
            if (parameter.to() != null) {
                call.registerOutParameter(i + 1, parameter.type().getVendorTypeNumber());
            }
        }
        call.execute();
        Object[] values = new Object[declared.size()];
        for (int i = 0; i < declared.size(); i++) {
            if (declared.get(i).to() != null) {
                values[i] = call.getObject(i + 1);
            }
        }
        return values;
    }

    /** The database's refusal, naming the procedure and the data source; its SQLState and code kept. */
    private SQLException refused(SQLException e) {
        return new SQLException("Procedure " + procedure() + " on data source '" + dataSource() + "' failed: "
                + e.getMessage(), e.getSQLState(), e.getErrorCode(), e);
    }
}
