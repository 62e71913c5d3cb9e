package org.wharfmq.server.session;

import io.netty.channel.EventLoop;
import org.wharfmq.server.WharfException;
import org.wharfmq.server.queue.QueuedMessage;
import org.wharfmq.server.store.Persistence;
import org.wharfmq.server.store.StoreCompletion;
import org.wharfmq.server.topic.Publication;
import org.wharfmq.server.topic.TopicManager;

import java.util.ArrayList;
import java.util.List;

/**
 * One transaction's work until it ends: the messages sent in it (queue sends and the copies of its publications, in
 * send order), each reserved on its queue but offered only at commit; the publications that become their topic's
 * retained one at commit; and, once a fire-and-forget send of it has failed, the cause that makes its commit roll
 * back instead. Its stored sends and consumptions are recorded under its store transaction id and take effect with
 * the commit marker. Work that left no record in the store (non-persistent messages only: nothing of it outlives a
 * restart) is prepared, committed and rolled back without one, so it waits for no journal write. The one way of
 * committing and of cancelling, for a transacted session's transactions and for XA branches ({@link XaBranch})
 * alike.
 *
 * <p>Used once: a transacted session starts a new one as one ends. Owned by one event loop at a time (its session's,
 * or, for an XA branch, whoever holds the branch under {@link XaBranches}' lock); store completions hop back to the
 * event loop the commit names.
 */
final class Transaction {

    private final Persistence persistence;
    private final TopicManager topics;
    private final long id;
    private final List<QueuedMessage> sends = new ArrayList<>();
    private final List<Publication> retains = new ArrayList<>();
    private WharfException rollbackOnlyCause;
    /** Whether any record of it is in the store: a persistent send or consumption, a prepare, a recovered branch. */
    private boolean inStore;

    /** A new transaction, under a new store transaction id. */
    Transaction(Persistence persistence, TopicManager topics) {
        this(persistence, topics, persistence.newTransactionId());
    }

    /**
     * Work recorded under store transaction id {@code id}: an XA session's association with a branch, whose work
     * joins the branch's at XA_END, or a branch recovered from the store.
     */
    Transaction(Persistence persistence, TopicManager topics, long id) {
        this.persistence = persistence;
        this.topics = topics;
        this.id = id;
    }

    /**
     * An XA branch recovered from the store, under its store transaction id {@code id}: its PREPARE record is there,
     * whatever the branch holds (a branch that only consumed, as a channel's batch does, recovers no send), so its
     * commit or rollback is recorded too; a rollback left unrecorded brought the branch back at the next start.
     */
    static Transaction recoveredBranch(Persistence persistence, TopicManager topics, long id) {
        Transaction work = new Transaction(persistence, topics, id);
        work.inStore = true;
        return work;
    }

    /** Messages sent in it so far (queue sends and publications' copies). */
    int sendCount() {
        return sends.size();
    }

    /** The store transaction id its records carry. */
    long id() {
        return id;
    }

    /** A message sent in the transaction, reserved on its queue: offered at commit. */
    void send(QueuedMessage message) {
        sends.add(message);
        inStore |= persistence.stores(message);
        persistence.putInTransaction(id, message);
    }

    /**
     * A publication in the transaction: its copies are sends, stored as one record (their bytes once); a retained one
     * is retained at commit.
     */
    void publish(Publication publication) {
        List<QueuedMessage> copies = publication.copies();
        sends.addAll(copies);
        inStore |= persistence.storesAny(copies);
        persistence.putCopiesInTransaction(id, copies);
        if (publication.retains()) {
            retains.add(publication);
        }
    }

    /** A send recovered from the store with its branch ({@link #recoveredBranch}), reserved on its queue. */
    void recovered(QueuedMessage message) {
        sends.add(message);
    }

    /** A fire-and-forget send of the transaction failed: its commit rolls it back, naming the first such failure. */
    void sendFailed(WharfException cause) {
        if (rollbackOnlyCause == null) {
            rollbackOnlyCause = cause;
        }
    }

    /** Why commit must roll back (a fire-and-forget send of it failed), or null. */
    WharfException rollbackOnlyCause() {
        return rollbackOnlyCause;
    }

    /** Whether nothing was sent in it: the prepare of an XA branch that also consumed nothing is read-only. */
    boolean isEmpty() {
        return sends.isEmpty() && retains.isEmpty();
    }

    /**
     * Hands everything of this transaction to {@code target}, which has the same store transaction id (an XA
     * association's work joining its branch at XA_END); this one is left empty.
     */
    void moveInto(Transaction target) {
        target.sends.addAll(sends);
        target.retains.addAll(retains);
        if (rollbackOnlyCause != null) {
            target.sendFailed(rollbackOnlyCause);
        }
        target.inStore |= inStore;
        inStore = false;
        sends.clear();
        retains.clear();
        rollbackOnlyCause = null;
    }

