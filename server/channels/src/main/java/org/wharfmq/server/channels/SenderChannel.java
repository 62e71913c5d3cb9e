package org.wharfmq.server.channels;

import io.netty.buffer.ByteBuf;
import org.wharfmq.client.core.ClientException;
import org.wharfmq.client.core.PendingRequests;
import org.wharfmq.client.core.transport.ClientTls;
import org.wharfmq.client.core.transport.NetworkLoop;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.server.WharfException;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.frame.FrameTooLongException;
import org.wharfmq.protocol.frame.WireXid;
import org.wharfmq.protocol.message.MessageHeaders;
import org.wharfmq.protocol.message.MessageReader;
import org.wharfmq.protocol.message.TransmissionHeader;
import org.wharfmq.server.Configuration;
import org.wharfmq.server.ServerPlugin.Host;
import org.wharfmq.server.queue.HandOff;
import org.wharfmq.server.session.InProcessTakes;
import org.wharfmq.server.session.InProcessTakes.Taken;
import org.wharfmq.server.transport.NativeTransport;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;

/**
 * A sender channel: moves the messages of its transmission queue, in order, to the receiver of the same name on the
 * partner queue manager, in batches. Runs on a thread of its own ({@code wharf-channel-NAME}). Whoever holds
 * {@link #turn} owns the partner connection's writes and every field but the volatile ones (the single writer): the
 * channel's thread, always, but while it waits in a stream of FAST messages ({@link #stream}), when the threads that
 * deliver them ({@link #takeAsDelivered}) or put them ({@link #handOver}) may take it to send them; the methods that
 * write or settle assert it.
 *
 * <p>It takes its transmission queue inside the queue manager, through an in-process XA session of the queue
 * manager's own ({@link InProcessTakes}): each message comes to the channel's thread as the queue hands it over, with
 * no frame and no in-VM connection. A batch's messages (at most {@code batchSize}, {@code batchBytes}, gathered for
 * up to {@code batchIntervalMillis}) go to the partner as CHANNEL_MESSAGE frames, their stored bytes as they are, written
 * by the channel's thread (a batch's prepare waits for the journal, which no event loop may); their removal from the transmission queue is an XA branch
 * ({@link #xid}: the channel's name, the batch's id and its sequence numbers), prepared (journaled) before CHANNEL_END_BATCH makes the
 * receiver commit the batch with the channel's sequence number and the batch's id, and committed once it answers OK.
 * A failure before the prepare rolls the removal back; one after it leaves the batch in doubt, resolved when the
 * channel starts again ({@link #resolve}): the removal is committed when the receiver has committed that batch (its
 * last batch id is at least the branch's), rolled back otherwise (the batch is sent again). Never lost, never twice.
 * With {@code pipelineLength} 2 the next batch is sent and prepared before the last one is confirmed; the receiver
 * commits batches in order, so the same rule resolves both branches when a failure leaves two in doubt.
 *
 * <p>With {@code nonPersistentSpeed} FAST agreed with the partner at CHANNEL_OPEN (IBM MQ's NPMSPEED FAST), a
 * non-persistent message that comes while no batch is being gathered goes at once, outside the batches
 * (CHANNEL_FAST_MESSAGE): no XA branch, no sequence number, no sync record, no journal write at either end. The
 * partner connection ({@code tcp://} or {@code ssl://}) runs on the event loop of the transmission queue's in-process
 * session and its writes never block ({@link NetworkLoop}), so such a stream is sent by the threads that put its messages on the
 * transmission queue, as they are delivered ({@link #takeAsDelivered}): no thread is woken per message, the channel's
 * thread waits until a message must go in a batch, the acknowledgement is due, or nothing comes for the disconnect
 * interval; a burst is written and flushed once. While it waits so, a message put when the queue has nothing for the
 * channel goes past the queue: the thread that puts it writes it at once ({@link #handOver}, the queue's
 * {@link HandOff}), after anything the queue had delivered to the channel and not yet sent, spending the same credit,
 * its transmission header written straight into the partner connection's frame run, never into a buffer of its own
 * ({@link TransmissionHeader.Addressed}). Once the queue has stayed empty for
 * {@link ChannelConfiguration#FAST_SETTLE_MILLIS} after it, or half the credit has gone since the last ask, the sender
 * asks the partner to confirm what went (CHANNEL_FAST_CONFIRM, answered in order once the receiver has read them), and
 * acknowledges it on the transmission queue (outside a branch) at the partner's OK. Until then each holds the
 * consumer's credit, so at most the credit ({@code batchSize × pipelineLength}) is written and unconfirmed: that is
 * all a connection lost unnoticed can swallow, however late its loss shows. Before a batch's branch (which would
 * cover them) the sender waits for their confirmation; when the connection ends they are acknowledged, confirmed or
 * not, so none is ever sent twice, and those the lost connection swallowed are lost, as FAST allows. A partner that
 * keeps the connection alive and leaves a confirmation unanswered past {@code fastConfirmTimeoutMillis} would hold the
 * credit, and so every later FAST message, for good: the sender closes the connection and retries
 * ({@link #unansweredTooLong}, {@code stopCause} {@link ChannelStatus#FAST_UNCONFIRMED} until the channel opens again).
 * One that comes while a batch is being gathered goes in that batch (the receiver still puts it at once). Persistent
 * messages always go in batches.
 *
 * <p>The channel connects when its transmission queue gets a message, disconnects after
 * {@code disconnectIntervalMillis} with nothing to send, and while the partner cannot be reached tries again after
 * {@code retryMillis}, doubled each time up to {@code maxRetryMillis}.
 */
