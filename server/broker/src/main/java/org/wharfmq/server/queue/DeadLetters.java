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
import org.wharfmq.server.store.Persistence;
import org.wharfmq.server.store.StoredMessage;

/**
 * The dead-letter queue, {@value #QUEUE}, and how a message the queue manager cannot keep where it is gets there
 * instead of being dropped or harming its consumers.
 *
 * <p>Today that is a message that cannot be decoded: found at recovery, by a message selector, by the retained
 * publication check, or rejected by a client that cannot decode its delivery. The queue manager cannot add
 * properties to bytes it cannot parse, so it wraps them, as IBM MQ's dead-letter header precedes the original
 * data: the dead letter is a new BytesMessage whose body is the original message's bytes exactly as they were
 * (the encoding of docs/protocol.md), with {@value #WRAPPED_PROPERTY} true, the reason in {@value #REASON_PROPERTY}
 * and the queue it was on in {@value #QUEUE_PROPERTY}. It keeps the original's message id and priority when they
 * can be read. Any client can receive it; an operator can repair the bytes and send them again. (A message that
 * can be decoded but has to leave its queue, such as an application backout, would carry the same reason
 * properties on itself, without {@value #WRAPPED_PROPERTY}.)
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
    /** A longer reason is cut: a dead letter is its original plus a few hundred bytes, never much more. */
    static final int MAX_REASON_LENGTH = 1000;
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
        moveStored(message, reason);
        message.queue().acknowledge(message);
    }

    /**
     * Moves a message that is in no queue (a recovered record, a retained publication) to the dead-letter queue.
     * The caller keeps its reference to {@code message}'s bytes and releases it. A stored message
     * ({@link StoredMessage#persistent()}) has a stored dead letter, in its place.
     */
    public void moveStored(StoredMessage message, String reason) {
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
        deadLetterQueue.offer(letter);
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
        letter.properties.put(QUEUE_PROPERTY, queueName);
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
