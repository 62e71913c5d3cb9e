package org.wharfmq.server.queue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import org.wharfmq.protocol.frame.WireStrings;
import org.wharfmq.protocol.message.BodyType;
import org.wharfmq.protocol.message.MessageEncoding;
import org.wharfmq.protocol.message.MessageHeaders;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.protocol.message.WireMessage;
import org.wharfmq.server.WharfException;
import org.wharfmq.server.store.Persistence;
import org.wharfmq.server.store.StoredMessage;

/**
 * The dead-letter queue, {@value #QUEUE}, and how a message the queue manager cannot keep where it is gets there
 * instead of being dropped or harming its consumers.
 *
 * <p>Two kinds of message go there. A message backed out more often than its queue's {@code backoutThreshold}
 * ({@link #backOut}) goes to the queue's {@code backoutQueue}, or here when it has none or that one cannot take it;
 * it keeps its headers, properties and body and gains the reason properties below. A message that cannot be
 * decoded (found at recovery, by a message selector, by the retained publication check, or rejected by a client
 * that cannot decode its delivery) cannot be given properties, so it is wrapped, as IBM MQ's dead-letter header
 * precedes the original data: the dead letter is a new BytesMessage whose body is the original message's bytes
 * exactly as they were (the encoding of docs/protocol.md), with {@value #WRAPPED_PROPERTY} true, keeping the
 * original's message id and priority when they can be read. An operator can repair the bytes and send them again.
 *
 * <p>The reason properties, on both: {@value #REASON_PROPERTY} (why, for people), {@value #REASON_CODE_PROPERTY}
 * ({@value #BACKED_OUT} or {@value #UNDECODABLE}, for programs), {@value #QUEUE_PROPERTY} (the queue it was on) and
 * {@value #TIME_PROPERTY} (when it was moved); a backed-out message also {@value #DELIVERY_COUNT_PROPERTY}.
 *
 * <p>A journaled message stays journaled: storing the dead letter and removing the original are one journal
 * transaction, so after a crash the journal holds one of them, never both or neither. The dead-letter queue takes every dead letter whatever its depth limit, as it
 * takes recovered messages: it is the last place a message can go. It is created when first needed if the
 * configuration does not define it, whatever {@code autoCreate} says.
 *
 * <p>Called from any thread, never under a queue's lock (the dead-letter queue takes its own).
 */
public final class DeadLetters {

    /** The dead-letter queue's name ({@link SystemQueues#DEAD_LETTER_QUEUE}). */
    public static final String QUEUE = SystemQueues.DEAD_LETTER_QUEUE;
    /** String property: why the message was dead-lettered. */
    public static final String REASON_PROPERTY = "WHARF_DLQ_REASON";
    /** String property: the queue the message was on (a subscription's or retained publication's pseudo queue included). */
    public static final String QUEUE_PROPERTY = "WHARF_DLQ_QUEUE";
    /** Boolean property, true: the body is the original message's bytes, which could not be decoded. */
    public static final String WRAPPED_PROPERTY = "WHARF_DLQ_WRAPPED";
    /** String property: why, for programs ({@link #BACKED_OUT} or {@link #UNDECODABLE}), as IBM MQ's MQDLH Reason. */
    public static final String REASON_CODE_PROPERTY = "WHARF_DLQ_REASON_CODE";
    /** Long property: when the message was moved, epoch ms (IBM MQ's MQDLH PutDate and PutTime). */
    public static final String TIME_PROPERTY = "WHARF_DLQ_TIME";
    /**
     * Int property of a backed-out message: how many times it had been delivered on its queue (its JMSXDeliveryCount
     * starts again at 1 where it is moved to).
     */
    public static final String DELIVERY_COUNT_PROPERTY = "WHARF_DLQ_DELIVERY_COUNT";
    /** {@value #REASON_CODE_PROPERTY}: backed out more often than its queue's backoutThreshold (MQ: MQRC_BACKED_OUT). */
    public static final String BACKED_OUT = "BACKED_OUT";
    /** {@value #REASON_CODE_PROPERTY}: the message could not be decoded; its bytes are the body ({@value #WRAPPED_PROPERTY}). */
    public static final String UNDECODABLE = "UNDECODABLE";
    /** A longer reason is cut: a dead letter is its original plus a few hundred bytes, never much more. */
    static final int MAX_REASON_LENGTH = 1000;
    /**
     * How much longer than maxMessageLength a dead letter the queue manager's own code puts (a channel's, the
     * publish/subscribe hierarchy's) may be: its original, within the limit, and the reason properties.
     */
    public static final int HEADROOM_BYTES = 4 * 1024;
    private static final int DEFAULT_PRIORITY = 4;

    private static final System.Logger LOG = System.getLogger(DeadLetters.class.getName());