final class SenderChannel implements Runnable {
    private static final System.Logger LOG = System.getLogger(SenderChannel.class.getName());
    /** The format id of the channels' XA branches ("WHCH"). */
    static final int XID_FORMAT = 0x57484348;
    /** The start of the global id of the channels' XA branches, followed by the channel's name. */
    static final String XID_PREFIX = "WHARF.CHANNEL/";

    /** What an operator sees of the channel. */
    enum State { STARTING, WAITING, RUNNING, RETRYING, STOPPED }

    private final ChannelDefinition definition;
    /** The queue manager the channel runs in: its transmission queue is taken there. */
    private final Host host;
    private final String queueManager;
    /** Where an operator's {@code reset channel} waits for the next open. */
    private final SenderResets resets;
    private final Thread thread;
    /**
     * Who sends and owns the fields below: the channel's thread holds it but while it waits in {@link #stream}, when a
     * thread that delivers a burst of FAST messages takes it to send them ({@link #takeAsDelivered}).
     */
    private final ReentrantLock turn = new ReentrantLock();
    /** True while the channel's thread waits in {@link #stream} with {@link #turn} let go; written under it. */
    private volatile boolean streaming;
    /** When the last message went outside the batches ({@link System#nanoTime}). */
    private long lastOutsideBatchNanos;
    /**
     * Whether the channel's thread waits in {@link #stream} for the disconnect interval (nothing to acknowledge when it
     * began): a delivering thread that leaves something to acknowledge wakes it, for the settle delay's wait.
     */
    private boolean waitsLong;
    /** The messages {@link #takeAsDelivered} sent (tests read it). */
    private final LongAdder sentAsDelivered = new LongAdder();
    /** The messages {@link #handOver} sent, past the transmission queue (tests read it). */
    private final LongAdder sentHandedOver = new LongAdder();
    /** The transmission queue's hand-off while the channel takes it ({@link #handOver}). */
    private final HandOff handOff = this::handOver;
    /** {@link #goesAsDelivered} as the test {@link #sendDelivered} polls with: made once, not at every hand-over. */
    private final Predicate<Taken> goesAsDelivered = this::goesAsDelivered;
    private volatile boolean stopping;
    private volatile State status = State.STARTING;
    /**
     * Why the channel stopped by itself (its partner cannot take a batch, or broke the protocol), and the fix; null
     * otherwise.
     */
    private volatile String stoppedBecause;
    /** What stopped it by itself ({@link ChannelStatus#STOP_CAUSES}), with {@link #stoppedBecause}; written first. */
    private volatile String stopCause;
    /** Test hook: runs after the partner confirmed a batch, before its removal from the transmission queue commits. */
    private volatile Runnable afterConfirm = () -> { };
    /** Test hook: runs once a batch's removal is prepared, before the batch ends on the partner. */
    private volatile Runnable afterPrepare = () -> { };
    /** The transmission queue, taken inside the queue manager; null while the channel is not running. */
    private InProcessTakes local;
    private CoreLink partner;
    private long sequence;
    private long batchId;
    /** Whether the partner agreed to nonPersistentSpeed FAST when the channel opened (the connection's). */
    private boolean fast;
    /** What operators see of {@link #fast}: null while not connected. */
    private volatile ChannelDefinition.NonPersistentSpeed agreedSpeed;
    /** The last delivery sent outside the batches and not yet acknowledged on the transmission queue; -1: none. */
    private long unsettledUpTo = -1;
    /**
     * The deliveries sent outside the batches and not yet acknowledged, confirmed by the partner or not: the credit
     * their acknowledgement returns, and so at most the credit. What a connection lost unnoticed may swallow.
     */
    private int unsettled;
    /** Of {@link #unsettled}, those {@link #handOver} took past the queue: no delivery of it, counted in its depth. */
    private int unsettledHandedOver;
    /** Of {@link #unsettled}, those sent since the last CHANNEL_FAST_CONFIRM went: no confirmation asked yet. */
    private int unconfirmed;
    /** Of {@link #unconfirmed}, those {@link #handOver} took. */
    private int unconfirmedHandedOver;
    /** The CHANNEL_FAST_CONFIRMs on their way, oldest first (the partner answers them in order). */
    private final Deque<Confirming> confirming = new ArrayDeque<>(2);
    /**
     * How many deliveries sent outside the batches are acknowledged at the latest: half the consumer's credit, so that
     * a busy stream's acknowledgement returns credit before the queue runs out of it.
     */
    private final int settleEvery;
    /** {@link ChannelConfiguration#FAST_CONFIRM_TIMEOUT_MILLIS}, in nanoseconds. */
    private final long confirmTimeoutNanos;
    /** What the partner has confirmed since the start (read by operators and tests). */
    private final ChannelCounters sent = new ChannelCounters();
    /** The sequence number and last batch id, as operators see them (written by the channel's thread). */
    private volatile Reported reported = new Reported(0, 0);

    private record Reported(long sequence, long batchId) {
    }

    /**
     * A CHANNEL_FAST_CONFIRM on its way, asked at {@code askedNanos} ({@link System#nanoTime}): its answer confirms
     * {@code count} messages, the deliveries up to {@code upTo} (-1: none) and {@code handedOver} taken past the queue.
     */
    private record Confirming(long upTo, int count, int handedOver, PendingRequests.Request answer, long askedNanos) {
    }

    /**
     * The partner left a confirmation of the messages sent outside the batches unanswered past
     * {@link ChannelConfiguration#FAST_CONFIRM_TIMEOUT_MILLIS}: the connection is closed and the channel retries, the
     * message (the reason {@code display chstatus} shows meanwhile, after "Channel NAME stopped: ") saying so and the
     * fix.
     */
    private static final class Unconfirmed extends Exception {
        Unconfirmed(String reason) {
            super(reason, null, false, false);
        }
    }

