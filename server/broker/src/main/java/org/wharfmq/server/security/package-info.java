/**
 * Who a connection is ({@link org.wharfmq.server.security.Identity}) and what it may do: the broker's side of
 * authentication and authorisation (docs/security.md).
 */
package org.wharfmq.server.security;