    private final QueueManager queues;
    private final Persistence persistence;

    DeadLetters(QueueManager queues, Persistence persistence) {
        this.queues = queues;
        this.persistence = persistence;
    }

    /**
     * Moves a message off its queue: one the queue found undecodable, or a delivery a client rejected. The caller
     * has taken it off the queue's lists or out of the session's deliveries; its place in the queue's depth is
     * given up here.
     */
    public void moveFromQueue(QueuedMessage message, String reason) {
        QueuedMessage letter = deadLetter(message, reason);
        message.queue().removeDeadLettered(message); // first: whoever receives the letter finds the original gone
        letter.queue().offer(letter);
    }

    /**
     * Moves a message backed out more often than its queue's threshold to the queue's backout queue, or to the
     * dead-letter queue when it has none or that one cannot take it (it does not exist and cannot be created, or it
     * is full): as IBM MQ's JMS client requeues to BOQNAME, else to the dead-letter queue. The message keeps its
     * headers, properties and body, and gains the reason properties ({@value #REASON_CODE_PROPERTY}
     * {@value #BACKED_OUT}). Storing it there and removing it from its queue are one journal transaction. Called
     * by its queue, once the lock is released; the message still counts in that queue's depth until then.
     *
     * @param backoutQueue the queue's backout queue, or null
     * @param threshold    the queue's backout threshold, for the reason
     */
    void backOut(QueuedMessage message, String backoutQueue, int threshold) {
        LocalQueue from = message.queue();
        int deliveries = message.deliveryCount() - 1; // the count was raised for the delivery it will not get
        WireMessage decoded;
        try {
            decoded = WireMessage.decode(message.content().duplicate());
        } catch (RuntimeException undecodable) {
            moveFromQueue(message, "backed out and cannot be decoded: " + undecodable.getMessage());
            return;
        }
        String reason = "backed out " + deliveries + (deliveries == 1 ? " time" : " times") + ": the backoutThreshold"
                + " of queue '" + from.name() + "' is " + threshold;
        long now = queues.clock().millis();
        QueuedMessage letter = null;
        if (backoutQueue != null && !backoutQueue.equals(QUEUE)) { // naming the dead-letter queue is naming none
            ByteBuf bytes = withReason(decoded, reason, from.name(), deliveries, now);
            try {
                letter = reserveOn(backoutQueue, bytes);
            } catch (WharfException refused) {
                bytes.release();
                reason += "; its backoutQueue '" + backoutQueue + "' refused it: " + refused.getMessage();
            }
        }
        if (letter == null) {
            LocalQueue deadLetterQueue = queues.deadLetterQueue();
            ByteBuf bytes = withReason(decoded, reason, from.name(), deliveries, now);
            letter = new QueuedMessage(deadLetterQueue, bytes, MessageHeaders.read(bytes));
            deadLetterQueue.admit(letter);
        }
        LocalQueue target = letter.queue();
        LOG.log(System.Logger.Level.WARNING, "Message " + decoded.messageId + " on queue '" + from.name() + "' moved to "
                + target.name() + ": " + reason);
        if (persistence.stores(message) || persistence.stores(letter)) {
            long transaction = persistence.newTransactionId(); // never lost, never on both queues after a crash
            persistence.putInTransaction(transaction, letter);
            persistence.removeInTransaction(transaction, message);
            persistence.commit(transaction, failure -> {
                if (failure != null) {
                    LOG.log(System.Logger.Level.ERROR, "Could not record the move of message " + decoded.messageId
                            + " from queue '" + from.name() + "' to " + target.name() + " (" + failure + "): the"
                            + " journal keeps it on '" + from.name() + "', where it is backed out again at the next"
                            + " start");
                }
            });
        }
        from.removeDeadLettered(message); // first: whoever receives the letter finds the original gone
        target.offer(letter);
    }

    /**
     * Moves a message that is in no queue (a recovered record, a retained publication) to the dead-letter queue.
     * The caller keeps its reference to {@code message}'s bytes and releases it. A stored message
     * ({@link StoredMessage#persistent()}) has a stored dead letter, in its place.
     */
    public void moveStored(StoredMessage message, String reason) {
        QueuedMessage letter = deadLetter(message, reason);
        letter.queue().offer(letter);
    }

