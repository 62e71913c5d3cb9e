package org.wharfmq.server.session;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.util.collection.IntObjectHashMap;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.frame.MalformedFrameException;
import org.wharfmq.protocol.frame.WireXid;
import org.wharfmq.protocol.message.MessageHeaders;
import org.wharfmq.protocol.message.MessageLengthLimit;
import org.wharfmq.protocol.message.PropertySection;
import org.wharfmq.protocol.message.TransmissionHeader;
import org.wharfmq.protocol.selector.Selector;
import org.wharfmq.protocol.selector.SelectorParseException;
import org.wharfmq.server.Configuration;
import org.wharfmq.server.LockOrder;
import org.wharfmq.server.OrderedLock;
import org.wharfmq.server.WharfException;
import org.wharfmq.server.queue.CompactionArena;
import org.wharfmq.server.queue.DeadLetters;
import org.wharfmq.server.queue.LocalQueue;
import org.wharfmq.server.queue.QueueManager;
import org.wharfmq.server.queue.QueueNameResolver;
import org.wharfmq.server.queue.RemoteRoute;
import org.wharfmq.server.queue.QueuedMessage;
import org.wharfmq.server.queue.SystemQueues;
import org.wharfmq.server.security.AdminSender;
import org.wharfmq.server.security.ConnectionAccess;
import org.wharfmq.server.security.Identity;
import org.wharfmq.server.security.Permission;
import org.wharfmq.server.store.Persistence;
import org.wharfmq.server.store.StoreCompletion;
import org.wharfmq.server.topic.Publication;
import org.wharfmq.server.topic.Subscription;
import org.wharfmq.server.topic.TopicManager;
import org.wharfmq.protocol.message.WireDestination;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;

/**
 * A client's JMS Session on the server: its ids, its consumers and browsers (it is their one owner) and the
 * settlement of their deliveries (ACK, COMMIT, ROLLBACK, REJECT, CLOSE). Its open transaction is a
 * {@link Transaction}: a transacted session's, or an XA session's association with an {@link XaBranch} (XA_START to
 * XA_END; outside one an XA session acknowledges like AUTO_ACKNOWLEDGE); its DELIVER frames leave through its
 * {@link DeliveryWriter} (an in-process session's deliveries go to its {@link DeliverySink} instead:
 * {@link InProcessTakes}); what a SEND to a topic becomes is the {@link TopicManager}'s. (Not {@code ServerSession}:
 * that name is taken by {@code javax.jms.ServerSession}, an application server's API.)
 *
 * <h2>Threading</h2>
 * <ul>
 *   <li>The session is driven by its connection's event loop: every public method is called there, in frame
 *       order, and the consumer map and transaction are touched only there.</li>
 *   <li>Deliveries are recorded from any thread: a producer on another connection puts a message, the queue hands
 *       it to one of this session's consumers under the queue's lock, and {@link #record} assigns the delivery id,
 *       adds it to the consumer's unacknowledged deliveries and queues its frame under this session's small lock
 *       (queue lock, then session lock: never the other way). The writer writes it on the event loop.</li>
 *   <li>Store completions may come from the store's thread; they hop back to the event loop before touching
 *       session state.</li>
 *   <li>A session that only sends, for a thread of the queue manager's own code ({@link InProcessProducer}: a flow's
 *       reader), is driven by that thread instead: its {@code owner} runs the store completions and the producer
 *       window's wake-ups on that thread, and the event loop is only its timer (a delivery delay).</li>
 * </ul>
 */
public final class BrokerSession {

    private static final System.Logger LOG = System.getLogger(BrokerSession.class.getName());
    private static final WireDestination DEAD_LETTER_QUEUE = WireDestination.queue(SystemQueues.DEAD_LETTER_QUEUE);

    private final int id;
    private final Channel channel;
    private final EventLoop eventLoop;
    /**
     * Where the session's completions and wake-ups run: {@link #eventLoop}, or the tasks of the one thread that drives
     * a session of {@link InProcessProducer}'s.
     */
    private final Executor owner;
    private final Replies replies;
    private final QueueManager queueManager;
    private final TopicManager topics;
    private final String clientId;
    private final Persistence persistence;
    private final int maxMessageLength;
    /** The user's name in UTF-8, compared in place with each message's JMSXUserID; null for an anonymous connection. */
    private final byte[] userUtf8;
    /** Whether this is the queue manager's own connection, whose messages keep the JMSXUserID they carry. */
    private final boolean queueManagerItself;
    /** What the connection may do, and who it is. */
    private final ConnectionAccess access;
    /**
     * Guards delivery ids, every consumer's unacknowledged deliveries, and the writer's frames; taken inside a queue's
     * lock (a delivery is recorded), never the other way ({@link LockOrder}).
     */
    private final OrderedLock lock;
    private long nextDeliveryId = 1;
    private final DeliveryWriter writer;
    /** Where the deliveries of an in-process session go instead of {@link #writer}'s frames; null for a client's. */
    private final DeliverySink sink;

