/**
 * What a client connection creates: {@link org.wharfmq.server.session.BrokerSession} (its consumers, and the
 * settlement of their deliveries), its {@link org.wharfmq.server.session.Transaction} and
 * {@link org.wharfmq.server.session.DeliveryWriter}, {@link org.wharfmq.server.session.ServerConsumer} and
 * {@link org.wharfmq.server.session.ServerBrowser}; driven by the connection's event loop.
 */
package org.wharfmq.server.session;
