/**
 * Netty side of the server: the pipeline ({@link org.wharfmq.server.transport.ServerChannelInitializer}), the
 * handshake, frame dispatch, and the handling of malformed or oversize frames.
 */
package org.wharfmq.server.transport;