    // owned by the event loop
    /** The session's open consumers by id: the one place they are kept. */
    private final IntObjectHashMap<ServerConsumer> consumers = new IntObjectHashMap<>();
    /** Open QueueBrowser enumerations; their ids share the consumer id space of the connection. */
    private final IntObjectHashMap<ServerBrowser> browsers = new IntObjectHashMap<>();
    /** Closed consumers that still hold deliveries the application consumed; settled by the next ACK/COMMIT/ROLLBACK. */
    private final List<ServerConsumer> retired = new ArrayList<>();
    /** Whether COMMIT and ROLLBACK settle the session's transactions. */
    private final boolean transacted;
    /** The queue manager's XA branches, for an XA session; null for any other. */
    private final XaBranches xaBranches;
    /**
     * The open transaction: always a transacted session's (a new one as each ends), an XA session's association
     * with {@link #branch} while there is one; null otherwise. Sends go to it whatever it is: one test per send.
     */
    private Transaction transaction;
    /** The XA branch an XA session is associated with, from XA_START to XA_END; null otherwise. */
    private XaBranch branch;
    /** Right-sized copies of this session's publications that will wait on a subscription's backlog. */
    private final CompactionArena arena = new CompactionArena(ByteBufAllocator.DEFAULT);
    /** The credit of the session's producers: returned as SENDs are handled, held back for destinations over budget. */
    private final ProducerWindow producers;
    /** ACKs whose journal records are not yet durable, and what waits for them: {@link #afterAcknowledgementsRecorded}. */
    private final PendingRecords acknowledgements = new PendingRecords();
    /**
     * Whether an unanswered ACK's record was handed to the journal since the session last asked for a sync
     * ({@link #acknowledge}): its durability rides the journal's next sync, and {@link #afterAcknowledgementsRecorded}
     * asks for one. Event loop only.
     */
    private boolean acknowledgementsUnsynced;
    /** Where the last name this session's producers put to on another queue manager leads, resolved once. */
    private final RemoteRoute remoteRoute = new RemoteRoute();
    /** The JMSDestinations of the messages this session's SENDs carried last ({@link MessageHeaders#read(ByteBuf, WireDestination[])}). */
    private final WireDestination[] recentDestinations = new WireDestination[Configuration.RECENT_DESTINATIONS];
    /** The messages an ACK takes off their queues, one list for every ACK (none is kept past its handling). */
    private final List<QueuedMessage> acknowledging = new ArrayList<>();
    /**
     * The bytes each consumer opened from now on may hold handed over and not settled
     * ({@link org.wharfmq.server.queue.DeliveryWindow}); set by an in-process session's taker before it opens one
     * ({@link #limitConsumersHeldBytes}); unbounded for a client's.
     */
    private long consumersMaxHeldBytes = Long.MAX_VALUE;

    /**
     * @param id               the id the client chose
     * @param transacted       whether sends are held until COMMIT and consumption is settled by COMMIT/ROLLBACK
     * @param xaBranches       the queue manager's XA branches for an XA session ({@link Frame#SESSION_XA}), else null
     * @param channel          the connection
     * @param replies          answers on that connection
     * @param queueManager     the queues
     * @param topics           publish/subscribe
     * @param clientId         the connection's client ID (fixed before any session exists), or null
     * @param maxMessageLength longest message accepted (setting maxMessageLength)
     * @param producerWindow   bytes the session's producers may send before credit comes back (producerWindowBytes)
     * @param fanOutWindow     bytes times subscriptions reached that a publishing session's window amounts to
     *                         (fanOutWindowBytes)
     * @param access           what the connection may do, and who it authenticated as (its messages' JMSXUserID)
     */
    public BrokerSession(int id, boolean transacted, XaBranches xaBranches, Channel channel, Replies replies,
                         QueueManager queueManager, TopicManager topics, String clientId, int maxMessageLength,
                         int producerWindow, long fanOutWindow,
                         ConnectionAccess access) {
        this(id, transacted, xaBranches, channel, replies, queueManager, topics, clientId, maxMessageLength,
                producerWindow, fanOutWindow, access, null);
    }

    /** As the public constructor; the deliveries go to {@code sink} (an in-process session's) unless it is null. */
    BrokerSession(int id, boolean transacted, XaBranches xaBranches, Channel channel, Replies replies,
                  QueueManager queueManager, TopicManager topics, String clientId, int maxMessageLength,
                  int producerWindow, long fanOutWindow, ConnectionAccess access, DeliverySink sink) {
        this(id, transacted, xaBranches, channel, replies, queueManager, topics, clientId, maxMessageLength,
                producerWindow, fanOutWindow, access, sink, channel.eventLoop());
    }

    /**
     * As the public constructor, driven by the thread whose tasks {@code owner} runs rather than by the channel's event
     * loop (then neither transacted nor XA: {@link InProcessProducer}).
     */
    BrokerSession(int id, boolean transacted, XaBranches xaBranches, Channel channel, Replies replies,
                  QueueManager queueManager, TopicManager topics, String clientId, int maxMessageLength,
                  int producerWindow, long fanOutWindow, ConnectionAccess access, DeliverySink sink, Executor owner) {
        assert owner == channel.eventLoop() || (!transacted && xaBranches == null)
                : "a session driven by a thread of its own only sends outside any unit of work";
        this.id = id;
        this.owner = owner;
        this.sink = sink;
        this.access = access;
        Identity identity = access.identity(); // its sends must carry that user as JMSXUserID, and nothing else
        this.userUtf8 = identity.anonymous() ? null : identity.user().getBytes(StandardCharsets.UTF_8);
        this.queueManagerItself = identity.server();
        this.channel = channel;
        this.eventLoop = channel.eventLoop();
        this.replies = replies;
        this.queueManager = queueManager;
        this.topics = topics;
        this.clientId = clientId;
        this.persistence = queueManager.persistence();
        this.maxMessageLength = maxMessageLength;
        this.lock = new OrderedLock(LockOrder.Rank.SESSION, "session " + id);
        this.writer = new DeliveryWriter(lock, channel);
        this.transacted = transacted;
        this.xaBranches = transacted ? null : xaBranches;
        this.transaction = transacted ? new Transaction(persistence, topics) : null;
        this.producers = new ProducerWindow(id, replies, owner, producerWindow, fanOutWindow,
                queueManager.memoryBudget());
    }

    /** Gives the session's producers their first window of credit: before the OK to CREATE_SESSION. */
    public void openProducerWindow() {
        producers.open();
    }

    /** The id the client chose. */
    public int id() {
        return id;
    }

    /** Open consumers (subscribers included); on the event loop, for the management view. */
    public int consumerCount() {
        return consumers.size();
    }

    /** Open browsers; on the event loop, for the management view. */
    public int browserCount() {
        return browsers.size();
    }

