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
 * A transacted session's open transaction: the messages sent in it (queue sends and the copies of its publications,
 * in send order), each reserved on its queue but offered only at COMMIT; the publications that become their
 * topic's retained one at COMMIT; and, once a fire-and-forget send of it has failed, the cause that makes COMMIT roll
 * back instead. Its stored sends and consumptions are recorded under its id and take effect with the commit marker.
 * A new transaction begins as one ends, under a new id.
 *
 * <p>Owned by its session, on the connection's event loop; store completions hop back there.
 */
final class Transaction {

    private final Persistence persistence;
    private final TopicManager topics;
    private final EventLoop eventLoop;
    private final List<QueuedMessage> sends = new ArrayList<>();
    private final List<Publication> retains = new ArrayList<>();
    private long id;
    private WharfException rollbackOnlyCause;

    Transaction(Persistence persistence, TopicManager topics, EventLoop eventLoop) {
        this.persistence = persistence;
        this.topics = topics;
        this.eventLoop = eventLoop;
        this.id = persistence.newTransactionId();
    }

    /** A message sent in the transaction, reserved on its queue: offered at COMMIT. */
    void send(QueuedMessage message) {
        sends.add(message);
        persistence.putInTransaction(id, message);
    }

    /** A publication in the transaction: its copies are sends; a retained one is retained at COMMIT. */
    void publish(Publication publication) {
        List<QueuedMessage> copies = publication.copies();
        for (int i = 0; i < copies.size(); i++) {
            send(copies.get(i));
        }
        if (publication.retains()) {
            retains.add(publication);
        }
    }

    /** A fire-and-forget send of the transaction failed: its COMMIT rolls it back, naming the first such failure. */
    void sendFailed(WharfException cause) {
        if (rollbackOnlyCause == null) {
            rollbackOnlyCause = cause;
        }
    }

    /** Why COMMIT must roll back (a fire-and-forget send of it failed), or null. */
    WharfException rollbackOnlyCause() {
        return rollbackOnlyCause;
    }

    /**
     * COMMIT: records the consumption of {@code acknowledged} and the commit marker; once that is durable, offers the
     * sends (each at its JMS delivery time) and retains the publications that asked for it. If the store fails, the
     * sends are cancelled instead. Either way {@code then} runs next, on the event loop, with the store's failure or
     * null; it settles {@code acknowledged} and answers.
     */
    void commit(List<QueuedMessage> acknowledged, StoreCompletion then) {
        long committing = id;
        id = persistence.newTransactionId();
        List<QueuedMessage> committed = new ArrayList<>(sends);
        sends.clear();
        List<Publication> retaining = new ArrayList<>(retains);
        retains.clear();
        rollbackOnlyCause = null;
        for (int i = 0; i < acknowledged.size(); i++) {
            persistence.removeInTransaction(committing, acknowledged.get(i));
        }
        persistence.commit(committing, failure -> onEventLoop(() -> {
            if (failure != null) {
                cancel(committed, retaining);
            } else {
                for (int i = 0; i < committed.size(); i++) {
                    QueuedMessage m = committed.get(i);
                    m.queue().offerWhenDue(m, eventLoop);
                }
                for (int i = 0; i < retaining.size(); i++) {
                    topics.retain(retaining.get(i), StoreCompletion.NONE); // durable with the next synced batch
                }
            }
            then.completed(failure);
        }));
    }

    /**
     * ROLLBACK, a COMMIT that must roll back, or the session closing: the sends leave their queues unseen, no
     * publication is retained, and the store forgets the transaction's records; {@code then} runs once it has the
     * rollback marker, on whatever thread completes it (a closing session's answer needs no event loop, which may
     * be stopping).
     */
    void rollback(StoreCompletion then) {
        long rollingBack = id;
        id = persistence.newTransactionId();
        rollbackOnlyCause = null;
        cancel(sends, retains);
        sends.clear();
        retains.clear();
        persistence.rollback(rollingBack, then);
    }

    private static void cancel(List<QueuedMessage> sends, List<Publication> retains) {
        for (int i = 0; i < sends.size(); i++) {
            QueuedMessage m = sends.get(i);
            m.queue().cancel(m);
        }
        for (int i = 0; i < retains.size(); i++) {
            retains.get(i).releaseRetained();
        }
    }

    private void onEventLoop(Runnable task) {
        if (eventLoop.inEventLoop()) {
            task.run();
        } else {
            eventLoop.execute(task);
        }
    }
}
