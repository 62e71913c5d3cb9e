/**
 * The core client, without JMS: {@link org.wharfmq.client.core.ClientHandshake} and the client's tunables
 * ({@link org.wharfmq.client.core.ClientConfiguration}); failures are {@link org.wharfmq.client.core.ClientException}s
 * carrying the protocol's error code. The JMS clients are a facade over it and the core never calls them.
 */
package org.wharfmq.client.core;