    /**
     * Tells the client that a consumer's queue was deleted by an administrator (CONSUMER_FAILED, UNKNOWN_DESTINATION):
     * its next receive raises {@code reason}. Any thread: the write goes to the connection's event loop.
     */
    void queueDeleted(ServerConsumer consumer, String reason) {
        if (sink != null) {
            sink.failed(reason);
            return;
        }
        channel.writeAndFlush(new Frame.ConsumerFailed(consumer.id(), ErrorCode.UNKNOWN_DESTINATION, reason),
                channel.voidPromise());
    }

    // ---- consumers and browsers ----

    /**
     * CREATE_CONSUMER in this session: a consumer of a queue, a subscriber to a topic (which consumes its
     * subscription's queue) or a browser of a queue. Answers OK before the consumer's first DELIVER. The connection
     * has checked the id is free and the destination is one this connection may consume from.
     *
     * @throws WharfException when the selector, the destination or a subscription rule refuses it; nothing is
     *                        created then
     */
    public void openConsumer(Frame.CreateConsumer f) {
        Selector selector;
        try {
            selector = Selector.parse(f.selector());
        } catch (SelectorParseException e) {
            throw new WharfException(ErrorCode.INVALID_SELECTOR, "Invalid message selector: " + e.getMessage());
        }
        ServerConsumer consumer;
        boolean temporary = f.destination().kind().isTemporary(); // its connection's alone: TemporaryDestinations
        if (f.destination().kind().isQueue()) {
            boolean browse = (f.flags() & Frame.CONSUMER_BROWSER) != 0;
            if (!temporary) {
                access.check(browse ? Permission.BROWSE : Permission.RECEIVE, f.destination().name());
            }
            LocalQueue queue = queueManager.attach(f.destination(), access.createCheck()); // detached when it closes
            try {
                checkTransmissionQueue(queue.name()); // the queue read, whatever alias named it
            } catch (WharfException e) {
                queue.detach();
                throw e;
            }
            if (browse) {
                ServerBrowser browser = new ServerBrowser(f.consumerId(), id, queue, selector, channel,
                        f.windowBytes());
                browsers.put(f.consumerId(), browser);
                replies.ok(f.requestId()); // answered before the first DELIVER, as for consumers
                browser.start(f.credit());
                return;
            }
            consumer = new ServerConsumer(f, this, queue, selector);
        } else {
            if (!temporary) {
                access.check(Permission.SUBSCRIBE, f.destination().name());
                if ((f.flags() & Frame.CONSUMER_DURABLE) != 0) {
                    access.check(Permission.DURABLE, f.destination().name());
                }
            }
            consumer = subscribe(f, selector);
        }
        consumers.put(f.consumerId(), consumer);
        replies.ok(f.requestId()); // answered before the first DELIVER is written
        consumer.start();
    }

    /**
     * A consumer on a topic consumes from its subscription's queue; the subscription applies the selector when a
     * message is published, so the consumer itself takes everything on that queue.
     */
    private ServerConsumer subscribe(Frame.CreateConsumer f, Selector selector) {
        if ((f.flags() & Frame.CONSUMER_BROWSER) != 0) {
            throw WharfException.illegalState("Topic '" + f.destination().name() + "' cannot be browsed; browsers are for queues.");
        }
        Subscription subscription = topics.attach(f.destination(), f.selector() == null || f.selector().isBlank()
                        ? null : f.selector(), selector, (f.flags() & Frame.CONSUMER_NO_LOCAL) != 0,
                (f.flags() & Frame.CONSUMER_DURABLE) != 0, (f.flags() & Frame.CONSUMER_SHARED) != 0,
                f.subscriptionName(), clientId, channel, access.identity());
        subscription.queue().attach(); // as every consumer's queue; a subscription's is never deleted as unused
        ServerConsumer consumer = new ServerConsumer(f, this, subscription.queue(), Selector.ALL_MATCH);
        consumer.onClose(() -> topics.detach(subscription));
        return consumer;
    }

    /**
     * CLOSE_CONSUMER: a browser just ends. A consumer's deliveries after {@code lastConsumedDeliveryId} never
     * reached the application and go back to the queue as they were; the rest stay with the session until
     * acknowledged, committed or rolled back. Nothing happens for an id the session does not have (closed already).
     */
    public void closeConsumer(int consumerId, long lastConsumedDeliveryId) {
        ServerBrowser browser = browsers.remove(consumerId);
        if (browser != null) {
            browser.close(); // a browser holds no message: its DELIVERs were copies (paged ones given back)
            return;
        }
        ServerConsumer consumer = consumers.remove(consumerId);
        if (consumer == null || !consumer.stop()) {
            return;
        }
        List<QueuedMessage> unconsumed = new ArrayList<>();
        boolean holdsConsumed;
        lock.lock();
        try {
            consumer.settleAfter(lastConsumedDeliveryId, unconsumed);
            holdsConsumed = consumer.holdsDeliveries();
        } finally {
            lock.unlock();
        }
        if (holdsConsumed) {
            retired.add(consumer);
        }
        consumer.queue().giveBack(unconsumed);
        consumer.closed();
    }

    /** The open consumer {@code consumerId}, or null; on the event loop. */
    ServerConsumer consumer(int consumerId) {
        return consumers.get(consumerId);
    }

    /** CREDIT: the consumer or browser may be sent {@code credit} more messages. */
    public void addCredit(int consumerId, int credit) {
        addCredit(consumerId, credit, 0);
    }

    /**
     * Bounds what each consumer opened from now on may hold handed over and not settled to {@code maxHeldBytes}
     * (at least one message): an in-process session whose taker settles by {@link #addCredit(int, int, long)}.
     */
    public void limitConsumersHeldBytes(long maxHeldBytes) {
        assert eventLoop.inEventLoop();
        this.consumersMaxHeldBytes = maxHeldBytes;
    }

