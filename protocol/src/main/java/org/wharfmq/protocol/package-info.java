/**
 * The Wharf wire protocol, shared by the server and the JMS client.
 *
 * <ul>
 *   <li>{@link org.wharfmq.protocol.frame} – frames: the unit of exchange on a connection, their
 *       codec ({@link org.wharfmq.protocol.frame.FrameDecoder} / {@link org.wharfmq.protocol.frame.FrameEncoder})
 *       and the Netty pipeline pieces both ends use.</li>
 *   <li>{@link org.wharfmq.protocol.message} – the encoding of a JMS message inside SEND and DELIVER
 *       frames: a small header section the server reads, properties it reads only for selectors,
 *       and a body it never reads or copies.</li>
 *   <li>{@link org.wharfmq.protocol.selector} – the JMS message selector language, parsed on the
 *       client (to reject bad syntax without a round trip) and evaluated on the server.</li>
 * </ul>
 *
 * The format is described for humans in {@code docs/protocol.md}.
 */
package org.wharfmq.protocol;
