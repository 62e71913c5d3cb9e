package org.wharfmq.server.management;

import org.wharfmq.server.config.QueueDefinition;
import org.wharfmq.server.session.XaBranches.PreparedBranch;
import org.wharfmq.server.store.JournalSyncObserver;
import org.wharfmq.server.transport.ConnectionInfo;
import org.wharfmq.server.topic.TopicManager.SubscriptionInfo;

import java.util.List;
import java.util.Map;

/**
 * What operators see of a queue manager and do to it: the one view the admin command queue, a metrics endpoint and a
 * web console share ({@code ServerPlugin.Host#management()}). Every method may block for a short while (asking each
 * connection's event loop, waiting for the journal), so call it from a thread of your own, never from an event loop.
 *
 * <h2>Refusals</h2>
 * A request that cannot be done changes nothing and throws, with a message that names what was refused, why and the
 * fix: {@link org.wharfmq.server.WharfException} UNKNOWN_DESTINATION for a queue or subscription that does not exist,
 * other codes for a refusal (ILLEGAL_STATE: in use, not allowed; TOO_MANY_QUEUES; QUEUE_FULL; INVALID_SELECTOR);
 * {@link java.util.NoSuchElementException} for an unknown connection; {@link IllegalArgumentException} for bad input;
 * {@link IllegalStateException} when the journal does not record a change in time.
 */
public interface Management {

    /** The queue manager: its version, uptime, listeners, journal and memory. */
    ServerStatus server();

    /**
     * The queues whose names match {@code pattern}, by name: named queues and live temporary queues (not the
     * subscriptions' queues: {@link #subscriptions}).
     *
     * @param pattern a queue pattern as the security file writes them ({@code ORDERS.*}, {@code ORDERS.**},
     *                {@code **}); null for all
     * @throws IllegalArgumentException for a pattern that is not one
     */
    List<QueueStatus> queues(String pattern);

    /** One queue. */
    QueueStatus queue(String name);

    /**
     * Whether a queue of that name exists (a named queue, or a live temporary queue): one look-up, nothing made, for
     * a check on every message (a channel's puts); {@link #queue} gives its status.
     */
    boolean queueExists(String name);

    /**
     * Whether {@code name} is a local queue with usage transmission: one look-up, no lock, nothing made, for a check on
     * every message (a channel's puts).
     */
    boolean isTransmissionQueue(String name);

    /**
     * The transmission queue a message for queue manager {@code queueManager} goes on, as a put to
     * {@code queueManager/Q} resolves it (a queue-manager alias's, the transmission queue named as it, the default
     * one); null when nothing leads there, or when it is this queue manager.
     */
    String transmissionQueueTo(String queueManager);

    /**
     * Whether a name qualified by {@code queueManager} ({@code queueManager/Q}) names a queue of this queue manager
     * (an empty name, its own, or a queue-manager alias that leads here): a few map look-ups, nothing made, for a
     * check on a channel's message for a qualified name.
     */
    boolean leadsHere(String queueManager);

    /**
     * Defines a queue at run time with its settings (each null one at its default; it survives restarts; see
     * docs/operations.md for which wins against the configuration file).
     */
    QueueStatus defineQueue(QueueDefinition definition);

    /**
     * Changes a queue's settings at run time (kept across restarts); a queue created by use becomes a defined one.
     *
     * @param changes the settings to change, texts by key as config/wharf.yaml names them ({@code maxDepth}
     *                {@code 500}): a key left out stays as it is; an empty text or {@code default} puts it back to its
     *                default ({@link QueueDefinition#alteredBy})
     * @throws IllegalArgumentException naming an unknown key, or a value of the wrong type or refused
     */
    QueueStatus alterQueue(String name, Map<String, String> changes);

    /**
     * Deletes a queue; one that holds messages or has consumers or browsers only when {@code force}, its waiting
     * messages then discarded and its consumers told.
     *
     * @return how many waiting messages were discarded
     */
    int deleteQueue(String name, boolean force);

