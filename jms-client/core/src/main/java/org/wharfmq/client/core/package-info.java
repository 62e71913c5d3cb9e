/**
 * The core client, without JMS: a connection to a server ({@link org.wharfmq.client.core.CoreConnection}: its links,
 * {@link org.wharfmq.client.core.ConnectedLink}, over the transports of {@code org.wharfmq.client.core.transport}; its
 * state, requests, client ID and the registries of what a reconnection creates again), the handshake
 * ({@link org.wharfmq.client.core.ClientHandshake}), the dispatch of a link's frames
 * ({@link org.wharfmq.client.core.LinkHandler}: deliveries to the {@link org.wharfmq.client.core.ConsumerRegistry},
 * answers to the {@link org.wharfmq.client.core.PendingRequests}, the rest to the connection's
 * {@link org.wharfmq.client.core.LinkEvents}), reconnection ({@link org.wharfmq.client.core.Reconnector}), sessions
 * ({@link org.wharfmq.client.core.CoreSession}: consumers, producers, sends, closing), a consumer's buffer, credit,
 * PULLs and the messages it hands its user ({@link org.wharfmq.client.core.CoreConsumer}, through the user's
 * {@link org.wharfmq.client.core.CoreConsumer.Decoder}; received, or run by the session's dispatch thread,
 * {@link org.wharfmq.client.core.SessionDispatcher}, through the user's
 * {@link org.wharfmq.client.core.MessageHandler}), a queue's browse ({@link org.wharfmq.client.core.CoreBrowser}), a
 * session's acknowledgement and transactions
 * ({@link org.wharfmq.client.core.CoreSettlement}) and XA ({@link org.wharfmq.client.core.CoreXaResource}), its
 * producer credit
 * ({@link org.wharfmq.client.core.ProducerCredit}), the ledger of deliveries handed out
 * ({@link org.wharfmq.client.core.DeliveryLedger}), temporary destinations
 * ({@link org.wharfmq.client.core.TemporaryDestinations}) and the client's tunables
 * ({@link org.wharfmq.client.core.ClientConfiguration}). Messages are the protocol's encoded form
 * ({@link org.wharfmq.protocol.frame.Frame.Deliver}, {@link org.wharfmq.protocol.message.WireMessage}). Failures are
 * {@link org.wharfmq.client.core.ClientException}s carrying the protocol's error code. What the core hands its user goes
 * through the core's own interfaces ({@link org.wharfmq.client.core.MessageHandler},
 * {@link org.wharfmq.client.core.SessionMember},
 * {@link org.wharfmq.client.core.CoreSession.Hooks},
 * {@link org.wharfmq.client.core.DeliveryTarget}, {@link org.wharfmq.client.core.ConnectionListener}). The JMS clients
 * are a facade over it; the core never calls them (docs/architecture.md, "Modules").
 */
package org.wharfmq.client.core;