    /**
     * {@link #moveStored}'s dead letter of {@code message}, stored in its place and counted on the dead-letter queue,
     * not yet offered there.
     */
    private QueuedMessage deadLetter(StoredMessage message, String reason) {
        boolean journaled = persistence.stores(message);
        ByteBuf original = message.content();
        String messageId = messageIdOf(original);
        LocalQueue deadLetterQueue = queues.deadLetterQueue();
        ByteBuf wrapped = wrap(original, message.queueName(), messageId, journaled, queues.clock().millis(), reason);
        QueuedMessage letter = new QueuedMessage(deadLetterQueue, wrapped, MessageHeaders.read(wrapped));
        deadLetterQueue.admit(letter);
        LOG.log(System.Logger.Level.WARNING, "Message " + (messageId != null ? messageId : "#" + message.sequence()
                + " (its message id cannot be read)") + " on queue '" + message.queueName() + "' moved to " + QUEUE
                + ": " + reason);
        if (journaled) { // one transaction: the journal holds the original or its dead letter, never both or neither
            long transaction = persistence.newTransactionId();
            persistence.putInTransaction(transaction, letter);
            persistence.removeInTransaction(transaction, message); // needs only its queue and sequence
            persistence.commit(transaction, failure -> {
                if (failure != null) {
                    LOG.log(System.Logger.Level.ERROR, "Could not record the move of message " + messageId + " from"
                            + " queue '" + message.queueName() + "' to " + QUEUE + " (" + failure + "): the journal"
                            + " keeps the original, which is dead-lettered again at the next start");
                }
            });
        }
        return letter;
    }

    /**
     * A place on the backout queue {@code name} (created by use when autoCreate allows) for a letter of {@code bytes},
     * which it takes over.
     *
     * @throws WharfException when the queue does not exist and cannot be created, or is full
     */
    private QueuedMessage reserveOn(String name, ByteBuf bytes) {
        if (SystemQueues.isSystem(name)) {
            throw WharfException.illegalState("names starting with " + SystemQueues.SYSTEM_PREFIX + " are the queue"
                    + " manager's own");
        }
        while (true) {
            LocalQueue queue = queues.queue(name);
            QueuedMessage letter = new QueuedMessage(queue, bytes, MessageHeaders.read(bytes));
            if (queue.reserve(letter)) {
                return letter;
            } // else deleted as unused since the look-up: look again
        }
    }

    /** A backed-out message's new bytes: {@code decoded} with the reason properties. */
    private static ByteBuf withReason(WireMessage decoded, String reason, String queueName, int deliveries, long now) {
        decoded.properties.put(REASON_PROPERTY, reason);
        decoded.properties.put(REASON_CODE_PROPERTY, BACKED_OUT);
        decoded.properties.put(QUEUE_PROPERTY, queueName);
        decoded.properties.put(TIME_PROPERTY, now);
        decoded.properties.put(DELIVERY_COUNT_PROPERTY, deliveries);
        ByteBuf bytes = PooledByteBufAllocator.DEFAULT.directBuffer((decoded.body == null ? 0 : decoded.body.length) + 1024);
        decoded.encode(bytes);
        return bytes;
    }

    /** The dead letter: a BytesMessage to {@link #QUEUE} whose body is {@code original}, with the reason properties. */
    private static ByteBuf wrap(ByteBuf original, String queueName, String messageId, boolean persistent, long timestamp,
                                String reason) {
        WireMessage letter = new WireMessage();
        letter.bodyType = BodyType.BYTES;
        letter.persistent = persistent;
        letter.priority = priorityOf(original);
        letter.timestamp = timestamp;
        letter.messageId = messageId;
        letter.destination = WireDestination.queue(QUEUE);
        letter.properties.put(WRAPPED_PROPERTY, true);
        letter.properties.put(REASON_PROPERTY, reason.length() > MAX_REASON_LENGTH
                ? reason.substring(0, MAX_REASON_LENGTH) + "..." : reason);
        letter.properties.put(REASON_CODE_PROPERTY, UNDECODABLE);
        letter.properties.put(QUEUE_PROPERTY, queueName);
        letter.properties.put(TIME_PROPERTY, timestamp);
        letter.body = ByteBufUtil.getBytes(original);
        ByteBuf wrapped = PooledByteBufAllocator.DEFAULT.directBuffer(letter.body.length + 512);
        letter.encode(wrapped);
        return wrapped;
    }

    /** The message id of a message that may be broken; null when it has none or it cannot be read. */
    static String messageIdOf(ByteBuf message) {
        ByteBuf in = message.duplicate();
        try {
            in.skipBytes(MessageEncoding.MESSAGE_ID_OFFSET);
            return WireStrings.read(in);
        } catch (RuntimeException unreadable) { // IndexOutOfBounds, or a length that does not fit
            return null;
        }
    }

    /** The priority of a message that may be broken; the JMS default when it cannot be read. */
    private static int priorityOf(ByteBuf message) {
        if (message.readableBytes() <= MessageEncoding.PRIORITY_OFFSET) {
            return DEFAULT_PRIORITY;
        }
        int priority = message.getByte(message.readerIndex() + MessageEncoding.PRIORITY_OFFSET);
        return priority >= 0 && priority <= 9 ? priority : DEFAULT_PRIORITY;
    }
}
