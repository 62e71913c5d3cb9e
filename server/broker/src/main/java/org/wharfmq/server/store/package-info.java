/**
 * Persistence: {@link org.wharfmq.server.store.MessageStore} with asynchronous completions, implemented by the
 * journal ({@link org.wharfmq.server.store.JournalMessageStore}: Chronicle Queue segments, one writer thread with
 * group commit, recovery, reclamation; see docs/persistence.md) and, for tests, in memory.
 */
package org.wharfmq.server.store;