    /**
     * The queue aliases, remote queues and queue-manager aliases (docs/distributed.md), by name, and the queue
     * manager's default transmission queue is in {@link #server()}.
     */
    List<QueueNameStatus> names();

    /** Defines a queue alias, remote queue or queue-manager alias at run time (it survives restarts). */
    QueueNameStatus defineName(org.wharfmq.server.config.QueueReference reference);

    /**
     * Deletes a queue alias, remote queue or queue-manager alias defined at run time.
     *
     * @param type {@code alias} or {@code remote}: what the caller means to delete, refused when it is the other
     */
    QueueNameStatus deleteName(String name, String type);

    /** Removes every waiting message of a queue (delivered, transactional and delayed ones stay). */
    Clearance clearQueue(String name);

    /**
     * Shows up to {@code limit} waiting messages of a queue in delivery order, leaving them there.
     *
     * @param selector     a JMS message selector, or null for all
     * @param maxBodyBytes how many bytes of each body to return at most
     */
    List<BrowsedMessage> browse(String queue, String selector, int limit, int maxBodyBytes);

    /**
     * Moves up to {@code limit} waiting messages that {@code selector} accepts from one queue to another, in delivery
     * order, each atomically (the journal holds it on one queue or the other, never both or neither). A moved message
     * keeps its bytes (JMSMessageID, JMSTimestamp, JMSDestination as sent) and starts with delivery count 1.
     */
    Transfer move(String from, String to, String selector, long limit);

    /** Copies up to {@code limit} waiting messages that {@code selector} accepts to another queue, leaving them. */
    Transfer copy(String from, String to, String selector, long limit);

    /** The journal's size and its syncs since the start; null when the queue manager keeps no journal. */
    JournalStatus journal();

    /**
     * Tells {@code observer} of every later sync of the journal (once per sync, on the journal's sync thread; none
     * with durability os or without a journal), replacing the observer before: what a sync latency histogram records.
     */
    void observeJournalSyncs(JournalSyncObserver observer);

    /** The connections taken together: open ones, sessions, consumers, producers, bytes in and out since the start. */
    ConnectionTotals connectionTotals();

    /** The client connections past their handshake, by number. */
    List<ConnectionInfo> connections();

    /**
     * Ends a client connection: the client is told {@code reason} and the connection closes as if it dropped.
     *
     * @return the connection as it was just before
     */
    ConnectionInfo endConnection(long id, String reason);

    /** Every topic subscription, by topic then name. */
    List<SubscriptionInfo> subscriptions();

    /** Deletes a durable subscription and its messages, whoever owns it; refused while it has consumers. */
    void deleteSubscription(String clientId, String name);

    /**
     * Tells {@code observer} of every later subscription created or deleted, replacing the observer before: the
     * proxy subscriptions of publish/subscribe across queue managers follow them. It runs on the thread that made the
     * change, possibly under the topic manager's lock, so it must only hand the news to a thread of its own, which
     * reads {@link #subscriptions()}.
     */
    void observeSubscriptions(Runnable observer);

    /**
     * The prepared XA branches, in doubt until their transaction managers commit or roll them back, oldest first, with
     * how long each has waited: its sends stay invisible and what it consumed held until then, so one that waits long
     * is worth a look at its transaction manager.
     */
    List<PreparedBranch> preparedBranches();

    /**
     * Makes sure a queue the queue manager's own plugins serve exists ({@code SYSTEM.ADMIN.COMMAND.QUEUE}), whatever
     * autoCreate says, and keeps it.
     */
    void systemQueue(String name);

    /**
     * As {@link #systemQueue}, for a queue whose messages stay in memory, never paged (policy block, its producers
     * never held for its few bytes): a receiver channel's sync records, which each batch's commit takes by a
     * selector among the messages waiting in memory. What it has paged already (at recovery, past three quarters of
     * the server's budget) is read back before it returns. Waits for disk reads: not on an event loop.
     */
    void systemQueueInMemory(String name);
}
