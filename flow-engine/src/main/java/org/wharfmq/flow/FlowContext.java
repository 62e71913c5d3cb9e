package org.wharfmq.flow;

import org.wharfmq.flow.node.FileOutputNode;

import javax.jms.Destination;
import javax.jms.JMSException;
import java.io.IOException;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * The runtime side of one flow invocation, as nodes see it: propagation along wires, label jumps, and the JMS
 * sends of output nodes inside or outside the invocation's transaction. Used by one thread at a time.
 */
public interface FlowContext {

    /**
     * Passes {@code assembly} (frozen first) to every node wired to {@code from}'s output {@code terminal}, in
     * wiring order, and returns when they have all finished; an unwired terminal discards it.
     *
     * @throws FlowException when a node downstream fails (carrying the ExceptionList)
     */
    void propagate(Node from, String terminal, MessageAssembly assembly) throws FlowException;

    /** Whether anything is wired to {@code from}'s output {@code terminal}. */
    boolean isWired(Node from, String terminal);

    /**
     * Passes {@code assembly} to the Label node named {@code label}.
     *
     * @return false when the flow has no such label (nothing was propagated)
     */
    boolean jumpToLabel(String label, MessageAssembly assembly) throws FlowException;

    /** The flow's name. */
    String flowName();

    /** Whether this invocation runs under transaction control. */
    boolean transactional();

    /** The queue with this name, as a JMS destination. */
    Destination queue(String name) throws JMSException;

    /** The topic with this name, as a JMS destination. */
    Destination topic(String name) throws JMSException;

    /**
     * Sends the message of {@code assembly} to {@code destination}: in the invocation's transaction when
     * {@code mode} is AUTOMATIC and the invocation is transactional, or when it is YES; at once otherwise.
     */
    void send(MessageAssembly assembly, Destination destination, TransactionMode mode) throws JMSException;

    /**
     * Sends the message of {@code assembly} to {@code destination} (a JNDI name) of the other JMS provider
     * {@code provider} (configured under {@code jmsProviders:}), on the invocation's connection to it (opened on first
     * use): in the invocation's transaction as {@link #send} decides, committed before the message's own transaction.
     *
     * @throws JMSException             when the provider cannot be reached or refuses the send
     * @throws IllegalArgumentException when the flow has no JMS provider of that name
     */
    void sendTo(String provider, String destination, MessageAssembly assembly, TransactionMode mode)
            throws JMSException;

    /**
     * The invocation's connection to the data source {@code name} (the flow host's {@code dataSources}), taken from
     * its pool on first use and given back when the invocation ends (or, by an instance busy with messages, a moment
     * later: docs/flows.md, "Transactions"). In a transactional invocation it is in manual
     * commit, and its work commits right before the message's transaction commits, or rolls back with it; otherwise
     * each statement commits at once. Do not commit, roll back or close it.
     *
     * @throws SQLException             when no connection can be had (the database is down, the pool exhausted)
     * @throws IllegalArgumentException when the flow has no data source of that name
     */
    Connection connection(String name) throws SQLException;

    /**
     * The statement {@code sql} prepared on the invocation's {@linkplain #connection(String) connection} to the data
     * source {@code name}: prepared once, and used again by later invocations as long as their reader keeps that
     * connection (a reader busy with messages does, for a moment: docs/flows.md, "Transactions"). Set every parameter
     * before each run (they are those of its last), close the result sets it gives, and do not close it: it is
     * closed when the connection goes back to its pool.
     *
     * @throws SQLException             when no connection can be had, or the database refuses the statement
     * @throws IllegalArgumentException when the flow has no data source of that name
     */
    PreparedStatement statement(String name, String sql) throws SQLException;

    /**
     * The call {@code sql} (a stored procedure's {@code CALL}) prepared as a {@link CallableStatement} on the
     * invocation's connection to the data source {@code name}, kept and closed as {@link #statement} is. Set every
     * parameter and register every OUT parameter before each run.
     *
     * @throws SQLException             when no connection can be had, or the database refuses the statement
     * @throws IllegalArgumentException when the flow has no data source of that name
     */
    CallableStatement call(String name, String sql) throws SQLException;

    /**
     * Tells the invocation that a statement on data source {@code name} failed inside its transaction and was not
     * undone to a savepoint: that data source's work can no longer commit as it stands (PostgreSQL aborts the whole
     * transaction at a failed statement, and its commit then silently rolls back), so the invocation rolls back at
     * its end, with its message, even when something caught the failure. The Database nodes call it; JDBC code of
     * a JavaCompute node that catches its own failures calls it too, or undoes them to a savepoint of its own.
     */
    void databaseFailed(String name, SQLException cause);

    /**
     * Appends {@code record} to the open file of the FileOutput node {@code file}: in a transactional invocation when
     * it commits, before its other commits, and forced to disk before them (the node's sync), so that nothing of an
     * invocation that rolls back is written and a committed message's record is on disk (a write or force that fails
     * then rolls the invocation back); at once otherwise.
     *
     * @throws IOException when the record is written at once and the write fails
     */
    void write(FileOutputNode file, byte[] record) throws IOException;

    /** The HTTP request this invocation answers (it began at an HTTPInput node), or null. */
    HttpExchange httpExchange();

    /**
     * Answers the HTTP request with identifier {@code requestId}, one that waits for a reply from any flow (HTTPInput
     * {@code replyLater}), with {@code reply} once this invocation commits (not when it rolls back).
     *
     * @return false when no request of that identifier waits in this server (unknown, answered, timed out): nothing
     * will be sent
     */
    boolean replyTo(String requestId, HttpExchange.Reply reply);

    /** Whether Trace nodes write (switchable while the flow runs). */
    boolean traceEnabled();
}