    long consumersMaxHeldBytes() {
        return consumersMaxHeldBytes;
    }

    /**
     * As {@link #addCredit(int, int)}, settling {@code settledBytes} of what the consumer holds: for a consumer bounded
     * in bytes ({@link #limitConsumersHeldBytes}, or a client's CREDIT for its CREATE_CONSUMER's windowBytes).
     */
    public void addCredit(int consumerId, int credit, long settledBytes) {
        ServerConsumer consumer = consumers.get(consumerId);
        if (consumer != null) {
            consumer.addCredit(credit, settledBytes);
            return;
        }
        ServerBrowser browser = browsers.get(consumerId);
        if (browser != null) {
            browser.addCredit(credit);
        }
    }

    /**
     * PULL: delivers one available message, credit or not. Every delivery recorded for this session so far,
     * including one a producer on another thread handed over a moment ago, is written before this returns, so
     * the PULL_DONE written next never overtakes a message that was already on its way.
     *
     * @return false when a browser whose next messages are paged writes the PULL_DONE itself, once they are read
     */
    public boolean pull(int consumerId, long pullId) {
        ServerConsumer consumer = consumers.get(consumerId);
        if (consumer != null) {
            consumer.pull();
            writer.drain();
            return true;
        }
        ServerBrowser browser = browsers.get(consumerId);
        return browser == null || browser.pull(pullId);
    }

    // ---- deliveries ----

    /** The lock that guards the session's deliveries (its consumers' and its writer's assert they run under it). */
    OrderedLock lock() {
        return lock;
    }

    /** Records a delivery and queues its frame; called by the queue, under its lock, from any thread. */
    void record(ServerConsumer consumer, QueuedMessage message) {
        lock.lock();
        try {
            Delivery d = new Delivery(consumer, nextDeliveryId++, message.deliveryCount(), message);
            consumer.delivered(d);
            if (sink != null) {
                sink.delivered(d);
            } else {
                writer.queue(d);
            }
        } finally {
            lock.unlock();
        }
        persistence.delivered(message, message.deliveryCount()); // so a crash brings it back as redelivered
    }

    /** Gets the recorded deliveries written: now when on the event loop, else by one scheduled task. */
    void flushDeliveries() {
        if (sink != null) {
            sink.flush();
            return;
        }
        writer.flush();
    }

    /** A transmission queue's messages are for channels: reading one needs the channel permission. */
    private void checkTransmissionQueue(String queue) {
        if (!queueManager.isTransmissionQueue(queue)) {
            return;
        }
        try {
            access.check(Permission.CHANNEL, null);
        } catch (WharfException e) {
            throw new WharfException(ErrorCode.NOT_AUTHORISED, "Queue '" + queue + "' is a transmission queue: its"
                    + " messages are for another queue manager and only a channel takes them (the 'channel'"
                    + " permission; docs/distributed.md). " + e.getMessage());
        }
    }

    // ---- sending ----

    /**
     * SEND: validates the message, takes its place on the queue, then makes it visible: at once, once stored (a
     * persistent message), or at COMMIT (a transacted session). Takes over the reference to {@code content}. A
     * message whose encoding is broken is refused with MALFORMED_MESSAGE, like any other refused send: the frame
     * around it was fine, so the connection goes on.
     */
    public void send(int requestId, int producerId, ByteBuf content) {
        send(requestId, producerId, content, null);
    }

    /**
     * SEND as {@link #send(int, int, ByteBuf)}, with {@code read} the headers of {@code content} when the queue
     * manager's own code has read them already ({@link MessageHeaders#read} of these very bytes, which checks the
     * layout as this would: a receiver channel routing what its partner brought), so that they are not read twice;
     * null to read them here.
     */
    void send(int requestId, int producerId, ByteBuf content, MessageHeaders read) {
        int length = content.readableBytes(); // what the client's credit counted
        QueuedMessage message;
        try {
            MessageHeaders headers = read == null ? read(content) : withinLength(length, read);
            checkUserId(headers, content);
            WireDestination destination = headers.destination();
            access.checkSend(destination);
            if (destination != null && !destination.kind().isQueue()) {
                Publication publication = publishToTopic(requestId, producerId, content, headers);
                producers.published(length, publication.copyCount(), publication.blockedBy());
                return;
            }
            message = accept(content, headers);
            if (message == null) { // handed to its transmission queue's channel as it was put: on its way already
                producers.handled(length, null, false);
                replies.ok(requestId);
                return;
            }
        } catch (WharfException e) {
            content.release();
            sendFailed(requestId, producerId, e);
            producers.handled(length, null, false);
            return;
        } catch (RuntimeException e) {
            content.release();
            producers.handled(length, null, false);
            throw e;
        }
        LocalQueue queue = message.queue();
        producers.handled(length, queue.blocksProducers() ? queue : null, queue.memoryLimit().pages());
        if (transaction != null) {
            transaction.send(message);
            replies.ok(requestId);
        } else if (persistence.stores(message)) {
            persistence.put(message, failure -> onEventLoop(() -> stored(requestId, producerId, message, failure)));
        } else {
            message.queue().offerWhenDue(message, eventLoop);
            replies.ok(requestId);
        }
    }

