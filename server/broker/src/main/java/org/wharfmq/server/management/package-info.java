/**
 * The management view: what operators see of a queue manager and do to it, as one interface
 * ({@link org.wharfmq.server.management.Management}) that the queue manager hands its plugins. The admin command
 * queue ({@code wharf admin}), a metrics endpoint and a web console are faces of this one view; none of them reaches
 * into the broker's internals on its own. Nothing here is on a message's way: the numbers it shows are kept by the
 * code that owns each queue or connection (plain counters, under locks already held), and read here.
 */
package org.wharfmq.server.management;
