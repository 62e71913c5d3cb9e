package org.wharfmq.server.store;

import io.netty.buffer.ByteBuf;

/**
 * One request to the journal writer, created on the caller's thread and handed over through the writer's inbox.
 * It holds its own reference to a message's bytes until the record is written, so a transaction rolled back in
 * the meantime cannot free them under the writer.
 */
final class JournalEntry {

    /** Tells the writer to finish: write the CLOSED marker, sync and stop. */
    static final byte STOP = 0;
    /**
     * Writes nothing; completed once every record appended before it is durable: the barrier of records nobody waited
     * for (a session's unanswered acknowledgements, before its close is answered). Not a record type.
     */
    static final byte SYNC = -1;

    final byte type;
    final long tx;
    final String queue;
    final long sequence;
    final int deliveryCount;
    final ByteBuf content;
    final String[] queues;
    final long[] sequences;
    final StoreCompletion completion;
    /** The definition a SUBSCRIPTION entry records; null for other entries. */
    final SubscriptionRecord subscription;
    Throwable failure;
    /** Set by the writer once the record is appended: its waiter must wait for the next sync. */
    boolean needsSync;
    /** Written by the writer, and nobody waits for it: the syncer forces it within journalLazySyncMillis. */
    boolean unwaited;

    private JournalEntry(byte type, long tx, String queue, long sequence, int deliveryCount, ByteBuf content,
                         String[] queues, long[] sequences, StoreCompletion completion) {
        this(type, tx, queue, sequence, deliveryCount, content, queues, sequences, completion, null);
    }

    private JournalEntry(byte type, long tx, String queue, long sequence, int deliveryCount, ByteBuf content,
                         String[] queues, long[] sequences, StoreCompletion completion, SubscriptionRecord subscription) {
        this.subscription = subscription;
        this.type = type;
        this.tx = tx;
        this.queue = queue;
        this.sequence = sequence;
        this.deliveryCount = deliveryCount;
        this.content = content;
        this.queues = queues;
        this.sequences = sequences;
        this.completion = completion;
    }

    static JournalEntry put(long tx, StoredMessage message, StoreCompletion completion) {
        return new JournalEntry(JournalRecord.PUT, tx, message.queueName(), message.sequence(), 0,
                message.content().retain(), null, null, completion);
    }

    /**
     * The copies of one message on several queues as one record, which holds their bytes once (the first copy's: the
     * copies share them).
     */
    static JournalEntry putCopies(long tx, java.util.List<? extends StoredMessage> copies, StoreCompletion completion) {
        int n = copies.size();
        String[] queues = new String[n];
        long[] sequences = new long[n];
        for (int i = 0; i < n; i++) {
            StoredMessage copy = copies.get(i);
            assert copy.content().readableBytes() == copies.get(0).content().readableBytes()
                    : "the copies of one message carry the same bytes: " + copy + " differs from " + copies.get(0);
            queues[i] = copy.queueName();
            sequences[i] = copy.sequence();
        }
        return new JournalEntry(JournalRecord.PUT_COPIES, tx, null, 0, 0, copies.get(0).content().retain(), queues,
                sequences, completion);
    }

    static JournalEntry remove(long tx, Iterable<? extends StoredMessage> messages, StoreCompletion completion) {
        int n = 0;
        for (StoredMessage ignored : messages) {
            n++;
        }
        String[] queues = new String[n];
        long[] sequences = new long[n];
        int i = 0;
        for (StoredMessage m : messages) {
            queues[i] = m.queueName();
            sequences[i++] = m.sequence();
        }
        return new JournalEntry(JournalRecord.REMOVE, tx, null, 0, 0, null, queues, sequences, completion);
    }

    static JournalEntry marker(byte type, long tx, StoreCompletion completion) {
        return new JournalEntry(type, tx, null, 0, 0, null, null, null, completion);
    }

    /** The prepare marker of an XA branch; {@code branch} travels as the entry's content. */
    static JournalEntry prepare(long tx, byte[] branch, StoreCompletion completion) {
        return new JournalEntry(JournalRecord.PREPARE, tx, null, 0, 0, io.netty.buffer.Unpooled.wrappedBuffer(branch),
                null, null, completion);
    }

    static JournalEntry queue(String name) {
        return new JournalEntry(JournalRecord.QUEUE, 0, name, 0, 0, null, null, null, StoreCompletion.NONE);
    }

    static JournalEntry queueDeleted(String name) {
        return new JournalEntry(JournalRecord.QUEUE_DELETED, 0, name, 0, 0, null, null, null, StoreCompletion.NONE);
    }

    static JournalEntry delivered(StoredMessage message, int deliveryCount) {
        return new JournalEntry(JournalRecord.DELIVERED, 0, message.queueName(), message.sequence(), deliveryCount,
                null, null, null, StoreCompletion.NONE);
    }

    static JournalEntry subscription(SubscriptionRecord subscription) {
        return new JournalEntry(JournalRecord.SUBSCRIPTION, 0, subscription.queueName(), 0, 0, null, null, null,
                StoreCompletion.NONE, subscription);
    }

    static JournalEntry unsubscribed(String queue) {
        return new JournalEntry(JournalRecord.UNSUBSCRIBED, 0, queue, 0, 0, null, null, null, StoreCompletion.NONE);
    }

    static JournalEntry sync(StoreCompletion completion) {
        return new JournalEntry(SYNC, 0, null, 0, 0, null, null, null, completion);
    }

    static JournalEntry stop() {
        return new JournalEntry(STOP, 0, null, 0, 0, null, null, null, StoreCompletion.NONE);
    }

    /**
     * Whether this entry wakes a sleeping writer ({@link JournalInbox}): somebody waits for it, or it stops the writer.
     * The others are taken with the next entry that does, or within {@link org.wharfmq.server.Configuration#JOURNAL_QUIET_ENTRY_MICROS}.
     */
    boolean wakesWriter() {
        return type == STOP || awaited();
    }

    /** Whether somebody waits for this record to be durable (a sync is needed before completing it). */
    boolean awaited() {
        return completion != StoreCompletion.NONE;
    }

    /** Completes the waiter and gives up the message reference; called once, by the writer. */
    void finish() {
        if (content != null) {
            content.release();
        }
        try {
            completion.completed(failure);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // the connection's event loop has stopped (the server is stopping): nobody is left to answer
        } catch (RuntimeException e) {
            System.getLogger(JournalEntry.class.getName()).log(System.Logger.Level.ERROR,
                    "A store completion failed", e);
        }
    }
}