    /**
     * JMSXUserID is the authenticated user, never a claim: a message of an authenticated connection must carry
     * exactly its user once (the Wharf client sets it from HELLO_OK), one of an anonymous connection none. A property
     * section that names it twice is refused whatever the values, since a decoder keeps the last one and a check of
     * one alone could be fooled. The message is neither copied nor rewritten, so every stored message carries the
     * verified user; the check compares bytes in place and allocates nothing unless it refuses. The queue manager's
     * own in-process connections ({@link Identity#SERVER}) put messages other connections sent and stamped (a channel
     * receiver puts what the partner's clients sent): theirs keep the JMSXUserID they carry, named once.
     */
    private void checkUserId(MessageHeaders headers, ByteBuf content) {
        int tag = headers.userIdTag(content);
        if (queueManagerItself && tag != PropertySection.DUPLICATE) {
            return;
        }
        if (userUtf8 == null ? tag == -1 : tag >= 0 && PropertySection.isString(content, tag, userUtf8)) {
            return;
        }
        String refusal;
        if (tag == PropertySection.DUPLICATE) {
            refusal = "The message carries the JMSXUserID property more than once: a message may name its sender once,"
                    + " as " + (userUtf8 == null ? "no one (this connection did not authenticate)"
                    : "user '" + access.identity().user() + "', the user this connection authenticated as") + ".";
        } else {
            Object claimed = tag < 0 ? null : PropertySection.valueOf(content, tag);
            refusal = userUtf8 == null
                    ? "The message claims JMSXUserID '" + claimed + "', but this connection did not authenticate: the"
                            + " messages of an anonymous connection carry no JMSXUserID."
                    : claimed == null
                    ? "The message carries no JMSXUserID, but this connection is authenticated as user '"
                            + access.identity().user()
                            + "': every message it sends must carry that user as JMSXUserID."
                    : "The message claims JMSXUserID '" + claimed + "', but this connection is authenticated as user '"
                            + access.identity().user() + "': a client may not send as another user.";
        }
        throw new WharfException(ErrorCode.NOT_AUTHORISED, refusal + " It was not stored (the Wharf client sets"
                + " JMSXUserID itself; see docs/security.md).");
    }

    private MessageHeaders read(ByteBuf content) {
        int length = content.readableBytes();
        try {
            return withinLength(length, MessageHeaders.read(content, recentDestinations));
        } catch (MalformedFrameException e) {
            if (length > maxMessageLength) {
                throw tooLarge(length);
            }
            throw new WharfException(ErrorCode.MALFORMED_MESSAGE, "The message was refused and not stored: "
                    + e.getMessage() + ". It does not follow Wharf's message encoding (docs/protocol.md, \"Message "
                    + "encoding\"): the producer's client library encoded it wrongly.");
        }
    }

    /** {@code headers}, of a message of {@code length} bytes, unless it is over maxMessageLength (refused). */
    private MessageHeaders withinLength(int length, MessageHeaders headers) {
        if (length > maxMessageLength && !deadLetterOfTheQueueManager(length, headers)) {
            throw tooLarge(length);
        }
        return headers;
    }

    /**
     * The refusal of a message of {@code length} bytes over maxMessageLength: the limit counts the whole encoded
     * message (headers, properties and body), as the client counts it before it sends (docs/protocol.md, "Sending").
     */
    private WharfException tooLarge(int length) {
        return new WharfException(ErrorCode.MESSAGE_TOO_LARGE, MessageLengthLimit.refusal(
                MessageLengthLimit.encoded(length), maxMessageLength, queueManager.resolver().queueManagerName(),
                "stored"));
    }

    /**
     * Whether a message over maxMessageLength is the queue manager's own code's (a channel's, the hierarchy's) for the
     * dead-letter queue, with no more than {@link DeadLetters#HEADROOM_BYTES} over: a message that was within the
     * limit and gained the reason properties on its way there (as the queue manager's own dead letters do).
     */
    private boolean deadLetterOfTheQueueManager(int length, MessageHeaders headers) {
        return length <= (long) maxMessageLength + DeadLetters.HEADROOM_BYTES && access.identity().server()
                && DEAD_LETTER_QUEUE.equals(headers.destination());
    }

    /** The message's place on its queue; null when the transmission queue's hand-off took it (a non-persistent one). */
    private QueuedMessage accept(ByteBuf content, MessageHeaders headers) {
        while (true) {
            WireDestination destination = headers.destination();
            LocalQueue queue = destination == null ? null : queueManager.named(destination);
            if (queue == null) { // not a queue's own name: an alias, a remote queue, one to create by use, none
                if (destination == null) {
                    queueManager.queue((WireDestination) null, access.createCheck()); // refuses it, naming why
                }
                QueueNameResolver.Resolution resolution = remoteRoute.resolve(queueManager.resolver(), destination,
                        access.createCheck());
                if (resolution.remote()) {
                    return toTransmissionQueue(content, headers, resolution);
                }
                queue = resolution.queue();
            }
            if (SystemQueues.ADMIN_COMMAND_QUEUE.equals(queue.name())) {
                return acceptAdminRequest(queue, content);
            }
            QueuedMessage message = new QueuedMessage(queue, content, headers);
            if (queue.reserve(message)) {
                return message;
            }
            // deleted as unused since the lookup (QueueManager): the next lookup finds or creates its successor
        }
    }

    /**
     * An admin request's place on the admin command queue, by whatever name it was sent: a copy of {@code content}
     * with this connection's identity stamped on it ({@link AdminSender}), which the admin command responder asks
     * about before it runs the command; {@code content} is released once the copy has its place.
     */
    private QueuedMessage acceptAdminRequest(LocalQueue queue, ByteBuf content) {
        ByteBuf stamped = AdminSender.stamp(content, access.identity());
        try {
            QueuedMessage message = new QueuedMessage(queue, stamped, MessageHeaders.read(stamped));
            if (!queue.reserve(message)) {
                throw new WharfException(ErrorCode.UNKNOWN_DESTINATION, "Queue '" + queue.name() + "' was deleted "
                        + "while the message was put to it: send it again.");
            }
            content.release();
            return message;
        } catch (RuntimeException e) {
            stamped.release();
            throw e;
        }
    }