    /**
     * The first phase of an XA branch's commit: records the consumption of {@code consumed} and the PREPARE record
     * naming the branch ({@link XaBranch#storeKey}); {@code then} runs once they are durable (or the store failed), on
     * whatever thread completes them. Nothing becomes visible. A branch of non-persistent work only writes nothing
     * ({@code then} runs at once): nothing of it would outlive a restart, so a restart forgets the branch with it.
     */
    void prepare(List<QueuedMessage> consumed, byte[] branch, StoreCompletion then) {
        if (!inStore && !persistence.storesAny(consumed)) {
            then.completed(null);
            return;
        }
        inStore = true;
        for (int i = 0; i < consumed.size(); i++) {
            persistence.removeInTransaction(id, consumed.get(i));
        }
        persistence.prepare(id, branch, then);
    }

    /**
     * Commits: records the consumption of {@code consumed} (unless {@code prepared}: the prepare recorded it) and the
     * commit marker; once that is durable, settles {@code consumed} (each leaves its queue) and only then retains the
     * publications that asked for it and offers the sends (each at its JMS delivery time, by {@code eventLoop}'s timer), so that whoever receives a send of the transaction finds what it consumed gone (a flow's get-and-put never
     * shows its input and its output at once). If the store fails, nothing is settled and the sends are cancelled
     * instead, unless {@code prepared}: a prepared transaction stays as it is, to be committed or rolled back again.
     * Either way {@code then} runs next, on {@code eventLoop}, with the store's failure or null; it answers (and,
     * after a failure, gives {@code consumed} back). Work with no record in the store needs no commit marker: it
     * commits at once.
     */
    void commit(List<QueuedMessage> consumed, boolean prepared, EventLoop eventLoop, StoreCompletion then) {
        if (!inStore && !persistence.storesAny(consumed)) {
            onEventLoop(eventLoop, () -> committed(consumed, eventLoop, then));
            return;
        }
        if (!prepared) {
            for (int i = 0; i < consumed.size(); i++) {
                persistence.removeInTransaction(id, consumed.get(i));
            }
        }
        // one task either way, each capturing no more than the one it replaces: the commit path allocates as before
        persistence.commit(id, failure -> {
            if (failure == null) {
                onEventLoop(eventLoop, () -> committed(consumed, eventLoop, then));
            } else {
                onEventLoop(eventLoop, () -> notCommitted(failure, prepared, then));
            }
        });
    }

    /**
     * The commit is durable: what it consumed leaves its queues first, then its publications are retained and its
     * sends offered (each at its JMS delivery time, by {@code eventLoop}'s timer); {@code then} answers. On the event
     * loop.
     */
    private void committed(List<QueuedMessage> consumed, EventLoop eventLoop, StoreCompletion then) {
        BrokerSession.acknowledged(consumed);
        // retained before any copy is offered: whoever has received a copy and subscribes again finds it retained
        for (int i = 0; i < retains.size(); i++) {
            topics.retain(retains.get(i), StoreCompletion.NONE); // durable with the next synced batch
        }
        for (int i = 0; i < sends.size(); i++) {
            QueuedMessage m = sends.get(i);
            m.queue().offerWhenDue(m, eventLoop);
        }
        then.completed(null);
    }

    /** The store could not record the commit: the sends are cancelled unless {@code prepared}; on the event loop. */
    private void notCommitted(Throwable failure, boolean prepared, StoreCompletion then) {
        if (!prepared) {
            cancel();
        }
        then.completed(failure);
    }

    /**
     * Rollback, a commit that must roll back, or the session closing: the sends leave their queues unseen, no
     * publication is retained, and the store forgets the transaction's records; {@code then} runs once it has the
     * rollback marker (durable when the transaction was prepared), on whatever thread completes it (a closing
     * session's answer needs no event loop, which may be stopping).
     */
    void rollback(StoreCompletion then) {
        cancel();
        if (inStore) {
            persistence.rollback(id, then);
        } else {
            then.completed(null); // nothing of it is in the store to discard
        }
    }

    private void cancel() {
        for (int i = 0; i < sends.size(); i++) {
            QueuedMessage m = sends.get(i);
            m.queue().cancel(m);
        }
        for (int i = 0; i < retains.size(); i++) {
            retains.get(i).releaseRetained();
        }
        sends.clear();
        retains.clear();
    }

    private static void onEventLoop(EventLoop eventLoop, Runnable task) {
        if (eventLoop.inEventLoop()) {
            task.run();
        } else {
            eventLoop.execute(task);
        }
    }
}
