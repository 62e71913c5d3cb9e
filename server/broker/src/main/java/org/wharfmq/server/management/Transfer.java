package org.wharfmq.server.management;

/**
 * What a move or copy of messages between queues did ({@code move}, {@code copy}).
 *
 * @param from     the source queue
 * @param to       the target queue
 * @param messages messages moved or copied
 * @param stopped  why it stopped before the limit with messages left to take (the target is full), or null
 */
public record Transfer(String from, String to, long messages, String stopped) {
}
