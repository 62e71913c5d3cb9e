/**
 * The core client, without JMS: a connection's links to a server ({@link org.wharfmq.client.core.ConnectedLink}, over
 * the transports of {@code org.wharfmq.client.core.transport}), the handshake
 * ({@link org.wharfmq.client.core.ClientHandshake}), the dispatch of a link's frames
 * ({@link org.wharfmq.client.core.LinkHandler}: answers to the {@link org.wharfmq.client.core.PendingRequests}, the
 * rest to the connection's {@link org.wharfmq.client.core.LinkEvents}), reconnection
 * ({@link org.wharfmq.client.core.Reconnector}), a session's producer credit
 * ({@link org.wharfmq.client.core.ProducerCredit}), the ledger of deliveries handed out
 * ({@link org.wharfmq.client.core.DeliveryLedger}) and the client's tunables
 * ({@link org.wharfmq.client.core.ClientConfiguration}). Failures are
 * {@link org.wharfmq.client.core.ClientException}s carrying the protocol's error code. The JMS clients are a facade
 * over it; the core never calls them (docs/architecture.md, "Modules").
 */
package org.wharfmq.client.core;