    /**
     * A message for another queue manager, with its transmission header ({@link TransmissionHeader#address}: measured
     * once, in one look at the message). Outside a unit of work a non-persistent message may go past the queue to the
     * channel that streams its messages ({@link LocalQueue#handOver}), which takes {@code content} and writes the
     * header straight into its frames: then null. Otherwise a copy of its headers with the transmission header, with
     * its body (copied when short: {@link Configuration#TRANSMISSION_COPY_LIMIT_BYTES}), goes on the transmission
     * queue, and {@code content} is released once the copy has its place there. A name qualified by the queue manager
     * ({@code QM2/ORDERS}) needs the send permission on the transmission queue too, as IBM MQ checks it.
     */
    private QueuedMessage toTransmissionQueue(ByteBuf content, MessageHeaders headers,
                                              QueueNameResolver.Resolution resolution) {
        LocalQueue queue = resolution.queue();
        if (resolution.qualified()) {
            access.checkSendThrough(queue.name());
        }
        TransmissionHeader.Addressed addressed = TransmissionHeader.address(content,
                remoteRoute.header(resolution, queueManager.resolver().queueManagerName()));
        if (transaction == null && queue.handOver(addressed, headers)) {
            return null; // the channel's now, content with it
        }
        ByteBuf wrapped = addressed.wrap(channel.alloc(), Configuration.TRANSMISSION_COPY_LIMIT_BYTES);
        try {
            QueuedMessage message = new QueuedMessage(queue, wrapped, addressed.headers(headers));
            if (!queue.reserve(message)) {
                throw new WharfException(ErrorCode.UNKNOWN_DESTINATION, "Transmission queue '" + queue.name()
                        + "' was deleted while the message was put to it: define it again.");
            }
            content.release();
            return message;
        } catch (RuntimeException e) {
            wrapped.release();
            throw e;
        }
    }

    /**
     * A SEND to a topic: the {@link TopicManager} routes it to one copy per matching subscription, each then handled
     * as a queue send: held until COMMIT, or published at once or once what is stored of it is durable. Takes over
     * {@code content}.
     *
     * @return the publication: its copies, and the subscription queues it went to that are over budget with the
     *         policy block (most often none)
     */
    private Publication publishToTopic(int requestId, int producerId, ByteBuf content, MessageHeaders headers) {
        // outside a transaction, a publication nothing stores is offered as it is routed (publish then offers nothing)
        Publication publication = topics.route(content, headers, channel, clientId, arena,
                transaction == null ? eventLoop : null); // failures: see send
        content.release(); // the copies hold their own references
        if (transaction != null) {
            transaction.publish(publication);
            replies.ok(requestId);
        } else if (topics.stores(publication)) {
            topics.store(publication, failure -> onEventLoop(() -> published(requestId, producerId, publication, failure)));
        } else {
            topics.publish(publication, eventLoop);
            replies.ok(requestId);
        }
        return publication;
    }

    private void published(int requestId, int producerId, Publication publication, Throwable failure) {
        if (failure != null) {
            publication.cancel();
            storeFailed(requestId, producerId, "a publication to topic '" + publication.topic() + "'", failure);
            return;
        }
        topics.publish(publication, eventLoop);
        replies.ok(requestId);
    }

    private void stored(int requestId, int producerId, QueuedMessage message, Throwable failure) {
        if (failure != null) {
            message.queue().cancel(message);
            storeFailed(requestId, producerId, message.toString(), failure);
            return;
        }
        message.queue().offerWhenDue(message, eventLoop);
        replies.ok(requestId);
    }

    /** The store could not record a SEND (whose places on its queues are given back): it fails, naming why. */
    private void storeFailed(int requestId, int producerId, String what, Throwable failure) {
        LOG.log(System.Logger.Level.WARNING, "Could not store " + what + ": " + failure);
        sendFailed(requestId, producerId,
                new WharfException(ErrorCode.INTERNAL_ERROR, "The message could not be stored: " + failure));
    }

    private void sendFailed(int requestId, int producerId, WharfException e) {
        if (requestId == 0 && transaction != null) {
            transaction.sendFailed(e);
        }
        replies.error(requestId, e, id, producerId);
    }

    /**
     * REJECT: the client cannot decode a delivery, so its application will never see it. It leaves the consumer's
     * unacknowledged deliveries for the dead-letter queue, whatever the session's transaction or acknowledgement
     * mode. A delivery already settled (acknowledged, or returned by a rollback or close) is left alone. Once the
     * user has rejected its quota of deliveries to the dead-letter queue this minute (security file,
     * {@code quotas: rejectsPerMinute}), a rejected delivery goes back to its queue instead, as a rollback returns it
     * (its delivery count raised, so the queue's backoutThreshold still applies): never lost, and the dead-letter
     * queue is not anyone's to fill.
     *
     * @param reason why, as the dead letter's reason: who rejected it and what the client could not decode
     */
    public void reject(int consumerId, long deliveryId, String reason) {
        ServerConsumer consumer = consumers.get(consumerId);
        if (consumer == null) {
            return; // closed since: its unconsumed deliveries went back to the queue
        }
        QueuedMessage rejected;
        lock.lock();
        try {
            rejected = consumer.settle(deliveryId);
        } finally {
            lock.unlock();
        }
        if (rejected == null) {
            return;
        }
        if (access.mayRejectToDeadLetters()) {
            queueManager.deadLetters().moveFromQueue(rejected, reason);
        } else {
            rejected.countRedelivery();
            rejected.queue().giveBack(new ArrayList<>(List.of(rejected)));
        }
    }

    // ---- acknowledging ----

