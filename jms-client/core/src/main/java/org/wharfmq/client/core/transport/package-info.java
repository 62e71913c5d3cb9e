/** How the client reaches a Wharf server: TCP or in-VM Netty channels with the frame codec. */
package org.wharfmq.client.core.transport;
