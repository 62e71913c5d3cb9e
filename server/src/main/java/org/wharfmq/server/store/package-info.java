/**
 * Persistence boundary: {@link org.wharfmq.server.store.MessageStore} with asynchronous completions, implemented
 * in memory for now and by a journal later.
 */
package org.wharfmq.server.store;