    /** ACK: the listed consumers' deliveries up to the given ids (and any held by closed consumers) are done. */
    public void acknowledge(int requestId, List<Frame.Consumed> consumed) {
        if (transaction != null) {
            throw WharfException.illegalState("Session " + id + (branch != null ? " is associated with " + branch
                    + ": its XA_END hands what it consumed to the branch, not ACK." : " is transacted: COMMIT settles what"
                    + " it consumed, not ACK."));
        }
        List<QueuedMessage> acknowledged = takeConsumed(consumed, false, acknowledging);
        try {
            if (!persistence.storesAny(acknowledged)) {
                acknowledged(acknowledged);
                replies.ok(requestId);
                return;
            }
            // the queue forgets the messages at once (after a crash before the record is durable they come back,
            // which an unanswered ACK allows); only the answer waits for the record, which needs just queue and
            // sequence (the store copies what it records of the list)
            acknowledged(acknowledged);
            if (requestId == 0) {
                // nobody waits for an unanswered ACK (AUTO_ACKNOWLEDGE, DUPS_OK): its record is written at once and
                // rides the journal's next sync, asked for by nobody but a later answered ACK or the close
                persistence.remove(acknowledged, StoreCompletion.NONE);
                acknowledgementsUnsynced = true;
                return;
            }
            acknowledgements.started();
            persistence.remove(acknowledged, failure -> onEventLoop(() -> {
                if (failure != null) {
                    LOG.log(System.Logger.Level.WARNING, "Could not record acknowledgement in session " + id + ": "
                            + failure);
                }
                replies.ok(requestId);
                acknowledgements.recorded();
            }));
        } finally {
            acknowledging.clear();
        }
    }

    /**
     * Runs {@code then} (on the event loop) once the journal records of every ACK handled so far are durable: at once
     * when none is pending. An AUTO_ACKNOWLEDGE ACK is not answered, so the answer to the session's or connection's
     * close is the client's one sign that its acknowledgements survive a crash of the server.
     */
    public void afterAcknowledgementsRecorded(Runnable then) {
        syncAcknowledgements();
        acknowledgements.whenRecorded(then);
    }

