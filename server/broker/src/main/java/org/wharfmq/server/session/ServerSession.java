package org.wharfmq.server.session;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.util.collection.IntObjectHashMap;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.frame.MalformedFrameException;
import org.wharfmq.protocol.message.MessageHeaders;
import org.wharfmq.protocol.selector.Selector;
import org.wharfmq.server.WharfException;
import org.wharfmq.server.queue.LocalQueue;
import org.wharfmq.server.queue.QueueManager;
import org.wharfmq.server.queue.QueuedMessage;
import org.wharfmq.server.store.MessageStore;
import org.wharfmq.server.store.StoreCompletion;
import org.wharfmq.server.topic.Publication;
import org.wharfmq.server.topic.TopicManager;
import org.wharfmq.protocol.message.WireDestination;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A client's JMS Session on the server: its consumers and their unacknowledged deliveries, its open transaction
 * (sends held until COMMIT), and the DELIVER frames on their way to the socket.
 *
 * <h2>Threading</h2>
 * <ul>
 *   <li>The session is driven by its connection's event loop: every public method is called there, in frame
 *       order, and the consumer map and transaction are touched only there.</li>
 *   <li>Deliveries are recorded from any thread: a producer on another connection puts a message, the queue hands
 *       it to one of this session's consumers under the queue's lock, and {@link #record} assigns the delivery id
 *       and queues the frame under this session's small lock (queue lock, then session lock: never the other way).
 *       </li>
 *   <li>Frames are written only on the event loop, by {@link #drain()}: inline when the delivery was made on this
 *       loop, otherwise from one task scheduled per burst. Because ids are assigned and frames queued under the
 *       same lock, DELIVERs reach the client in delivery-id order, whichever threads produced them.</li>
 *   <li>Each DELIVER carries {@code retainedDuplicate()} of the stored bytes, taken under the session lock while
 *       the delivery is still live, so the body is never copied and never released under the writer.</li>
 *   <li>Store completions may come from the store's thread; they hop back to the event loop before touching
 *       session state.</li>
 * </ul>
 */
public final class ServerSession {

    private static final System.Logger LOG = System.getLogger(ServerSession.class.getName());

    private final int id;
    private final boolean transacted;
    private final Channel channel;
    private final EventLoop eventLoop;
    private final Replies replies;
    private final QueueManager queueManager;
    private final TopicManager topics;
    private final String clientId;
    private final MessageStore store;
    private final int maxMessageLength;

    /** Guards delivery ids, every consumer's unacknowledged deliveries, and the frames waiting to be written. */
    private final Object lock = new Object();
    private long nextDeliveryId = 1;
    private final ArrayDeque<Delivery> unwritten = new ArrayDeque<>();
    private boolean drainScheduled;

    // owned by the event loop
    private final IntObjectHashMap<ServerConsumer> consumers = new IntObjectHashMap<>();
    /** Closed consumers that still hold deliveries the application consumed; settled by the next ACK/COMMIT/ROLLBACK. */
    private final List<ServerConsumer> retired = new ArrayList<>();
    private final List<QueuedMessage> transactionSends = new ArrayList<>();
    /** Publications of the open transaction that become their topic's retained one at commit. */
    private final List<Publication> transactionRetains = new ArrayList<>();
    private long transactionId;
    private WharfException rollbackOnlyCause;
    private final List<Frame.Deliver> drainBatch = new ArrayList<>();
    private final Runnable drainTask = this::drain;

    /**
     * @param id               the id the client chose
     * @param transacted       whether sends are held until COMMIT and consumption is settled by COMMIT/ROLLBACK
     * @param channel          the connection
     * @param replies          answers on that connection
     * @param queueManager     the queues
     * @param topics           publish/subscribe
     * @param clientId         the connection's client ID (fixed before any session exists), or null
     * @param maxMessageLength longest message accepted (setting maxMessageLength)
     */
    public ServerSession(int id, boolean transacted, Channel channel, Replies replies, QueueManager queueManager,
                         TopicManager topics, String clientId, int maxMessageLength) {
        this.id = id;
        this.transacted = transacted;
        this.channel = channel;
        this.eventLoop = channel.eventLoop();
        this.replies = replies;
        this.queueManager = queueManager;
        this.topics = topics;
        this.clientId = clientId;
        this.store = queueManager.store();
        this.maxMessageLength = maxMessageLength;
        this.transactionId = transacted ? queueManager.nextTransactionId() : 0;
    }

    /** The id the client chose. */
    public int id() {
        return id;
    }

    // ---- consumers ----

    /**
     * Creates a consumer; it receives nothing until {@link #startConsumer}, so its creation can be answered first.
     * {@code queue} is attached ({@link LocalQueue#attach}) for the consumer, which detaches it when it closes.
     */
    public ServerConsumer createConsumer(int consumerId, LocalQueue queue, Selector selector, int credit) {
        ServerConsumer consumer = new ServerConsumer(consumerId, this, queue, selector, credit);
        consumers.put(consumerId, consumer);
        return consumer;
    }

    /** Registers the consumer with its queue, which sends it what its credit allows. */
    public void startConsumer(ServerConsumer consumer) {
        consumer.queue().addConsumer(consumer);
    }

    /**
     * CLOSE_CONSUMER: deliveries after {@code lastConsumedDeliveryId} never reached the application and go back to
     * the queue as they were; the rest stay with the session until acknowledged, committed or rolled back.
     */
    public void closeConsumer(ServerConsumer consumer, long lastConsumedDeliveryId) {
        if (!consumer.open) {
            return;
        }
        consumer.open = false;
        consumer.queue().removeConsumer(consumer);
        consumer.queue().detach();
        consumers.remove(consumer.id());
        List<QueuedMessage> unconsumed = new ArrayList<>();
        boolean holdsConsumed;
        synchronized (lock) {
            Delivery d;
            while ((d = consumer.unacknowledged.peekLast()) != null && d.deliveryId > lastConsumedDeliveryId) {
                consumer.unacknowledged.pollLast();
                d.settled = true;
                unconsumed.add(d.message);
            }
            holdsConsumed = !consumer.unacknowledged.isEmpty();
        }
        if (holdsConsumed) {
            retired.add(consumer);
        }
        consumer.queue().giveBack(unconsumed);
        consumer.closed();
    }

    /** CREDIT: the consumer may be sent {@code credit} more messages. */
    public void addCredit(ServerConsumer consumer, int credit) {
        if (consumer.open) {
            consumer.queue().addCredit(consumer, credit);
        }
    }

    /**
     * PULL: delivers one available message, credit or not. Every delivery recorded for this session so far,
     * including one a producer on another thread handed over a moment ago, is written before this returns, so
     * the PULL_DONE written next never overtakes a message that was already on its way.
     */
    public void pull(ServerConsumer consumer) {
        if (consumer.open) {
            consumer.queue().pull(consumer);
        }
        drain();
    }

    // ---- deliveries ----

    /** Records a delivery and queues its frame; called by the queue, under its lock, from any thread. */
    void record(ServerConsumer consumer, QueuedMessage message) {
        synchronized (lock) {
            Delivery d = new Delivery(consumer, nextDeliveryId++, message.deliveryCount(), message);
            consumer.unacknowledged.addLast(d);
            unwritten.addLast(d);
        }
        if (message.persistent()) {
            store.delivered(message, message.deliveryCount()); // so a crash brings it back as redelivered
        }
    }

    /** Gets the recorded deliveries written: now when on the event loop, else by one scheduled task. */
    void flushDeliveries() {
        if (eventLoop.inEventLoop()) {
            drain();
            return;
        }
        boolean schedule;
        synchronized (lock) {
            schedule = !drainScheduled && !unwritten.isEmpty();
            if (schedule) {
                drainScheduled = true;
            }
        }
        if (schedule) {
            eventLoop.execute(drainTask);
        }
    }

    private void drain() {
        List<Frame.Deliver> batch = drainBatch;
        synchronized (lock) {
            drainScheduled = false;
            Delivery d;
            while ((d = unwritten.pollFirst()) != null) {
                if (!d.settled) {
                    batch.add(new Frame.Deliver(d.consumer.id(), d.deliveryId, d.deliveryCount,
                            d.message.content().retainedDuplicate()));
                }
            }
        }
        if (batch.isEmpty()) {
            return;
        }
        for (int i = 0; i < batch.size(); i++) {
            channel.write(batch.get(i), channel.voidPromise());
        }
        batch.clear();
        channel.flush();
    }

    // ---- sending ----

    /**
     * SEND: validates the message, takes its place on the queue, then makes it visible: at once, once stored (a
     * persistent message), or at COMMIT (a transacted session). Takes over the reference to {@code content}. A
     * message whose encoding is broken is refused with MALFORMED_MESSAGE, like any other refused send: the frame
     * around it was fine, so the connection goes on.
     */
    public void send(int requestId, int producerId, ByteBuf content) {
        QueuedMessage message;
        try {
            MessageHeaders headers = read(content);
            WireDestination destination = headers.destination();
            if (destination != null && !destination.kind().isQueue()) {
                publishToTopic(requestId, producerId, content, headers);
                return;
            }
            message = accept(content, headers);
        } catch (WharfException e) {
            content.release();
            sendFailed(requestId, producerId, e);
            return;
        } catch (RuntimeException e) {
            content.release();
            throw e;
        }
        if (transacted) {
            transactionSends.add(message);
            if (message.persistent()) {
                store.putInTransaction(transactionId, message);
            }
            replies.ok(requestId);
        } else if (message.persistent()) {
            store.put(message, failure -> onEventLoop(() -> stored(requestId, producerId, message, failure)));
        } else {
            publish(message);
            replies.ok(requestId);
        }
    }

    private MessageHeaders read(ByteBuf content) {
        int length = content.readableBytes();
        if (length > maxMessageLength) {
            throw new WharfException(ErrorCode.MESSAGE_TOO_LARGE, "The message is " + length
                    + " bytes long, more than the maximum message length of " + maxMessageLength
                    + " bytes (setting maxMessageLength).");
        }
        try {
            return MessageHeaders.read(content);
        } catch (MalformedFrameException e) {
            throw new WharfException(ErrorCode.MALFORMED_MESSAGE, "The message was refused and not stored: "
                    + e.getMessage() + ". It does not follow Wharf's message encoding (docs/protocol.md, \"Message "
                    + "encoding\"): the producer's client library encoded it wrongly.");
        }
    }

    private QueuedMessage accept(ByteBuf content, MessageHeaders headers) {
        while (true) {
            LocalQueue queue = queueManager.queue(headers.destination());
            QueuedMessage message = new QueuedMessage(queue, content, headers);
            if (queue.reserve(message)) {
                return message;
            }
            // deleted as unused since the lookup (QueueManager): the next lookup finds or creates its successor
        }
    }

    /**
     * A SEND to a topic: one copy per matching subscription, each then handled as a queue send (held until COMMIT,
     * or made visible once the durable subscriptions' copies are synced). Takes over {@code content}.
     */
    private void publishToTopic(int requestId, int producerId, ByteBuf content, MessageHeaders headers) {
        Publication publication = topics.route(content, headers, channel, clientId); // failures: see send
        content.release(); // the copies hold their own references
        List<QueuedMessage> copies = publication.copies();
        if (transacted) {
            for (int i = 0; i < copies.size(); i++) {
                QueuedMessage copy = copies.get(i);
                transactionSends.add(copy);
                if (copy.persistent()) {
                    store.putInTransaction(transactionId, copy);
                }
            }
            if (publication.retains()) {
                transactionRetains.add(publication);
            }
            replies.ok(requestId);
            return;
        }
        int toStore = publication.retains() && headers.persistent() ? 1 : 0;
        for (int i = 0; i < copies.size(); i++) {
            toStore += copies.get(i).persistent() ? 1 : 0;
        }
        if (toStore == 0) {
            published(requestId, producerId, publication, null);
            return;
        }
        StoreCompletion all = new CountdownCompletion(toStore,
                failure -> onEventLoop(() -> published(requestId, producerId, publication, failure)));
        for (int i = 0; i < copies.size(); i++) {
            if (copies.get(i).persistent()) {
                store.put(copies.get(i), all);
            }
        }
        if (publication.retains() && headers.persistent()) {
            topics.retain(publication, all);
        }
    }

    private void published(int requestId, int producerId, Publication publication, Throwable failure) {
        List<QueuedMessage> copies = publication.copies();
        if (failure != null) {
            LOG.log(System.Logger.Level.WARNING, "Could not store a publication to topic '" + publication.topic()
                    + "': " + failure);
            cancel(copies);
            sendFailed(requestId, producerId,
                    new WharfException(ErrorCode.INTERNAL_ERROR, "The message could not be stored: " + failure));
            return;
        }
        for (int i = 0; i < copies.size(); i++) {
            publish(copies.get(i));
        }
        topics.retain(publication, StoreCompletion.NONE); // a no-op when it was retained while storing
        replies.ok(requestId);
    }

    private void stored(int requestId, int producerId, QueuedMessage message, Throwable failure) {
        if (failure != null) {
            LOG.log(System.Logger.Level.WARNING, "Could not store " + message + ": " + failure);
            message.queue().cancel(message);
            sendFailed(requestId, producerId,
                    new WharfException(ErrorCode.INTERNAL_ERROR, "The message could not be stored: " + failure));
            return;
        }
        publish(message);
        replies.ok(requestId);
    }

    /** Offers the message to its queue, now or, with a JMS delivery delay, at its delivery time. */
    private void publish(QueuedMessage message) {
        long delay = message.deliveryTime() - System.currentTimeMillis();
        if (delay > 0) {
            eventLoop.schedule(() -> message.queue().offer(message), delay, TimeUnit.MILLISECONDS);
        } else {
            message.queue().offer(message);
        }
    }

    private void sendFailed(int requestId, int producerId, WharfException e) {
        if (requestId == 0 && transacted && rollbackOnlyCause == null) {
            rollbackOnlyCause = e;
        }
        replies.error(requestId, e, id, producerId);
    }

    /**
     * REJECT: the client cannot decode a delivery, so its application will never see it. It leaves the consumer's
     * unacknowledged deliveries for the dead-letter queue, whatever the session's transaction or acknowledgement
     * mode. A delivery already settled (acknowledged, or returned by a rollback or close) is left alone.
     *
     * @param reason why, as the dead letter's reason: who rejected it and what the client could not decode
     */
    public void reject(ServerConsumer consumer, long deliveryId, String reason) {
        QueuedMessage rejected = null;
        synchronized (lock) {
            for (Iterator<Delivery> it = consumer.unacknowledged.iterator(); it.hasNext(); ) {
                Delivery d = it.next();
                if (d.deliveryId >= deliveryId) {
                    if (d.deliveryId == deliveryId) {
                        it.remove();
                        d.settled = true;
                        rejected = d.message;
                    }
                    break;
                }
            }
        }
        if (rejected != null) {
            queueManager.deadLetters().moveFromQueue(rejected, reason);
        }
    }

    // ---- acknowledging ----

    /** ACK: the listed consumers' deliveries up to the given ids (and any held by closed consumers) are done. */
    public void acknowledge(int requestId, List<Frame.Consumed> consumed) {
        if (transacted) {
            throw WharfException.illegalState("Session " + id + " is transacted: COMMIT settles what it consumed, not ACK.");
        }
        List<QueuedMessage> acknowledged = takeConsumed(consumed, false);
        if (!anyPersistent(acknowledged)) {
            acknowledged(acknowledged);
            replies.ok(requestId);
            return;
        }
        // the queue forgets the messages at once (after a crash before the record is durable they come back, which
        // an unanswered ACK allows); only the answer waits for the record, which needs just queue and sequence
        List<QueuedMessage> persistent = persistentOnly(acknowledged);
        acknowledged(acknowledged);
        store.remove(persistent, failure -> onEventLoop(() -> {
            if (failure != null) {
                LOG.log(System.Logger.Level.WARNING, "Could not record acknowledgement in session " + id + ": " + failure);
            }
            replies.ok(requestId);
        }));
    }

    /**
     * COMMIT: the transaction's sends become visible and the listed deliveries are acknowledged, once the store
     * has the commit marker. If a fire-and-forget send of the transaction failed, the transaction is rolled back
     * instead and COMMIT answers TRANSACTION_ROLLED_BACK naming that failure; then only the listed (consumed)
     * deliveries go back, marked redelivered, and prefetched ones stay with their consumers.
     */
    public void commit(int requestId, List<Frame.Consumed> consumed) {
        requireTransacted("COMMIT");
        long transaction = transactionId;
        transactionId = queueManager.nextTransactionId();
        List<QueuedMessage> sends = new ArrayList<>(transactionSends);
        transactionSends.clear();
        List<Publication> retains = new ArrayList<>(transactionRetains);
        transactionRetains.clear();
        WharfException cause = rollbackOnlyCause;
        rollbackOnlyCause = null;
        if (cause != null) {
            List<QueuedMessage> rolledBack = takeConsumed(consumed, true);
            cancel(sends);
            releaseRetains(retains);
            giveBack(rolledBack);
            store.rollback(transaction, failure -> replies.error(requestId, ErrorCode.TRANSACTION_ROLLED_BACK,
                    "The transaction was rolled back because a send in it failed: " + cause.getMessage(), id, 0));
            return;
        }
        List<QueuedMessage> acknowledged = takeConsumed(consumed, false);
        for (int i = 0; i < acknowledged.size(); i++) {
            QueuedMessage m = acknowledged.get(i);
            if (m.persistent()) {
                store.removeInTransaction(transaction, m);
            }
        }
        store.commit(transaction, failure -> onEventLoop(() -> committed(requestId, sends, retains, acknowledged, failure)));
    }

    private void committed(int requestId, List<QueuedMessage> sends, List<Publication> retains,
                           List<QueuedMessage> acknowledged, Throwable failure) {
        if (failure != null) {
            LOG.log(System.Logger.Level.WARNING, "Could not store the commit of session " + id + ": " + failure);
            cancel(sends);
            releaseRetains(retains);
            for (int i = 0; i < acknowledged.size(); i++) {
                acknowledged.get(i).countRedelivery();
            }
            giveBack(acknowledged);
            replies.error(requestId, ErrorCode.TRANSACTION_ROLLED_BACK,
                    "The transaction was rolled back because the store could not record its commit: " + failure, id, 0);
            return;
        }
        for (int i = 0; i < sends.size(); i++) {
            publish(sends.get(i));
        }
        for (int i = 0; i < retains.size(); i++) {
            topics.retain(retains.get(i), StoreCompletion.NONE); // durable with the next synced batch
        }
        acknowledged(acknowledged);
        replies.ok(requestId);
    }

    /**
     * ROLLBACK (also Session.recover): pending sends are dropped; every unacknowledged delivery goes back to its
     * queue at its original position, the listed consumed ones (and those held by closed consumers) with their
     * delivery count increased. No delivery reaches the session's consumers before the OK; after it, each
     * consumer restarts at its initial credit.
     */
    public void rollback(int requestId, List<Frame.Consumed> consumed) {
        for (ServerConsumer c : consumers.values()) {
            c.queue().suspend(c);
        }
        List<QueuedMessage> returned = new ArrayList<>();
        synchronized (lock) {
            for (ServerConsumer c : consumers.values()) {
                settleAll(c, lastConsumed(consumed, c.id()), returned);
            }
            for (ServerConsumer c : retired) {
                settleAll(c, Long.MAX_VALUE, returned);
            }
        }
        retired.clear();
        giveBack(returned);
        Runnable restart = () -> {
            replies.ok(requestId);
            for (ServerConsumer c : consumers.values()) {
                c.queue().resume(c);
            }
        };
        if (transacted) {
            long transaction = transactionId;
            transactionId = queueManager.nextTransactionId();
            rollbackOnlyCause = null;
            cancel(transactionSends);
            transactionSends.clear();
            releaseRetains(transactionRetains);
            store.rollback(transaction, failure -> onEventLoop(restart));
        } else {
            restart.run();
        }
    }

    /**
     * CLOSE_SESSION, CLOSE, or the connection dropped: the open transaction is rolled back and every
     * unacknowledged delivery goes back to its queue. Those the application consumed are always counted as
     * redelivered; prefetched ones only when {@code countPrefetched} (CLOSE_SESSION and a dropped connection
     * count them, an orderly CLOSE does not). Answers OK when {@code requestId} is not 0.
     */
    public void close(int requestId, boolean countPrefetched) {
        List<ServerConsumer> closing = new ArrayList<>(consumers.values());
        for (ServerConsumer c : closing) {
            c.open = false;
            c.queue().removeConsumer(c);
            c.queue().detach();
        }
        List<QueuedMessage> returned = new ArrayList<>();
        synchronized (lock) {
            long counted = countPrefetched ? Long.MAX_VALUE : Long.MIN_VALUE;
            for (ServerConsumer c : consumers.values()) {
                settleAll(c, counted, returned);
            }
            for (ServerConsumer c : retired) {
                settleAll(c, Long.MAX_VALUE, returned);
            }
            unwritten.clear();
        }
        consumers.clear();
        retired.clear();
        giveBack(returned);
        for (ServerConsumer c : closing) {
            c.closed();
        }
        if (transacted) {
            rollbackOnlyCause = null;
            cancel(transactionSends);
            transactionSends.clear();
            releaseRetains(transactionRetains);
            store.rollback(transactionId, failure -> replies.ok(requestId));
        } else {
            replies.ok(requestId);
        }
    }

    // ---- helpers ----

    /** Removes consumed deliveries (up to the listed ids, plus all held by closed consumers) from the session. */
    private List<QueuedMessage> takeConsumed(List<Frame.Consumed> consumed, boolean countRedelivery) {
        List<QueuedMessage> taken = new ArrayList<>();
        synchronized (lock) {
            for (int i = 0; i < consumed.size(); i++) {
                Frame.Consumed c = consumed.get(i);
                ServerConsumer consumer = consumers.get(c.consumerId());
                if (consumer != null) {
                    settleUpTo(consumer, c.lastDeliveryId(), countRedelivery, taken);
                }
            }
            for (ServerConsumer consumer : retired) {
                settleUpTo(consumer, Long.MAX_VALUE, countRedelivery, taken);
            }
        }
        retired.clear();
        return taken;
    }

    /** Settles a consumer's deliveries up to {@code lastDeliveryId}; under the lock. */
    private static void settleUpTo(ServerConsumer consumer, long lastDeliveryId, boolean countRedelivery,
                                   List<QueuedMessage> out) {
        Delivery d;
        while ((d = consumer.unacknowledged.peekFirst()) != null && d.deliveryId <= lastDeliveryId) {
            consumer.unacknowledged.pollFirst();
            d.settled = true;
            if (countRedelivery) {
                d.message.countRedelivery();
            }
            out.add(d.message);
        }
    }

    /** Settles all of a consumer's deliveries, counting a redelivery on those up to {@code countUpTo}; under the lock. */
    private static void settleAll(ServerConsumer consumer, long countUpTo, List<QueuedMessage> out) {
        Delivery d;
        while ((d = consumer.unacknowledged.pollFirst()) != null) {
            d.settled = true;
            if (d.deliveryId <= countUpTo) {
                d.message.countRedelivery();
            }
            out.add(d.message);
        }
    }

    private static long lastConsumed(List<Frame.Consumed> consumed, int consumerId) {
        for (int i = 0; i < consumed.size(); i++) {
            if (consumed.get(i).consumerId() == consumerId) {
                return consumed.get(i).lastDeliveryId();
            }
        }
        return Long.MIN_VALUE;
    }

    private static void acknowledged(List<QueuedMessage> messages) {
        for (int i = 0; i < messages.size(); i++) {
            QueuedMessage m = messages.get(i);
            m.queue().acknowledge(m);
        }
    }

    private static void cancel(List<QueuedMessage> sends) {
        for (int i = 0; i < sends.size(); i++) {
            QueuedMessage m = sends.get(i);
            m.queue().cancel(m);
        }
    }

    private static void releaseRetains(List<Publication> retains) {
        for (int i = 0; i < retains.size(); i++) {
            retains.get(i).releaseRetained();
        }
        retains.clear();
    }

    /** Returns messages to their queues, one call per queue. */
    private static void giveBack(List<QueuedMessage> messages) {
        if (messages.isEmpty()) {
            return;
        }
        LocalQueue first = messages.get(0).queue();
        boolean oneQueue = true;
        for (int i = 1; i < messages.size() && oneQueue; i++) {
            oneQueue = messages.get(i).queue() == first;
        }
        if (oneQueue) {
            first.giveBack(messages);
            return;
        }
        Map<LocalQueue, List<QueuedMessage>> byQueue = new LinkedHashMap<>();
        for (QueuedMessage m : messages) {
            byQueue.computeIfAbsent(m.queue(), q -> new ArrayList<>()).add(m);
        }
        byQueue.forEach(LocalQueue::giveBack);
    }

    private static boolean anyPersistent(List<QueuedMessage> messages) {
        for (int i = 0; i < messages.size(); i++) {
            if (messages.get(i).persistent()) {
                return true;
            }
        }
        return false;
    }

    private static List<QueuedMessage> persistentOnly(List<QueuedMessage> messages) {
        List<QueuedMessage> persistent = new ArrayList<>(messages.size());
        for (QueuedMessage m : messages) {
            if (m.persistent()) {
                persistent.add(m);
            }
        }
        return persistent;
    }

    private void requireTransacted(String frame) {
        if (!transacted) {
            throw WharfException.illegalState("Session " + id + " is not transacted: " + frame + " is not allowed.");
        }
    }

    private void onEventLoop(Runnable task) {
        if (eventLoop.inEventLoop()) {
            task.run();
        } else {
            eventLoop.execute(task);
        }
    }

    @Override
    public String toString() {
        return "session " + id + (transacted ? " (transacted)" : "");
    }
}
