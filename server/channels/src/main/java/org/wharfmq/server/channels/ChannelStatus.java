package org.wharfmq.server.channels;

import java.util.List;

/**
 * One channel as {@code wharf admin display chstatus} shows it (IBM MQ's DISPLAY CHSTATUS), the metrics count it and
 * the console lists it.
 *
 * @param state                  a sender's STARTING, WAITING (for a message), RUNNING, RETRYING or STOPPED; a
 *                               receiver's RUNNING (a partner is connected) or INACTIVE
 * @param messages               the messages the channel moved since it started: a sender's confirmed by the partner,
 *                               a receiver's committed
 * @param sequence               the channel's sequence number as this end last knew it
 * @param lastBatchId            the id of the last batch committed (a receiver's) or confirmed (a sender's)
 * @param partner                a sender's connection; a receiver's partner queue manager, when it names one
 * @param bytes                  the bytes of those messages, as stored (transmission header included)
 * @param batches                the batches of those messages
 * @param transmissionQueueDepth a sender's transmission queue's depth (null for a receiver, or when the queue is
 *                               missing)
 * @param inDoubt                whether a sender has a batch in doubt: its removal prepared on this queue manager,
 *                               its outcome waiting for the receiver's answer ({@code resolve channel})
 * @param batchesInDoubt         those batches, oldest first (empty when none), each with its id and the sequence
 *                               numbers of its messages: what an operator compares with the receiver's LAST BATCH
 *                               (or SEQUENCE) before {@code resolve channel}, batch by batch; a sender knows them
 *                               across a restart, before it learns its numbers from the receiver
 * @param reason                 why the channel is stopped, and the fix: an operator stopped it, or a sender
 *                               stopped by itself (a batch its partner cannot take), or a sender retrying after its
 *                               partner left its FAST messages unconfirmed too long (until it opens again); else
 *                               null. Said after "Channel NAME stopped: " ({@code display chstatus}, the log): it
 *                               does not name the channel itself
 * @param stopCause              what stopped it, for alerts: {@value #OPERATOR}, {@value #BATCH_REFUSED},
 *                               {@value #PARTNER_BREACH} or {@value #FAST_UNCONFIRMED}; null when it is not stopped
 * @param nonPersistentSpeed     the nonPersistentSpeed both ends agreed when the channel opened ({@code fast} or
 *                               {@code normal}); null while it is not connected
 */
public record ChannelStatus(String name, String type, String state, String partner, String transmissionQueue,
                            long messages, long sequence, long lastBatchId, long bytes, long batches,
                            Long transmissionQueueDepth, boolean inDoubt, List<BatchInDoubt> batchesInDoubt,
                            String reason, String stopCause, String nonPersistentSpeed) {

    /**
     * A sender's batch in doubt: its removal from the transmission queue prepared, its outcome the receiver's.
     *
     * @param batch         its id: the receiver has it when its last batch id is at least this
     * @param firstSequence the sequence number of its first message; null for a batch prepared by an older version,
     *                      which did not keep them
     * @param lastSequence  the sequence number of its last message: the receiver has the batch when its sequence
     *                      number is at least this (unless an operator reset it since); null as firstSequence
     * @param messages      how many messages it holds off the transmission queue (its non-persistent ones not after
     *                      a restart)
     */
    public record BatchInDoubt(long batch, Long firstSequence, Long lastSequence, int messages) {

        /**
         * "batch 2 (10 messages, sequence numbers 2 to 11)", or "batch 2 (10 messages)" when its sequence numbers are
         * not known.
         */
        public String describe() {
            return "batch " + batch + " (" + messages + (messages == 1 ? " message" : " messages")
                    + (lastSequence == null ? ")" : firstSequence.equals(lastSequence) ? ", sequence number "
                    + lastSequence + ")" : ", sequence numbers " + firstSequence + " to " + lastSequence + ")");
        }

        /**
         * How an operator completes this batch of channel {@code channel} by hand when its receiver cannot be asked:
         * "'wharf admin resolve channel TO.QM2 --action commit' if the receiver's LAST BATCH is at least 2, --action
         * backout if it is less than 2", with {@code --batch 2} when {@code named} (one of several in doubt).
         */
        public String byHand(String channel, boolean named) {
            return "'wharf admin resolve channel " + channel + (named ? " --batch " + batch : "") + " --action commit'"
                    + " if the receiver's LAST BATCH is at least " + batch + ", --action backout if it is less than "
                    + batch;
        }

        /** "batch 2 (...)", or "batch 2 (...) and batch 3 (...)": {@code batches}, each as {@link #describe()} names it. */
        public static String listed(List<BatchInDoubt> batches) {
            List<String> each = batches.stream().map(b -> b.describe()).toList();
            return each.size() == 1 ? each.get(0)
                    : String.join(", ", each.subList(0, each.size() - 1)) + " and " + each.get(each.size() - 1);
        }
    }

    /** A stop cause: an operator stopped the channel ({@code wharf admin stop channel}). */
    public static final String OPERATOR = "operator";
    /** A stop cause: a sender stopped by itself, its partner unable to take a batch (not even on its DLQ). */
    public static final String BATCH_REFUSED = "batch_refused";
    /**
     * A stop cause: a sender stopped by itself, its partner having broken the protocol (a frame longer than a sender
     * reads: {@link ChannelConfiguration#SENDER_MAX_RECEIVE_LENGTH}).
     */
    public static final String PARTNER_BREACH = "partner_breach";
    /**
     * A stop cause: a sender closed the connection, its partner having left the messages sent outside the batches
     * unconfirmed past the channel's {@link ChannelConfiguration#FAST_CONFIRM_TIMEOUT_MILLIS}; shown while it retries.
     */
    public static final String FAST_UNCONFIRMED = "fast_unconfirmed";
    /** Every stop cause. */
    public static final List<String> STOP_CAUSES = List.of(OPERATOR, BATCH_REFUSED, PARTNER_BREACH, FAST_UNCONFIRMED);

    /** A channel's status as it reports it: stopped by itself when it gives a reason. */
    ChannelStatus(String name, String type, String state, String partner, String transmissionQueue, long messages,
                  long sequence, long lastBatchId, long bytes, long batches, Long transmissionQueueDepth,
                  boolean inDoubt, String reason, String nonPersistentSpeed) {
        this(name, type, state, partner, transmissionQueue, messages, sequence, lastBatchId, bytes, batches,
                transmissionQueueDepth, inDoubt, List.of(), reason, reason == null ? null : BATCH_REFUSED,
                nonPersistentSpeed);
    }

    /**
     * This status with what the queue manager knows of the channel's transmission queue and branches: its batches in
     * doubt.
     */
    ChannelStatus with(Long depth, List<BatchInDoubt> inDoubtBatches) {
        return new ChannelStatus(name, type, state, partner, transmissionQueue, messages, sequence, lastBatchId, bytes,
                batches, depth, !inDoubtBatches.isEmpty(), inDoubtBatches, reason, stopCause, nonPersistentSpeed);
    }

    /** This status of a channel an operator stopped (a receiver may still be ending its partner's session). */
    ChannelStatus stoppedByOperator() {
        return new ChannelStatus(name, type, "STOPPED", partner, transmissionQueue, messages, sequence, lastBatchId,
                bytes, batches, transmissionQueueDepth, inDoubt, batchesInDoubt, "an operator stopped it; 'wharf admin"
                + " start channel " + name + "' starts it" + (type.equals("sender") ? "" : " (its sender retries until"
                + " then)"), OPERATOR, nonPersistentSpeed);
    }
}
