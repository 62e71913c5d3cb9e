package org.wharfmq.server.store;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What the queue manager stores, decided in one place, and its only way to the {@link MessageStore}: sessions,
 * topics and queues call this class, never the store.
 *
 * <h2>What is stored</h2>
 * <ul>
 *   <li>A message whose {@link StoredMessage#persistent()} is true: JMS PERSISTENT on a journaled queue, which is
 *       every queue but a temporary queue and a non-durable subscription's queue (neither outlives its connection,
 *       so there is nothing to recover). So the copies of a persistent publication are stored for its durable
 *       subscriptions only, and a dead letter is stored when its original was.</li>
 *   <li>A persistent retained publication, as a message on its topic's pseudo queue.</li>
 *   <li>The definitions that must outlive a restart: queues created by use (and the dead-letter queue when the
 *       configuration does not define it), durable subscriptions, and their deletion.</li>
 * </ul>
 * Every method here applies that rule itself, so a caller passes any message and nothing else reaches the store.
 * Where a caller must know in advance whether it will wait for the store (a persistent SEND is answered once
 * durable, the others at once, with nothing allocated for a completion), it asks {@link #stores}.
 *
 * <p>Transactions: {@link #newTransactionId()} numbers them; the records of a transaction take effect at its
 * commit marker. Thread-safe: the store hands every record to its writer; completions may run on the store's
 * thread.
 */
public final class Persistence {

    private final MessageStore store;
    private final AtomicLong transactionIds = new AtomicLong();

    /** Stores in {@code store}. */
    public Persistence(MessageStore store) {
        this.store = store;
    }

    // ---- messages ----

    /** Whether {@code message}'s records go to the store (see the class comment). */
    public boolean stores(StoredMessage message) {
        return message.persistent();
    }

    /** Whether any of {@code messages} is {@linkplain #stores stored}. */
    public boolean storesAny(List<? extends StoredMessage> messages) {
        for (int i = 0; i < messages.size(); i++) {
            if (messages.get(i).persistent()) {
                return true;
            }
        }
        return false;
    }

    /** Stores a message; {@code completion} runs once it is durable, at once when it is not stored. */
    public void put(StoredMessage message, StoreCompletion completion) {
        if (message.persistent()) {
            store.put(message, completion);
        } else {
            completion.completed(null);
        }
    }

    /**
     * Stores those of {@code copies}, one message's copies on several queues (a publication's), that are stored, as
     * one record ({@link MessageStore#putCopies}: their bytes once, all or none after a crash); {@code completion} runs
     * once it is durable, at once when none is stored.
     */
    public void putCopies(List<? extends StoredMessage> copies, StoreCompletion completion) {
        List<? extends StoredMessage> stored = stored(copies);
        if (stored.isEmpty()) {
            completion.completed(null);
        } else {
            store.putCopies(stored, completion);
        }
    }

    /** Those of {@code messages} that are stored: the list itself when all are (copies on durable subscriptions). */
    private static List<? extends StoredMessage> stored(List<? extends StoredMessage> messages) {
        for (int i = 0; i < messages.size(); i++) {
            if (!messages.get(i).persistent()) { // copies on durable and on non-durable subscriptions: the durable ones
                return messages.stream().filter(StoredMessage::persistent).toList();
            }
        }
        return messages;
    }

    /**
     * Records that a stored message was handed to a consumer for the {@code deliveryCount}-th time, so that a crash
     * brings it back marked redelivered. Nobody waits for it.
     */
    public void delivered(StoredMessage message, int deliveryCount) {
        if (message.persistent()) {
            store.delivered(message, deliveryCount);
        }
    }

    /**
     * Records that messages left their queues for good (acknowledged, expired, discarded); {@code completion} runs
     * once that is durable, at once when none of them is stored. Needs only their queue names and sequences, so the
     * caller may already have released their bytes.
     */
    public void remove(List<? extends StoredMessage> messages, StoreCompletion completion) {
        List<StoredMessage> stored = null;
        for (int i = 0; i < messages.size(); i++) {
            StoredMessage m = messages.get(i);
            if (m.persistent()) {
                if (stored == null) {
                    stored = new ArrayList<>(messages.size() - i);
                }
                stored.add(m);
            }
        }
        if (stored == null) {
            completion.completed(null);
        } else {
            store.remove(stored, completion);
        }
    }

    /**
     * Runs {@code completion} once every record handed to the store before this call is durable (records nobody
     * waited for included: {@link MessageStore#sync}); writes nothing.
     */
    public void sync(StoreCompletion completion) {
        store.sync(completion);
    }

    /** As {@link #remove(List, StoreCompletion)} for one message nobody waits for. */
    public void remove(StoredMessage message) {
        if (message.persistent()) {
            store.remove(List.of(message), StoreCompletion.NONE);
        }
    }

    /**
     * A completion that runs {@code then} once {@code count} records are durable, with the first failure if any: a
     * persistent publication is answered once each of its stored copies (and its retained record) is. Completions
     * may arrive on any thread.
     *
     * @param count how many completions to wait for, more than 0
     */
    public static StoreCompletion countdown(int count, StoreCompletion then) {
        AtomicInteger remaining = new AtomicInteger(count);
        AtomicReference<Throwable> firstFailure = new AtomicReference<>();
        return failure -> {
            if (failure != null) {
                firstFailure.compareAndSet(null, failure);
            }
            if (remaining.decrementAndGet() == 0) {
                then.completed(firstFailure.get());
            }
        };
    }

    // ---- transactions ----

    /** A transaction id never used before by this queue manager. */
    public long newTransactionId() {
        return transactionIds.incrementAndGet();
    }

    /** Records a message sent in transaction {@code transactionId}; effective at its commit. */
    public void putInTransaction(long transactionId, StoredMessage message) {
        if (message.persistent()) {
            store.putInTransaction(transactionId, message);
        }
    }

    /** As {@link #putCopies}, the copies sent in transaction {@code transactionId}; effective at its commit. */
    public void putCopiesInTransaction(long transactionId, List<? extends StoredMessage> copies) {
        List<? extends StoredMessage> stored = stored(copies);
        if (!stored.isEmpty()) {
            store.putCopiesInTransaction(transactionId, stored);
        }
    }

    /** Records a message consumed in transaction {@code transactionId}; effective at its commit. */
    public void removeInTransaction(long transactionId, StoredMessage message) {
        if (message.persistent()) {
            store.removeInTransaction(transactionId, message);
        }
    }

    /** Writes the commit marker of a transaction; {@code completion} runs once it is durable. */
    public void commit(long transactionId, StoreCompletion completion) {
        store.commit(transactionId, completion);
    }

    /**
     * Writes the rollback marker of a transaction, discarding its records; {@code completion} runs once that is
     * durable when the transaction was prepared, at once otherwise (no marker means rolled back).
     */
    public void rollback(long transactionId, StoreCompletion completion) {
        store.rollback(transactionId, completion);
    }

    /**
     * Writes the prepare marker of an XA transaction branch ({@code branch}: its Xid, as the store keeps it); {@code
     * completion} runs once it and the transaction's records are durable, as for a commit (so {@code durability: os}
     * gives a prepare the guarantee it gives a commit). The transaction is then in doubt until its commit or
     * rollback, across restarts. Transaction ids of prepared transactions recovered from the store are the store's
     * own (0 or less), never one {@link #newTransactionId} gives.
     */
    public void prepare(long transactionId, byte[] branch, StoreCompletion completion) {
        store.prepare(transactionId, branch, completion);
    }

    // ---- definitions ----

    /** A queue created by use (or the dead-letter queue created when first needed). */
    public void queueCreated(String queueName) {
        store.queueCreated(queueName);
    }

    /** A queue created by use was deleted as unused. */
    public void queueDeleted(String queueName) {
        store.queueDeleted(queueName);
    }

    /** A durable subscription was created or replaced. */
    public void subscriptionCreated(SubscriptionRecord subscription) {
        store.subscriptionCreated(subscription);
    }

    /** A durable subscription was deleted (its messages are removed with {@link #remove}). */
    public void subscriptionDeleted(String queueName) {
        store.subscriptionDeleted(queueName);
    }

    /** Replays what the store holds into {@code target}; once, at startup, before any client connects. */
    public void recover(RecoveryTarget target) {
        store.recover(target);
    }
}
