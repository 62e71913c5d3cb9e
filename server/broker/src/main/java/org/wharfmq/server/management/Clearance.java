package org.wharfmq.server.management;

/**
 * What clearing a queue did ({@code clear queue}).
 *
 * @param queue   the queue
 * @param removed waiting messages removed (and removed from the journal)
 * @param depth   messages still on it: delivered and not acknowledged, in open transactions, or delayed; they are
 *                not waiting, so clearing leaves them
 */
public record Clearance(String queue, long removed, long depth) {
}
