package org.wharfmq.flow.runtime;

import javax.jms.DeliveryMode;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The checkpoint of one FileInput node, kept as one persistent message on a queue of the queue manager's own,
 * {@code SYSTEM.FLOW.CHECKPOINT.FLOW.NODE} ({@code FileInputNode#checkpointQueue}), and replaced, the old one got
 * and the new one put, on the reader's transacted session: in the transaction of the record it follows, so that the
 * queue manager's journal commits the record's outputs and the checkpoint after it together, or neither. The reader
 * keeps the committed checkpoint in memory and reads the queue only when it (re)connects ({@link #load}). Confined to
 * the node's reader thread, as its session is.
 */
final class CheckpointQueue {

    private static final System.Logger LOG = System.getLogger(CheckpointQueue.class.getName());

    private final Session session;
    private final String name;
    private final MessageConsumer consumer;
    private final MessageProducer producer;

    /** @param session the reader's transacted session, whose transactions the checkpoint's changes join */
    CheckpointQueue(Session session, String name) throws JMSException {
        this.session = session;
        this.name = name;
        this.consumer = session.createConsumer(session.createQueue(name));
        this.producer = session.createProducer(session.createQueue(name));
        producer.setDeliveryMode(DeliveryMode.PERSISTENT);
    }

    /**
     * The committed checkpoint, or null when there is none, in a transaction of its own (the session must have none
     * open). A checkpoint file the node kept before ({@code legacy}) is taken over when the queue has none: put on
     * the queue, committed, then deleted. More than one message on the queue (put there by an admin) leaves the
     * newest, a message that is not a checkpoint is dropped (logged). What it takes it puts back, in one transaction.
     */
    FileCheckpoint load(Path legacy) throws JMSException, IOException {
        int messages = 0;
        FileCheckpoint newest = null;
        for (Message message = consumer.receiveNoWait(); message != null; message = consumer.receiveNoWait()) {
            messages++;
            try {
                newest = FileCheckpoint.parse(((TextMessage) message).getText());
            } catch (ClassCastException | IllegalArgumentException | NullPointerException e) {
                LOG.log(System.Logger.Level.WARNING, "Message " + message.getJMSMessageID() + " on " + name
                        + " is not a FileInput checkpoint and is dropped: " + e);
            }
        }
        FileCheckpoint taken = null;
        if (messages == 0) {
            try {
                taken = FileCheckpoint.read(legacy);
            } catch (IllegalArgumentException e) {
                LOG.log(System.Logger.Level.WARNING, "The FileInput checkpoint " + legacy + " is ignored: " + e);
            }
        }
        FileCheckpoint current = taken != null ? taken : newest;
        if (current != null) {
            // put back as a new message rather than rolled back: its delivery count does not grow with each connection
            producer.send(session.createTextMessage(current.text()));
        }
        session.commit();
        Path aside = legacy.resolveSibling(legacy.getFileName() + ".next"); // where it was written before a rename
        if (Files.deleteIfExists(legacy) | Files.deleteIfExists(aside)) {
            LOG.log(System.Logger.Level.INFO, "The FileInput checkpoint " + legacy + (taken != null
                    ? " is taken over by " + name + " and deleted" : " is deleted: " + name + " holds the checkpoint"));
        }
        return current;
    }

    /**
     * Replaces the committed checkpoint with {@code next} in the session's transaction: the caller commits (or rolls
     * back) it with the record's work.
     */
    void replace(FileCheckpoint next) throws JMSException {
        consumer.receiveNoWait(); // the committed one (none before a file's first record is a checkpoint's)
        producer.send(session.createTextMessage(next.text()));
    }

    /** Takes the committed checkpoint off the queue in the session's transaction: the caller commits. */
    void clear() throws JMSException {
        consumer.receiveNoWait();
    }
}
