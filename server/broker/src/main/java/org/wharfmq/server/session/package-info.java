/**
 * What a client connection creates: {@link org.wharfmq.server.session.ServerSession} (deliveries, acknowledgements,
 * transactions) and {@link org.wharfmq.server.session.ServerConsumer}; driven by the connection's event loop.
 */
package org.wharfmq.server.session;
