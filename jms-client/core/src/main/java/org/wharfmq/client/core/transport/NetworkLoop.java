package org.wharfmq.client.core.transport;

import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;

/**
 * Where a {@code tcp://} or {@code ssl://} link runs when it must never block the thread that writes it: a Netty
 * socket channel of {@code channelClass} on {@code group} (a server's own event loop, for a link the server opens to
 * another), with TLS in its pipeline for {@code ssl://}, instead of a blocking socket. Frames written from any thread are queued and written by that loop, which never waits on a
 * full socket: what the socket cannot take yet waits in the channel's outbound buffer, whose size
 * {@link FrameLink#isWritable} reports so that the writer can hold back.
 *
 * @param group        the loop (or group) the channel is registered on
 * @param channelClass the socket channel class of that loop's transport (epoll's or NIO's)
 */
public record NetworkLoop(EventLoopGroup group, Class<? extends Channel> channelClass) {
}
