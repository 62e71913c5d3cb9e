package org.wharfmq.server.management;

import io.netty.buffer.ByteBuf;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.message.CorrelationIds;
import org.wharfmq.protocol.message.MessageHeaders;
import org.wharfmq.protocol.message.WireMessage;
import org.wharfmq.protocol.selector.Selector;
import org.wharfmq.protocol.selector.SelectorParseException;
import org.wharfmq.server.WharfException;
import org.wharfmq.server.queue.BrowseCursor;
import org.wharfmq.server.queue.LocalQueue;
import org.wharfmq.server.queue.QueuedMessage;
import org.wharfmq.server.store.DurableWait;
import org.wharfmq.server.store.Persistence;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What an administrator does to the messages of a queue: clear it, browse it, move or copy its messages to another
 * queue (as IBM MQ's {@code dmpmqmsg} does). Works in batches of {@value #BATCH} messages, so a queue's lock is never
 * held for long and a deep queue is handled in steps. Each answers once what it did is durable in the journal.
 *
 * <p>A move takes each message off its queue as a consumer would (it stays counted in the depth), offers a new
 * message over the same bytes (not copied) to the target, then removes the original: when either is journaled, the
 * put and the removal are one journal transaction, so after a crash the journal holds the message on one queue or the
 * other, never both or neither. A copy browses the source and puts new messages over the same bytes.
 */
final class QueueMessages {

    /** Messages taken, stored and offered per step. */
    static final int BATCH = 1_000;

    private final Persistence persistence;

    QueueMessages(Persistence persistence) {
        this.persistence = persistence;
    }

    /** Removes every waiting message of {@code queue}, paged ones too (read back a batch at a time). */
    Clearance clear(LocalQueue queue) {
        long removed = 0;
        List<QueuedMessage> batch;
        while (!(batch = takeWaiting(queue, Selector.ALL_MATCH, BATCH)).isEmpty()) {
            DurableWait wait = new DurableWait(1);
            persistence.remove(batch, wait.completion());
            queue.acknowledge(batch, 0, batch.size());
            wait.await("the removal of " + batch.size() + " messages cleared from queue '" + queue.name() + "'");
            removed += batch.size();
        }
        return new Clearance(queue.name(), removed, queue.depth());
    }

    /**
     * Up to {@code max} waiting messages {@code selector} accepts, taken off {@code queue} ({@link
     * LocalQueue#takeWaiting}); when none waits in memory, the paged ones are read back a batch at a time until some
     * match or none is left. This thread waits for the paging thread's disk reads (never an event loop's).
     */
    private static List<QueuedMessage> takeWaiting(LocalQueue queue, Selector selector, int max) {
        List<QueuedMessage> batch;
        while ((batch = queue.takeWaiting(selector, max)).isEmpty() && queue.readBackNow()) {
            // read back: take again
        }
        return batch;
    }

    /** Up to {@code limit} waiting messages of {@code queue} that {@code selector} accepts, left where they are. */
    List<BrowsedMessage> browse(LocalQueue queue, Selector selector, int limit, int maxBodyBytes) {
        List<ByteBuf> contents = new ArrayList<>();
        List<Integer> counts = new ArrayList<>();
        BrowseCursor cursor = queue.browse(selector);
        LocalQueue.BrowseSink sink = (content, deliveryCount) -> {
            contents.add(content);
            counts.add(deliveryCount);
        };
        int inMemory = queue.browse(cursor, limit, sink);
        if (inMemory < limit) {
            queue.browsePaged(cursor, limit - inMemory, sink); // this thread waits for the paging thread's reads
        }
        List<BrowsedMessage> shown = new ArrayList<>(contents.size());
        try {
            for (int i = 0; i < contents.size(); i++) {
                shown.add(describe(i + 1, WireMessage.decode(contents.get(i).duplicate()), counts.get(i), maxBodyBytes));
            }
        } finally {
            contents.forEach(ByteBuf::release);
        }
        return shown;
    }

    private static BrowsedMessage describe(int position, WireMessage m, int deliveryCount, int maxBodyBytes) {
        byte[] body = m.body == null ? new byte[0]
                : m.body.length <= maxBodyBytes ? m.body : Arrays.copyOf(m.body, maxBodyBytes);
        String correlationId = m.correlationIdBytes != null
                ? CorrelationIds.ofBytes(m.correlationIdBytes) : m.correlationId;
        return new BrowsedMessage(position, m.messageId, correlationId, m.timestamp, m.expiration, m.deliveryTime,
                m.priority, m.persistent, m.type, String.valueOf(m.destination),
                m.replyTo == null ? null : m.replyTo.toString(), deliveryCount, m.bodyType.name(),
                m.body == null ? -1 : m.body.length, body, m.properties);
    }

    /** Moves up to {@code limit} waiting messages {@code selector} accepts from {@code from} to {@code to}. */
    Transfer move(LocalQueue from, LocalQueue to, Selector selector, long limit) {
        long moved = 0;
        while (moved < limit) {
            List<QueuedMessage> batch = takeWaiting(from, selector, (int) Math.min(BATCH, limit - moved));
            if (batch.isEmpty()) {
                break;
            }
            DurableWait wait = new DurableWait(batch.size());
            int i = 0;
            try {
                for (; i < batch.size(); i++) {
                    QueuedMessage original = batch.get(i);
                    ByteBuf bytes = original.content().retainedDuplicate();
                    QueuedMessage copy = null;
                    try {
                        copy = reserveCopy(to, bytes, original.headers());
                    } finally {
                        if (copy == null) { // full, or it threw: the bytes are still ours
                            bytes.release();
                        }
                    }
                    if (copy == null) {
                        break;
                    }
                    storeMove(original, copy, wait);
                    from.acknowledge(original); // first: whoever receives the copy finds the original gone
                    to.offer(copy);
                }
            } finally {
                for (int j = i; j < batch.size(); j++) {
                    wait.completion().completed(null); // not moved: nothing to wait for
                }
                from.giveBack(new ArrayList<>(batch.subList(i, batch.size())));
            }
            wait.await("the move of " + i + " messages from queue '" + from.name() + "' to '" + to.name() + "'");
            moved += i;
            if (i < batch.size()) {
                return new Transfer(from.name(), to.name(), moved, full(to));
            }
        }
        return new Transfer(from.name(), to.name(), moved, null);
    }

    /** The put of {@code copy} and the removal of {@code original}, in one journal transaction if either is stored. */
    private void storeMove(QueuedMessage original, QueuedMessage copy, DurableWait wait) {
        if (!persistence.stores(original) && !persistence.stores(copy)) {
            wait.completion().completed(null);
            return;
        }
        long transaction = persistence.newTransactionId();
        persistence.putInTransaction(transaction, copy);
        persistence.removeInTransaction(transaction, original);
        persistence.commit(transaction, wait.completion());
    }

    /** Copies up to {@code limit} waiting messages {@code selector} accepts from {@code from} to {@code to}. */
    Transfer copy(LocalQueue from, LocalQueue to, Selector selector, long limit) {
        BrowseCursor cursor = from.browse(selector);
        long copied = 0;
        while (copied < limit && !cursor.finished()) {
            List<ByteBuf> contents = new ArrayList<>();
            int max = (int) Math.min(BATCH, limit - copied);
            LocalQueue.BrowseSink sink = (content, deliveryCount) -> contents.add(content);
            if (!cursor.inMemoryFinished()) {
                from.browse(cursor, max, sink);
            }
            if (contents.size() < max && cursor.inMemoryFinished()) {
                from.browsePaged(cursor, max - contents.size(), sink); // waits for the paging thread's reads
            }
            if (contents.isEmpty()) {
                break;
            }
            DurableWait wait = new DurableWait(contents.size());
            int i = 0;
            try {
                for (; i < contents.size(); i++) {
                    ByteBuf content = contents.get(i);
                    QueuedMessage copy = reserveCopy(to, content, MessageHeaders.read(content));
                    if (copy == null) {
                        break;
                    }
                    persistence.put(copy, wait.completion());
                    to.offer(copy);
                }
            } finally {
                for (int j = i; j < contents.size(); j++) {
                    contents.get(j).release();
                    wait.completion().completed(null);
                }
            }
            wait.await("the copy of " + i + " messages from queue '" + from.name() + "' to '" + to.name() + "'");
            copied += i;
            if (i < contents.size()) {
                return new Transfer(from.name(), to.name(), copied, full(to));
            }
        }
        return new Transfer(from.name(), to.name(), copied, null);
    }

    /**
     * A new message over {@code content} with a place reserved on {@code to}, which then owns {@code content}; null
     * when {@code to} is full or has been deleted since it was looked up (the caller keeps {@code content} then, as
     * when this throws).
     */
    private static QueuedMessage reserveCopy(LocalQueue to, ByteBuf content, MessageHeaders headers) {
        QueuedMessage copy = new QueuedMessage(to, content, headers);
        try {
            return to.reserve(copy) ? copy : null;
        } catch (WharfException full) {
            if (full.code() != ErrorCode.QUEUE_FULL) {
                throw full;
            }
            return null;
        }
    }

    private static String full(LocalQueue to) {
        return "queue '" + to.name() + "' is full (or was deleted): it holds " + to.depth() + " of its maximum "
                + to.maxDepth() + " messages";
    }

    /** The selector, compiled. */
    static Selector selector(String text) {
        try {
            return Selector.parse(text);
        } catch (SelectorParseException e) {
            throw new WharfException(ErrorCode.INVALID_SELECTOR, "Selector '" + text + "' is not a JMS message "
                    + "selector: " + e.getMessage());
        }
    }
}
