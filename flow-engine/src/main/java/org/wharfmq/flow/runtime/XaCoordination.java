package org.wharfmq.flow.runtime;

import javax.jms.XAConnectionFactory;
import javax.transaction.TransactionManager;
import javax.transaction.xa.XAResource;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * What a coordinated flow runs its transactional invocations under (docs/flows.md, "Coordinated transactions"): a
 * transaction manager, and the XA connection factory its readers connect with. Each such invocation is one XA
 * transaction of {@code transactions}, begun before the message is read (by a reader of a Wharf queue or topic once a
 * message is there to read: {@code arrivals}), with the reader's XA session and the connections of the flow's XA data
 * sources (whose pools enlist them in the thread's transaction) taking part.
 *
 * @param transactions the transaction manager, which the flow host runs with its recovery
 * @param connections  the XA connection factory of the messaging server the flow reads from
 * @param enlisting    what a reader enlists for its XA session's resource (the flow host's wrapper has the
 *                     transaction manager commit it after the databases)
 * @param arrivals     how a reader waits for a message of its XA session's consumer without a transaction
 */
public record XaCoordination(TransactionManager transactions, XAConnectionFactory connections,
                             UnaryOperator<XAResource> enlisting, MessageArrivals arrivals) {

    public XaCoordination {
        Objects.requireNonNull(transactions, "transactions");
        Objects.requireNonNull(connections, "connections");
        Objects.requireNonNull(enlisting, "enlisting");
        Objects.requireNonNull(arrivals, "arrivals");
    }
}
