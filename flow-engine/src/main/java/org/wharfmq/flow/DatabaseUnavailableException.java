package org.wharfmq.flow;

import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransientConnectionException;

/**
 * A data source gave no connection: its pool's connections were all in use for its whole connection timeout, or the
 * database did not answer (down, unreachable, too slow to open). Not the caller's fault and not the flow's: the same
 * request may succeed later. A Database node's failure carries it; a flow's HTTP answer to it is 503 Service
 * Unavailable with {@code Retry-After} (the runtime's own answer, or a failure path's that asks
 * {@link #in(ExceptionList)}), where a statement the database refuses is the caller's 400 or the flow's 500.
 *
 * <p>Its message starts with {@linkplain #summary() what a caller may read} (the data source and the timeout), then
 * the pool's or driver's reason after {@value #CAUSE}: that part goes to logs and backout reasons only, since a
 * driver's text can name hosts, files or other rows.
 */
public final class DatabaseUnavailableException extends SQLTransientConnectionException {

    /** What separates the summary from the pool's or driver's reason in the message: {@value}. */
    public static final String CAUSE = " Cause: ";

    private final String dataSource;
    private final String summary;

    /**
     * @param dataSource    the data source's name
     * @param timeoutMillis how long the connection was waited for, in ms; 0 when not known
     * @param cause         the pool's or the driver's failure
     */
    public DatabaseUnavailableException(String dataSource, long timeoutMillis, Throwable cause) {
        this(dataSource, summaryOf(dataSource, timeoutMillis), cause);
    }

    private DatabaseUnavailableException(String dataSource, String summary, Throwable cause) {
        super(summary + CAUSE + cause, "08001", cause);
        this.dataSource = dataSource;
        this.summary = summary;
    }

    /**
     * A statement on an open connection failed because the connection was lost (SQLState class 08): the database
     * went away under the invocation.
     */
    public static DatabaseUnavailableException lost(String dataSource, Throwable cause) {
        return new DatabaseUnavailableException(dataSource, "Data source '" + dataSource + "' lost its connection to "
                + "the database in the middle of the invocation.", cause);
    }

    private static String summaryOf(String dataSource, long timeoutMillis) {
        return "Data source '" + dataSource + "' gave no connection"
                + (timeoutMillis > 0 ? " within " + timeoutMillis + " ms (its connectionTimeoutMillis)" : "")
                + ": the database does not answer, or all of its pool's connections are in use.";
    }

    /** The data source's name. */
    public String dataSource() {
        return dataSource;
    }

    /** What happened, naming the data source and the timeout, without the pool's or driver's reason. */
    public String summary() {
        return summary;
    }

    /**
     * Whether {@code failure} is a connection failure (SQLState class 08, or a JDBC connection exception): the
     * database is gone, not refusing the statement.
     */
    public static boolean isConnectionFailure(SQLException failure) {
        String state = failure.getSQLState();
        return failure instanceof SQLTransientConnectionException
                || failure instanceof SQLNonTransientConnectionException
                || state != null && state.startsWith("08");
    }

    /**
     * The {@linkplain #summary() summary} of the innermost failure of this kind in {@code failures}, or null when
     * none is: how a failure path tells "try again later" (503) from a refusal.
     */
    public static String in(ExceptionList failures) {
        String type = DatabaseUnavailableException.class.getName();
        for (ExceptionList.Entry entry : failures.entries()) {
            if (entry.type().equals(type)) {
                int cause = entry.text().indexOf(CAUSE);
                return cause < 0 ? entry.text() : entry.text().substring(0, cause);
            }
        }
        return null;
    }
}