    SenderChannel(ChannelDefinition definition, Host host, String queueManager, SenderResets resets) {
        this.definition = definition;
        this.host = host;
        this.queueManager = queueManager;
        this.resets = resets;
        this.settleEvery = Math.max(1, credit(definition) / 2);
        this.confirmTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(definition.fastConfirmTimeoutMillis());
        this.thread = new Thread(this, "wharf-channel-" + definition.name());
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    State state() {
        return status;
    }

    /** What {@code wharf admin display chstatus} shows of it. */
    ChannelStatus status() {
        // the counters before the numbers: a batch's confirmation moves the numbers first, so a status that counts a
        // batch's messages shows its sequence number and batch id too
        long messages = sent.messages();
        long bytes = sent.bytes();
        long batches = sent.batches();
        Reported shown = reported;
        return new ChannelStatus(definition.name(), "sender", status.name(), definition.connection(),
                definition.transmissionQueue(), messages, shown.sequence, shown.batchId, bytes, batches, null, false,
                List.of(), stoppedBecause, stoppedBecause == null ? null : stopCause,
                agreedSpeed == null ? null : agreedSpeed.text());
    }

    ChannelDefinition definition() {
        return definition;
    }

    long messagesSent() {
        return sent.messages();
    }

    /** How many messages the threads that delivered them sent outside the batches ({@link #takeAsDelivered}). */
    long messagesSentAsDelivered() {
        return sentAsDelivered.sum();
    }

    /** How many messages the threads that put them sent past the transmission queue ({@link #handOver}). */
    long messagesHandedOver() {
        return sentHandedOver.sum();
    }

    /** Test hooks ({@link #afterPrepare}, {@link #afterConfirm}). */
    void hooks(Runnable afterPrepare, Runnable afterConfirm) {
        this.afterPrepare = afterPrepare;
        this.afterConfirm = afterConfirm;
    }

    @Override
    public void run() {
        turn.lock(); // let go only while waiting in a stream of FAST messages
        try {
            runHoldingTheTurn();
        } finally {
            turn.unlock();
        }
    }

    /**
     * Opens the in-process consumer of the transmission queue; one that does not exist is named as the channel's, with
     * the command that defines it (the queue manager's own refusal speaks of a queue for an application).
     */
    private void consumeTransmissionQueue() throws InterruptedException {
        String queue = definition.transmissionQueue();
        try {
            local.consume(queue, credit(definition), definition.connectTimeoutMillis());
        } catch (WharfException e) {
            if (e.code() != ErrorCode.UNKNOWN_DESTINATION) {
                throw e;
            }
            throw new WharfException(ErrorCode.UNKNOWN_DESTINATION, "its transmission queue '" + queue + "' does not"
                    + " exist: define it ('" + defineQueueCommand(queue) + "', or under queues: of the configuration"
                    + " with usage: transmission). " + e.getMessage());
        }
    }

    /** The command that defines transmission queue {@code queue}, as an operator types it. */
    static String defineQueueCommand(String queue) {
        return "wharf admin define queue " + queue + " --usage transmission";
    }

    private void runHoldingTheTurn() {
        long backoff = definition.retryMillis();
        while (!stopping) {
            try {
                if (local == null) {
                    openLocal();
                    if (!inDoubt().isEmpty()) {
                        connectPartner(); // a batch in doubt is resolved at once, not at the next message
                    }
                    // only now: a batch rolled back returns to the head of the queue before this consumer takes any
                    consumeTransmissionQueue();
                    local.startHandOff(handOff); // taken only while this thread waits in a stream ({@link #stream})
                }
                status = State.WAITING;
                Taken first = nextWatchingPartner(-1); // connected after a resolution: its loss is seen at once
                if (partner == null) {
                    connectPartner();
                }
                status = State.RUNNING;
                sendWhileBusy(first);
                closePartner();
                backoff = definition.retryMillis();
            } catch (InterruptedException e) {
                break;
            } catch (Exception e) {
                if (stopping) {
                    break;
                }
                FrameTooLongException breach = partner == null ? null : partner.tooLong();
                if (breach != null) {
                    // the partner broke the protocol: connecting again would meet it again
                    stopCause = ChannelStatus.PARTNER_BREACH;
                    stoppedBecause = partnerBreach(breach);
                    LOG.log(System.Logger.Level.ERROR, "Channel " + definition.name() + " stopped: " + stoppedBecause);
                    break;
                }
                if (e instanceof ClientException c && c.code() == ErrorCode.CHANNEL_STOPPED) {
                    // trying again would meet the same refusal: an operator has to make room first
                    stopCause = ChannelStatus.BATCH_REFUSED;
                    stoppedBecause = c.getMessage();
                    LOG.log(System.Logger.Level.ERROR, "Channel " + definition.name() + " to "
                            + definition.connection() + " stopped: " + c.getMessage());
                    break;
                }
                status = State.RETRYING;
                if (e instanceof Unconfirmed) {
                    // shown while the channel retries (until it opens again), as any other stop's cause
                    stopCause = ChannelStatus.FAST_UNCONFIRMED;
                    stoppedBecause = e.getMessage();
                    LOG.log(System.Logger.Level.ERROR, "Channel " + definition.name() + " stopped: " + e.getMessage()
                            + " Retrying in " + backoff + " ms.");
                } else {
                    LOG.log(System.Logger.Level.WARNING, "Channel " + definition.name() + " to "
                            + definition.connection() + " stopped (" + e.getMessage() + "); retrying in " + backoff
                            + " ms");
                }
                closePartner();
                closeLocal(); // the batch not confirmed goes back to the transmission queue, in its order
                try {
                    Thread.sleep(backoff); // the retry interval (IBM MQ's SHORTTMR), not a synchronisation
                } catch (InterruptedException stopped) {
                    break;
                }
                backoff = Math.min(backoff * 2, definition.maxRetryMillis());
            }
        }
        closePartner();
        closeLocal();
        status = State.STOPPED;
    }

    /**
     * Why the channel stops when its partner sent a frame longer than a sender reads ({@code tooLong}), and the fix: the
     * reason, as {@code display chstatus} shows it after "Channel NAME stopped: ".
     */
    private String partnerBreach(FrameTooLongException tooLong) {
        return "its partner at " + definition.connection() + " (queue"
                + " manager " + partner.serverName() + ", as it names itself) sent a frame of " + tooLong.length()
                + " bytes, more than the " + tooLong.limit() + " a sender channel reads from its partner (a receiver"
                + " answers a sender and never sends it a message: ChannelConfiguration.SENDER_MAX_RECEIVE_LENGTH,"
                + " whatever maxMessageLength the partner declares). The sender read none of it and closed the"
                + " connection; the channel's messages stay on its transmission queue " + definition.transmissionQueue()
                + " (a batch on its way stays in doubt until the channel runs again). Something other than a Wharf"
                + " receiver answers at " + definition.connection() + ", or the stream was changed on its way (use"
                + " ssl:// with a verified certificate): check it, then start the channel again on queue manager "
                + queueManager + " (wharf admin start channel " + definition.name() + ").";
    }

    /** How many messages the transmission queue may hand the channel before it acknowledges or commits some. */
    private static int credit(ChannelDefinition definition) {
        return definition.batchSize() * definition.pipelineLength();
    }

    /** A batch on its way: prepared, ended on the partner, its confirmation awaited. */
    private record Outstanding(WireXid xid, int size, long bytes, long sequence, long batchId,
                               PendingRequests.Request answer) {
    }

    /**
     * Sends batches, the first starting with {@code first}, until nothing comes for disconnectIntervalMillis. Up to
     * {@code pipelineLength} batches are on the way at once: the next is gathered, sent and prepared while the last
     * one's confirmation is awaited; they are confirmed, and their removals committed, in order.
     */
    private void sendWhileBusy(Taken first) throws Exception {
        Deque<Outstanding> outstanding = new ArrayDeque<>(definition.pipelineLength());
        Taken next = first;
        while (next != null || !outstanding.isEmpty()) {
            if (fast && next != null && !MessageReader.persistentOf(next.message())) {
                sendOutsideBatch(next); // whatever batches are on their way: it overtakes them
                if (outstanding.isEmpty()) {
                    next = stream(); // the next one left to this thread; null: nothing came, the channel ends
                    continue;
                }
                next = local.next(0);
                if (unconfirmed >= settleEvery) {
                    askConfirmation(); // the rest once no batch is on its way ({@link #stream})
                }
                settleConfirmed();
                continue;
            }
            if (next != null && outstanding.size() < definition.pipelineLength()) {
                try {
                    confirmOutsideBatch(); // before the batch's branch, which takes every delivery up to its last
                } catch (Exception e) {
                    next.message().release();
                    throw e;
                }
                Outstanding onItsWay = send(gather(next));
                if (onItsWay != null) {
                    outstanding.addLast(onItsWay);
                }
                next = local.next(0); // more waiting already: the next batch goes before this one is confirmed
                continue;
            }
            confirm(outstanding.removeFirst());
            if (next == null) {
                next = !outstanding.isEmpty() ? local.next(0)
                        : unsettled > 0 ? stream() // messages outside the batches still to be confirmed
                        : nextWatchingPartner(definition.disconnectIntervalMillis());
            }
        }
    }

    /**
     * The next message of the transmission queue, waiting up to {@code millis} (negative: without limit); null when
     * none came. While the channel has a partner connection it watches it too: its loss (the partner ended the session,
     * as a stopped receiver does, a failed write, the heartbeat) throws at once, so that the channel retries then,
     * not at its next message or its disconnect interval ({@link CoreLink#whenLost} wakes this thread).
     */
    private Taken nextWatchingPartner(long millis) throws Exception {
        if (partner == null) {
            return local.next(millis);
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.max(0, millis));
        while (true) {
            Taken next = local.next(0);
            if (next != null) {
                return next;
            }
            partner.checkOpen(); // before the park: a loss after it unparks this thread
            long left = deadline - System.nanoTime();
            if (millis >= 0 && left <= 0) {
                return null;
            }
            local.await(millis < 0 ? -1 : left);
        }
    }

    /**
     * Sends a non-persistent message outside the batches (the partner agreed to FAST); it is acknowledged on the
     * transmission queue once the partner confirms it ({@link #askConfirmation}).
     */
    private void sendOutsideBatch(Taken d) throws ClientException {
        if (!partner.isOpen()) {
            // those written before the loss are dropped (perhaps lost, as FAST allows), never sent twice; this one and
            // the rest go back to the transmission queue
            dropOutsideBatch();
            d.message().release(); // not sent: it goes back to the transmission queue as the session closes
            partner.checkOpen();
        }
        try {
            checkLength(d.message());
        } catch (ClientException e) {
            d.message().release();
            throw e;
        }
        writeOutsideBatch(d);
    }

    private void writeOutsideBatch(Taken d) {
        unsettledUpTo = d.deliveryId();
        long bytes = d.message().readableBytes(); // before the frame owns it
        writeFast(new Frame.ChannelFastMessage(d.message()), bytes); // as stored; the frame owns it
    }

    /**
     * Writes {@code frame}, a message of {@code bytes} bytes, outside the batches, unconfirmed and holding a credit
     * until the partner confirms it.
     */
    private void writeFast(Frame.ChannelFastMessage frame, long bytes) {
        assert turn.isHeldByCurrentThread() : "the partner connection's writer holds the turn";
        unsettled++;
        unconfirmed++;
        lastOutsideBatchNanos = System.nanoTime();
        partner.write(frame);
        sent.addOutsideBatch(bytes);
    }

    /**
     * Waits while the threads that deliver the transmission queue's messages send the non-persistent ones outside the
     * batches themselves ({@link #takeAsDelivered}), {@link #turn} let go meanwhile; asks the partner to confirm what
     * went once the queue has stayed empty {@link ChannelConfiguration#FAST_SETTLE_MILLIS}, and acknowledges it on the
     * queue once confirmed. Called with nothing on its way in a batch.
     *
     * @return the next message they left to this thread (a persistent one, one that came while the partner
     * connection was lost), or null once nothing has come for {@code disconnectIntervalMillis}
     */
    private Taken stream() throws Exception {
        long settleNanos = TimeUnit.MILLISECONDS.toNanos(ChannelConfiguration.FAST_SETTLE_MILLIS);
        long idleNanos = TimeUnit.MILLISECONDS.toNanos(definition.disconnectIntervalMillis());
        while (true) {
            Taken next = local.next(0);
            if (next != null) {
                return next;
            }
            settleConfirmed();
            failedConfirmation(); // the connection's loss fails the confirmations on their way: seen at once
            unansweredTooLong(); // a partner that keeps the connection alive and confirms nothing
            partner.checkOpen(); // with none on their way too ({@link CoreLink#whenLost} wakes this thread)
            long quiet = System.nanoTime() - lastOutsideBatchNanos;
            if (unconfirmed > 0 && quiet >= settleNanos) {
                askConfirmation(); // the queue stayed empty
            }
            if (unsettled == 0 && quiet >= idleNanos) {
                return null;
            }
            // an answered confirmation wakes this thread when no event loop settles it ({@link #confirmed})
            long wait = unsettled == 0 ? idleNanos - quiet : unconfirmed > 0 ? settleNanos - quiet : settleNanos;
            waitsLong = unsettled == 0;
            streaming = true;
            turn.unlock();
            try {
                local.await(wait);
            } finally {
                turn.lock();
                streaming = false;
            }
        }
    }

    /**
     * Runs on the thread that delivered a burst of the transmission queue's messages (an event loop of this queue
     * manager, with no lock held) while the channel's thread waits in {@link #stream}: writes each non-persistent
     * message at the head of what was delivered to the partner outside the batches, and asks the partner to confirm
     * them once half the credit is out since the last ask. Never blocks: the partner connection's writes do not
     * ({@link NetworkLoop}), and the turn is only tried. What it leaves (a persistent message, anything while the
     * connection is lost, all of it when the channel's thread has the turn) wakes the channel's thread.
     */
    private void takeAsDelivered() {
        if (!streaming || !turn.tryLock()) {
            return;
        }
        boolean wake = false;
        try {
            if (!streaming) {
                return;
            }
            sendDelivered();
            wake = settledAndDue();
        } finally {
            turn.unlock();
        }
        if (wake) {
            LockSupport.unpark(thread); // a permit: not lost if it has not parked yet
        }
    }

    /**
     * The transmission queue's {@link HandOff}: runs on the thread that puts a non-persistent message for the partner
     * (an event loop of this queue manager, with no lock held) while the channel's thread waits in {@link #stream}.
     * Sends first what the queue delivered to the channel and is not sent yet ({@link #sendDelivered}), then, when
     * nothing is left there nor waits on the queue and the channel has credit for it ({@link InProcessTakes#spendForHandOff}),
     * writes {@code message} to the partner outside the batches, past the queue: no place on it, no delivery, no
     * acknowledgement of its own, no buffer of its own (its transmission header is written as the frame is, into the
     * frame run, and its body copied there once). Counted and confirmed as one delivered (CHANNEL_FAST_CONFIRM), it holds a credit
     * until its confirmation, so the credit still bounds what a lost connection may swallow. Never blocks.
     *
     * @return whether it took {@code message}; false leaves it to the queue (the channel busy, the partner connection
     * lost, a message the partner does not read, something queued before it, no credit)
     */
    private boolean handOver(TransmissionHeader.Addressed message) {
        if (!streaming || !turn.tryLock()) {
            return false;
        }
        boolean taken = false;
        boolean wake = false;
        try {
            if (!streaming || !fast || !partner.isOpen() || !fits(message.length())) {
                return false;
            }
            sendDelivered(); // never overtaken: what the queue delivered first goes first
            if (local.spendForHandOff()) {
                unsettledHandedOver++;
                unconfirmedHandedOver++;
                writeFast(new Frame.ChannelFastMessage(message), message.length()); // the frame owns its buffer
                sentHandedOver.increment();
                if (unconfirmed >= settleEvery) {
                    askConfirmation();
                }
                taken = true;
            }
            wake = settledAndDue();
        } finally {
            turn.unlock();
        }
        if (wake) {
            LockSupport.unpark(thread); // a permit: not lost if it has not parked yet
        }
        return taken;
    }

    /**
     * Writes the non-persistent messages at the head of what the queue delivered outside the batches, asking the
     * partner to confirm them once half the credit is out since the last ask. Holding the turn.
     */
    private void sendDelivered() {
        Taken d;
        while ((d = local.poll(goesAsDelivered)) != null) {
            writeOutsideBatch(d); // into a connection lost unnoticed: unconfirmed, it holds the credit
            sentAsDelivered.increment();
            if (unconfirmed >= settleEvery) {
                askConfirmation();
            }
        }
    }

    /**
     * Settles what the partner confirmed; true when the channel's thread, waiting for the disconnect interval, is to
     * wake to ask the confirmation of what went since once the queue stays empty the settle delay. Holding the turn.
     */
    private boolean settledAndDue() {
        settleConfirmed();
        if (waitsLong && unsettled > 0) {
            waitsLong = false;
            return true;
        }
        return false;
    }

    private boolean goesAsDelivered(Taken d) {
        return !MessageReader.persistentOf(d.message()) && partner.isOpen() && fits(d.message());
    }

    /**
     * Whether the partner reads {@code message}'s frame: its decoder skips, unread, a frame longer than its
     * maxMessageLength (HELLO_OK's) and {@link Configuration#FRAME_OVERHEAD_ALLOWANCE} (a frame's type byte and the
     * message), so such a message could go neither to its queue nor to the partner's dead-letter queue.
     */
    private boolean fits(ByteBuf message) {
        return fits(message.readableBytes());
    }

    /** {@link #fits} for a message of {@code length} bytes. */
    private boolean fits(int length) {
        return 1L + length <= (long) partner.maxMessageLength() + Configuration.FRAME_OVERHEAD_ALLOWANCE;
    }

    /**
     * Stops the channel (CHANNEL_STOPPED) rather than send a message the partner does not read ({@link #fits}): it
     * stays on the transmission queue until an operator raises the partner's limit. The exception's message is the
     * reason, as {@code display chstatus} shows it after "Channel NAME stopped: ".
     */
    private void checkLength(ByteBuf message) throws ClientException {
        if (fits(message)) {
            return;
        }
        String id = MessageHeaders.read(message).messageId();
        throw new ClientException(ErrorCode.CHANNEL_STOPPED, "it cannot send a message of its transmission queue "
                + definition.transmissionQueue() + " (" + (id == null ? "no JMSMessageID" : id) + "): it is "
                + message.readableBytes() + " bytes long, more than queue manager " + partner.serverName() + " reads"
                + " (its maxMessageLength of " + partner.maxMessageLength() + " bytes, and "
                + Configuration.FRAME_OVERHEAD_ALLOWANCE + " more for a frame's own fields), so it could go neither to"
                + " its queue nor to its dead-letter queue. The channel stops, the message kept on the transmission"
                + " queue: raise maxMessageLength in queue manager " + partner.serverName() + "'s configuration (a"
                + " restart) and start the channel again on the sending queue manager (wharf admin start channel "
                + definition.name() + ").");
    }

    /**
     * Asks the partner to confirm the messages sent outside the batches since the last ask (CHANNEL_FAST_CONFIRM),
     * without waiting: its OK, read on the partner connection's loop, settles them ({@link #confirmed}). One request
     * for up to {@link #settleEvery} messages: a stream of them, each alone on the queue as it comes (RR-5's requests
     * and replies), costs no frame, and no wake-up of a loop, per message.
     */
    private void askConfirmation() {
        assert turn.isHeldByCurrentThread() : "the partner connection's writer holds the turn";
        if (unconfirmed == 0) {
            return;
        }
        PendingRequests.Request answer = partner.send(Frame.ChannelFastConfirm::new);
        boolean anyDelivered = unconfirmed > unconfirmedHandedOver;
        confirming.addLast(new Confirming(anyDelivered ? unsettledUpTo : -1, unconfirmed, unconfirmedHandedOver,
                answer, System.nanoTime()));
        unconfirmed = 0;
        unconfirmedHandedOver = 0;
        answer.answer().whenComplete(this::confirmed);
    }

    /**
     * On the partner connection's loop, once a CHANNEL_FAST_CONFIRM is answered (or failed with the connection):
     * settles what the partner confirmed when the channel's thread waits in {@link #stream}, and wakes that thread
     * otherwise, or to see the failure.
     */
    private void confirmed(Frame.Error error, Throwable failure) {
        if (error == null && failure == null && streaming && turn.tryLock()) {
            try {
                if (streaming) {
                    settleConfirmed();
                    return;
                }
            } finally {
                turn.unlock();
            }
        }
        LockSupport.unpark(thread); // a permit: not lost if it has not parked yet
    }

    /**
     * Acknowledges on the transmission queue the messages sent outside the batches that the partner confirmed (they
     * leave it for good, without a journal write: they are non-persistent) and gives their credit back, without
     * waiting: the in-process session settles it before any later branch or its close. Stops at a confirmation not
     * answered OK yet.
     */
    private void settleConfirmed() {
        assert turn.isHeldByCurrentThread() : "the channel's fields are the turn holder's";
        Confirming head;
        while ((head = confirming.peekFirst()) != null && answeredOk(head.answer())) {
            confirming.removeFirst();
            local.acknowledge(head.upTo(), head.count(), head.handedOver());
            unsettled -= head.count();
            unsettledHandedOver -= head.handedOver();
        }
    }

    private static boolean answeredOk(PendingRequests.Request request) {
        return request.answer().isDone() && !request.answer().isCompletedExceptionally()
                && request.answer().getNow(null) == null;
    }

    /** Throws why the oldest confirmation on its way failed (the connection's loss, the partner's ERROR), if it has. */
    private void failedConfirmation() throws ClientException {
        Confirming head = confirming.peekFirst();
        if (head != null && head.answer().answer().isDone()) {
            partner.await(head.answer(), 0);
        }
    }

    /**
     * Waits for the partner to confirm every message sent outside the batches and acknowledges them: before a batch's
     * branch, which takes every delivery up to its last, so that none of them comes back if that batch does.
     */
    private void confirmOutsideBatch() throws ClientException, Unconfirmed {
        askConfirmation();
        Confirming last = confirming.peekLast();
        if (last == null) {
            return;
        }
        // answered in order: the last answers once every one before it has, each within the time from its ask
        while (!last.answer().await(untilOldestOverdue())) {
            settleConfirmed();
            failedConfirmation();
            unansweredTooLong();
            if (Thread.currentThread().isInterrupted()) {
                throw new ClientException("Channel " + definition.name() + " was interrupted while it waited for its"
                        + " partner's confirmation", null); // stopping
            }
        }
        settleConfirmed();
        failedConfirmation();
    }

    /** Nanoseconds until the oldest confirmation on its way has waited its longest; 0 when none waits. */
    private long untilOldestOverdue() {
        Confirming oldest = confirming.peekFirst();
        return oldest == null ? 0 : Math.max(0, oldest.askedNanos() + confirmTimeoutNanos - System.nanoTime());
    }

    /**
     * Throws {@link Unconfirmed} when the oldest confirmation on its way has waited for the partner's answer longer
     * than {@link ChannelConfiguration#FAST_CONFIRM_TIMEOUT_MILLIS}: a partner that keeps the connection alive and
     * confirms nothing would otherwise hold the whole credit, and so the channel's non-persistent traffic, for good.
     */
    private void unansweredTooLong() throws Unconfirmed {
        Confirming oldest = confirming.peekFirst();
        if (oldest == null || oldest.answer().answer().isDone()) {
            return;
        }
        long waitedNanos = System.nanoTime() - oldest.askedNanos();
        if (waitedNanos < confirmTimeoutNanos) {
            return;
        }
        throw new Unconfirmed("its partner at " + definition.connection()
                + " (queue manager " + partner.serverName() + ", as it names itself) left " + unsettled + " non-persistent"
                + " messages sent outside the batches (nonPersistentSpeed fast) unconfirmed, the oldest confirmation"
                + " asked " + TimeUnit.NANOSECONDS.toMillis(waitedNanos) + " ms ago, though the connection stays"
                + " alive: more than the channel's fastConfirmTimeoutMillis of " + definition.fastConfirmTimeoutMillis()
                + " ms. Until they are confirmed they hold the channel's credit (" + credit(definition) + " messages),"
                + " so its non-persistent messages would stop flowing. The sender closed the connection and retries"
                + " (retryMillis); those messages are dropped, as nonPersistentSpeed fast allows (never sent twice), and"
                + " the rest wait on transmission queue " + definition.transmissionQueue() + ". Check receiver channel "
                + definition.name() + " on queue manager " + partner.serverName() + " (its log) and what answers at "
                + definition.connection() + "; to send non-persistent messages in the batches instead, set"
                + " nonPersistentSpeed normal ('wharf admin alter channel " + definition.name() + " --non-persistent-speed"
                + " normal' on queue manager " + queueManager + ").");
    }

    /**
     * Acknowledges every message sent outside the batches, confirmed or not, as the connection that took them ends:
     * those it swallowed unnoticed are lost, as FAST allows, never sent twice. At most the credit.
     */
    private void dropOutsideBatch() {
        assert turn.isHeldByCurrentThread() : "the channel's fields are the turn holder's";
        confirming.clear();
        unconfirmed = 0;
        unconfirmedHandedOver = 0;
        if (unsettled == 0) {
            return;
        }
        local.acknowledge(unsettled > unsettledHandedOver ? unsettledUpTo : -1, unsettled, unsettledHandedOver);
        unsettled = 0;
        unsettledHandedOver = 0;
        unsettledUpTo = -1;
    }

    /** A batch's messages, the first {@code next}: until batchSize, batchBytes, or batchIntervalMillis of nothing. */
    private List<Taken> gather(Taken next) throws Exception {
        List<Taken> batch = new ArrayList<>();
        int maxSize = definition.batchSize(); // read per batch, not per message (a map lookup each)
        long maxBytes = definition.batchBytes();
        long intervalMillis = definition.batchIntervalMillis();
        try {
            long bytes = 0;
            while (next != null) {
                batch.add(next);
                bytes += next.message().readableBytes();
                if (batch.size() >= maxSize || bytes >= maxBytes) {
                    break;
                }
                next = local.next(intervalMillis);
            }
        } catch (Exception | Error e) {
            batch.forEach(d -> d.message().release());
            throw e;
        }
        return batch;
    }

    /**
     * Sends a batch, prepares its removal from the transmission queue and ends it on the partner, without waiting
     * for the partner's answer; null for an empty batch.
     */
    private Outstanding send(List<Taken> batch) throws Exception {
        assert turn.isHeldByCurrentThread() : "the partner connection's writer holds the turn";
        if (batch.isEmpty()) {
            return null;
        }
        try {
            for (int i = 0; i < batch.size(); i++) {
                checkLength(batch.get(i).message()); // before any is written: the batch stays whole on the queue
            }
        } catch (ClientException e) {
            batch.forEach(d -> d.message().release());
            throw e;
        }
        long lastDelivery = batch.get(batch.size() - 1).deliveryId();
        long bytes = 0;
        for (int i = 0; i < batch.size(); i++) {
            bytes += batch.get(i).message().readableBytes(); // before the frame owns it
            try {
                partner.write(new Frame.ChannelMessage(batch.get(i).message())); // as stored; the frame owns it
            } catch (RuntimeException e) {
                for (int j = i + 1; j < batch.size(); j++) {
                    batch.get(j).message().release();
                }
                throw e;
            }
        }
        long nextSequence = sequence + batch.size();
        long nextBatch = batchId + 1;
        WireXid xid = xid(nextBatch, sequence + 1, nextSequence);
        local.prepare(xid, lastDelivery, ChannelConfiguration.ANSWER_TIMEOUT_MILLIS); // in doubt until resolved
        afterPrepare.run();
        PendingRequests.Request answer = partner.send(id -> new Frame.ChannelEndBatch(id, nextSequence, nextBatch));
        sequence = nextSequence;
        batchId = nextBatch;
        return new Outstanding(xid, batch.size(), bytes, nextSequence, nextBatch, answer);
    }

    /** Waits for the partner's commit of {@code batch}, then commits its removal from the transmission queue. */
    private void confirm(Outstanding batch) throws Exception {
        long timeout = ChannelConfiguration.ANSWER_TIMEOUT_MILLIS;
        partner.await(batch.answer(), timeout);
        reported = new Reported(batch.sequence(), batch.batchId());
        afterConfirm.run();
        local.commit(batch.xid(), timeout);
        local.credit(batch.size());
        sent.add(batch.size(), batch.bytes());
    }

    /**
     * The XA branch of this channel's batch {@code batch}, its messages' sequence numbers {@code first} to {@code last}:
     * its removal from the transmission queue ({@link ChannelResolution#qualifier}).
     */
    private WireXid xid(long batch, long first, long last) {
        return new WireXid(XID_FORMAT, (XID_PREFIX + definition.name()).getBytes(StandardCharsets.UTF_8),
                ChannelResolution.qualifier(batch, first, last));
    }

    /** This channel's prepared batches on the local queue manager: removals whose outcome the partner decides. */
    private List<WireXid> inDoubt() {
        List<WireXid> ours = new ArrayList<>();
        byte[] gtrid = (XID_PREFIX + definition.name()).getBytes(StandardCharsets.UTF_8);
        for (WireXid xid : local.inDoubt()) {
            if (xid.formatId() == XID_FORMAT && Arrays.equals(xid.globalTransactionId(), gtrid)) {
                ours.add(xid);
            }
        }
        return ours;
    }

    /**
     * Resolves the batches in doubt against the receiver's last committed batch: a removal whose batch the receiver
     * has committed is committed, any other rolled back (its messages go back to the transmission queue, to be sent
     * again). Runs before anything else is sent on a new connection.
     */
    private void resolve(long receiverLastBatch) throws InterruptedException {
        for (WireXid xid : inDoubt()) {
            long batch = ChannelResolution.batchOf(xid.branchQualifier());
            boolean received = batch <= receiverLastBatch;
            if (received) {
                local.commit(xid, ChannelConfiguration.ANSWER_TIMEOUT_MILLIS);
            } else {
                local.rollback(xid, ChannelConfiguration.ANSWER_TIMEOUT_MILLIS);
            }
            LOG.log(System.Logger.Level.INFO, "Channel " + definition.name() + ": batch " + batch + " was in doubt;"
                    + (received ? " the receiver has it (its last batch is " + receiverLastBatch + "): removed from "
                    : " the receiver does not have it (its last batch is " + receiverLastBatch + "): back on ")
                    + definition.transmissionQueue());
        }
    }

    private void openLocal() {
        local = host.takeMessages();
        local.takeAsDelivered(this::takeAsDelivered);
    }

    private void connectPartner() throws ClientException, InterruptedException {
        // on the in-process session's loop: writes from the threads that deliver, acknowledgements, on one loop
        NetworkLoop loop = new NetworkLoop(local.loop(), NativeTransport.socketChannelClass(local.loop()));
        partner = CoreLink.open(definition.connection(), clientTls(), definition.user(), definition.password(),
                "channel " + definition.name() + " from " + queueManager, definition.heartbeatMillis(),
                definition.connectTimeoutMillis(), ChannelConfiguration.SENDER_MAX_RECEIVE_LENGTH, loop);
        partner.whenLost(() -> LockSupport.unpark(thread)); // this thread, waiting for messages, sees the loss at once
        Long reset = resets.pending(definition.name());
        boolean askFast = definition.nonPersistentSpeed() == ChannelDefinition.NonPersistentSpeed.FAST;
        Frame.ChannelStatus status = partner.call(id -> new Frame.ChannelOpen(id, definition.name(), queueManager,
                askFast, reset == null ? Frame.ChannelOpen.NO_RESET : reset), definition.connectTimeoutMillis())
                .channelStatus();
        if (reset != null) {
            resets.delivered(definition.name(), reset);
            LOG.log(System.Logger.Level.INFO, "Channel " + definition.name() + ": the receiver took the sequence"
                    + " number " + reset + " an operator reset the channel to");
        }
        sequence = status.sequence();
        batchId = status.lastBatchId();
        fast = askFast && status.fastNonPersistent(); // the partner may say normal: then every message goes in batches
        agreedSpeed = fast ? ChannelDefinition.NonPersistentSpeed.FAST : ChannelDefinition.NonPersistentSpeed.NORMAL;
        reported = new Reported(sequence, batchId);
        stoppedBecause = null; // the partner opened the channel: a cause it retried for is past
        resolve(batchId);
        LOG.log(System.Logger.Level.INFO, "Channel " + definition.name() + " to queue manager "
                + partner.serverName() + " at " + definition.connection() + " is running (sequence " + sequence
                + ", last batch " + batchId + ", nonPersistentSpeed " + agreedSpeed.text()
                + (partner.tls() == null ? "" : ", " + partner.tls()) + ")");
    }

    /** The channel's TLS options, named in messages as its attributes are: {@code tls.trustStore of channel NAME}. */
    private ClientTls clientTls() {
        return ClientTls.of(definition.tls(), option -> ChannelAttributes.TLS + option + " of channel " + definition.name());
    }

    private void closePartner() {
        if (local != null) {
            dropOutsideBatch(); // a new connection cannot confirm what this one took
        }
        if (partner != null) {
            partner.close();
            partner = null;
        }
        agreedSpeed = null;
    }

    private void closeLocal() {
        if (local != null) {
            local.endHandOff(handOff);
            dropOutsideBatch(); // before the close: what went outside the batches must not come back to go twice
            local.close();
            local = null;
        }
    }

    /** Stops the channel: a batch under way is not removed from the transmission queue unless confirmed. */
    void stop() {
        if (!thread.isAlive()) {
            status = State.STOPPED;
            return;
        }
        stopping = true;
        thread.interrupt();
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
