package org.wharfmq.server.management;

/**
 * The client connections taken together, for the metrics: what is open now and the traffic since the start.
 *
 * @param open     connections past their handshake, in-VM ones included
 * @param opened   connections that completed their handshake since the start
 * @param sessions open sessions of the open connections
 * @param consumers open consumers (queues' and subscriptions')
 * @param producers open producers
 * @param bytesIn  bytes read from clients since the start (ended connections included; a connection ending while
 *                 the totals are taken may be missed that once)
 * @param bytesOut bytes written to clients since the start (ended connections included)
 */
public record ConnectionTotals(int open, long opened, int sessions, int consumers, int producers, long bytesIn,
                               long bytesOut) {
}