    /** Asks the journal for a sync covering the unanswered ACKs' records, if any is not yet covered. */
    private void syncAcknowledgements() {
        if (!acknowledgementsUnsynced) {
            return;
        }
        acknowledgementsUnsynced = false;
        acknowledgements.started();
        persistence.sync(failure -> onEventLoop(() -> {
            if (failure != null) {
                LOG.log(System.Logger.Level.WARNING, "Could not make the acknowledgements of session " + id
                        + " durable: " + failure);
            }
            acknowledgements.recorded();
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
        commitTaking(requestId, takeConsumed(consumed, transaction.rollbackOnlyCause() != null, new ArrayList<>()));
    }

    /**
     * COMMIT of what the session sent and of {@code acknowledged}, messages taken off their queues for it (its
     * consumers' deliveries, or messages its in-process owner took itself: {@link InProcessPuts}), in one journal
     * transaction; they go back to their queues when it does not commit.
     */
    void commitTaking(int requestId, List<QueuedMessage> acknowledged) {
        requireTransacted("COMMIT");
        Transaction committing = transaction;
        transaction = new Transaction(persistence, topics);
        WharfException cause = committing.rollbackOnlyCause();
        if (cause != null) {
            giveBack(acknowledged);
            committing.rollback(failure -> replies.error(requestId, ErrorCode.TRANSACTION_ROLLED_BACK,
                    "The transaction was rolled back because a send in it failed: " + cause.getMessage(), id, 0));
            return;
        }
        committing.commit(acknowledged, false, eventLoop, failure -> { // settles them first once durable
            if (failure != null) {
                LOG.log(System.Logger.Level.WARNING, "Could not store the commit of session " + id + ": " + failure);
                for (int i = 0; i < acknowledged.size(); i++) {
                    acknowledged.get(i).countRedelivery();
                }
                giveBack(acknowledged);
                replies.error(requestId, ErrorCode.TRANSACTION_ROLLED_BACK,
                        "The transaction was rolled back because the store could not record its commit: " + failure, id, 0);
                return;
            }
            replies.ok(requestId);
        });
    }

    /**
     * ROLLBACK (also Session.recover): pending sends are dropped; every unacknowledged delivery goes back to its
     * queue at its original position, the listed consumed ones (and those held by closed consumers) with their
     * delivery count increased. No delivery reaches the session's consumers before the OK; after it, each
     * consumer restarts at its initial credit.
     */
    public void rollback(int requestId, List<Frame.Consumed> consumed) {
        if (branch != null) {
            throw WharfException.illegalState("Session " + id + " is associated with " + branch + ": roll the branch "
                    + "back (XA_END, then XA_ROLLBACK), not the session.");
        }
        for (ServerConsumer c : consumers.values()) {
            c.suspend();
        }
        List<QueuedMessage> returned = new ArrayList<>();
        lock.lock();
        try {
            for (ServerConsumer c : consumers.values()) {
                c.settleAll(lastConsumed(consumed, c.id()), returned);
            }
            for (ServerConsumer c : retired) {
                c.settleAll(Long.MAX_VALUE, returned);
            }
        } finally {
            lock.unlock();
        }
        retired.clear();
        giveBack(returned);
        Runnable restart = () -> {
            replies.ok(requestId);
            for (ServerConsumer c : consumers.values()) {
                c.resume();
            }
        };
        if (transacted) {
            Transaction rollingBack = transaction;
            transaction = new Transaction(persistence, topics);
            rollingBack.rollback(failure -> onEventLoop(restart));
        } else {
            restart.run();
        }
    }

    /**
     * CLOSE_SESSION, CLOSE, or the connection dropped: its browsers end, the open transaction is rolled back and
     * every unacknowledged delivery goes back to its queue. Those the application consumed are always counted as
     * redelivered; prefetched ones only when {@code countPrefetched} (CLOSE_SESSION and a dropped connection
     * count them, an orderly CLOSE does not). Answers OK when {@code requestId} is not 0.
     */
    public void close(int requestId, boolean countPrefetched) {
        syncAcknowledgements(); // now: a CLOSE waits for every session's, one sync for them all
        List<ServerConsumer> closing = new ArrayList<>(consumers.values());
        for (ServerConsumer c : closing) {
            c.stop();
        }
        browsers.values().forEach(ServerBrowser::close);
        browsers.clear();
        List<QueuedMessage> returned = new ArrayList<>();
        lock.lock();
        try {
            long counted = countPrefetched ? Long.MAX_VALUE : Long.MIN_VALUE;
            for (ServerConsumer c : consumers.values()) {
                c.settleAll(counted, returned);
            }
            for (ServerConsumer c : retired) {
                c.settleAll(Long.MAX_VALUE, returned);
            }
            writer.discardUnwritten();
        } finally {
            lock.unlock();
        }
        consumers.clear();
        retired.clear();
        giveBack(returned);
        for (ServerConsumer c : closing) {
            c.closed();
        }
        if (branch != null) {
            xaBranches.abandon(branch, transaction, id);
            branch = null;
            transaction = null;
        }
        arena.release();
        producers.close();
        if (transaction != null) {
            transaction.rollback(failure -> replies.ok(requestId));
        } else if (requestId != 0) {
            afterAcknowledgementsRecorded(() -> replies.ok(requestId));
        }
    }

    // ---- XA ----

    /**
     * XA_START: associates this XA session with a branch ({@link XaBranches#start}); until XA_END its sends belong
     * to the branch.
     *
     * @throws WharfException with an XA code: not an XA session or associated already (XAER_PROTO), or what the
     *                        branch's rules refuse
     */
    public void xaStart(int requestId, WireXid xid, int flags, int timeoutSeconds) {
        if (xaBranches == null) {
            throw new WharfException(ErrorCode.XAER_PROTO, "Session " + id + " is not an XA session: create it as one"
                    + " (XAConnection.createXASession) to take part in " + xid + ".");
        }
        if (branch != null) {
            throw new WharfException(ErrorCode.XAER_PROTO, "Session " + id + " is associated with " + branch
                    + " already: end that association before starting " + xid + ".");
        }
        XaBranch started = xaBranches.start(xid, flags, timeoutSeconds, eventLoop, access);
        branch = started;
        transaction = new Transaction(persistence, topics, started.work.id());
        replies.ok(requestId);
    }

    /**
     * XA_END: the association with {@code xid} ends or is suspended; the session's work in it and the listed
     * consumed deliveries (and those held by closed consumers) become the branch's, so this session no longer returns
     * them. Prefetched deliveries stay with their consumers.
     *
     * @throws WharfException with an XA code: not associated with {@code xid} (XAER_PROTO), bad flags (XAER_INVAL,
     *                        the association goes on), or the branch can only roll back (XA_RBROLLBACK, XA_RBTIMEOUT:
     *                        the association has ended)
     */
    public void xaEnd(int requestId, WireXid xid, int flags, List<Frame.Consumed> consumed) {
        if (branch == null || !branch.xid.equals(xid)) {
            throw new WharfException(ErrorCode.XAER_PROTO, "Session " + id + " is not associated with " + xid
                    + (branch == null ? "" : " but with " + branch.xid) + ": start it before ending it.");
        }
        if (flags != Frame.XA_SUCCESS && flags != Frame.XA_FAIL && flags != Frame.XA_SUSPEND) {
            throw new WharfException(ErrorCode.XAER_INVAL, "XA end of " + xid + " with flags 0x"
                    + Integer.toHexString(flags) + ": use TMSUCCESS, TMFAIL or TMSUSPEND.");
        }
        XaBranch ending = branch;
        Transaction association = transaction;
        branch = null;
        transaction = null;
        xaBranches.end(ending, association, flags, takeConsumed(consumed, false, new ArrayList<>()));
        replies.ok(requestId);
    }

    // ---- helpers ----

    /**
     * Removes consumed deliveries (up to the listed ids, plus all held by closed consumers) from the session, into
     * {@code taken}, which it returns.
     */
    private List<QueuedMessage> takeConsumed(List<Frame.Consumed> consumed, boolean countRedelivery,
                                             List<QueuedMessage> taken) {
        lock.lock();
        try {
            for (int i = 0; i < consumed.size(); i++) {
                Frame.Consumed c = consumed.get(i);
                ServerConsumer consumer = consumers.get(c.consumerId());
                if (consumer != null) {
                    consumer.settleUpTo(c.lastDeliveryId(), countRedelivery, taken);
                }
            }
            for (int i = 0; i < retired.size(); i++) {
                retired.get(i).settleUpTo(Long.MAX_VALUE, countRedelivery, taken);
            }
        } finally {
            lock.unlock();
        }
        retired.clear();
        return taken;
    }

    private static long lastConsumed(List<Frame.Consumed> consumed, int consumerId) {
        for (int i = 0; i < consumed.size(); i++) {
            if (consumed.get(i).consumerId() == consumerId) {
                return consumed.get(i).lastDeliveryId();
            }
        }
        return Long.MIN_VALUE;
    }

    /**
     * Removes acknowledged messages from their queues for good (their consumption is recorded already): each run of
     * one queue's messages (a consumer's deliveries settled together) in one call, under one acquisition of its lock.
     */
    static void acknowledged(List<QueuedMessage> messages) {
        int from = 0;
        while (from < messages.size()) {
            LocalQueue queue = messages.get(from).queue();
            int to = from + 1;
            while (to < messages.size() && messages.get(to).queue() == queue) {
                to++;
            }
            queue.acknowledge(messages, from, to);
            from = to;
        }
    }

    /** Returns messages to their queues, one call per queue. */
    static void giveBack(List<QueuedMessage> messages) {
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

    private void requireTransacted(String frame) {
        if (!transacted) {
            throw WharfException.illegalState("Session " + id + " is not transacted: " + frame + " is not allowed.");
        }
    }

    /** Runs {@code task} where the session's state is touched: now when on its event loop, else as its owner's task. */
    private void onEventLoop(Runnable task) {
        if (owner == eventLoop && eventLoop.inEventLoop()) {
            task.run();
        } else {
            owner.execute(task);
        }
    }

    @Override
    public String toString() {
        return "session " + id + (transacted ? " (transacted)" : xaBranches != null ? " (XA)" : "");
    }
}
