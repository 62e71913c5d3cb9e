package org.wharfmq.server.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.channel.local.LocalChannel;
import io.netty.util.collection.IntObjectHashMap;
import org.wharfmq.protocol.TemporaryNames;
import org.wharfmq.protocol.frame.ClientFrameHandler;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.frame.FrameReads;
import org.wharfmq.protocol.frame.MalformedFrameException;
import org.wharfmq.protocol.message.MessageHeaders;
import org.wharfmq.protocol.selector.Selector;
import org.wharfmq.server.ChannelAcceptor;
import org.wharfmq.server.Configuration;
import org.wharfmq.server.WharfException;
import org.wharfmq.server.security.Permission;
import org.wharfmq.server.queue.LocalQueue;
import org.wharfmq.server.security.ConnectionAccess;
import org.wharfmq.server.security.Identity;
import org.wharfmq.server.session.BrokerSession;
import org.wharfmq.server.session.DeliveryHandOff;
import org.wharfmq.server.session.InProcessPuts;
import org.wharfmq.server.session.Replies;
import org.wharfmq.server.session.TemporaryDestinations;
import org.wharfmq.server.session.XaBranches;

import javax.security.auth.x500.X500Principal;
import java.security.MessageDigest;
import java.security.cert.X509Certificate;
import java.util.Optional;
import java.util.function.Consumer;

import java.util.ArrayList;
import java.util.List;

/**
 * The server's end of one client connection, after its handshake: handles each frame the client sends
 * ({@link ClientFrameHandler}), in arrival order, and answers requests with OK or ERROR. It owns what belongs to the
 * connection as a whole: its sessions, its client ID, its connection key and its temporary destinations. Consumers and browsers belong
 * to their session; the connection only remembers which session each consumer id is in, because CREDIT, PULL and
 * REJECT name the consumer alone.
 *
 * <p>Everything here runs on the connection's event loop, which owns these maps (ids are chosen by the client and
 * unique within the connection). There is no hand-off to worker threads: a SEND is validated, stored and put on its
 * queue (and, when a consumer is waiting, delivered) right here.
 *
 * <p>A connection that ends, however it ends (CLOSE, a dropped socket, or its {@link HeartbeatHandler} finding it silent,
 * or an administrator ending it), releases everything: its sessions close and their unacknowledged deliveries go
 * back to their queues.
 *
 * <p>A connection that carries a channel from another queue manager (CHANNEL_OPEN) hands its frames to the channels
 * plugin ({@link ChannelAcceptor}), which puts the messages it brings through two sessions of this connection
 * ({@link InProcessPuts}), here on its event loop: the non-persistent ones outside its batches as their frames are
 * read, and each batch in a transaction of the other as it ends.
 *
 * <p>It is in the server's {@link OpenConnections} from its handshake to its end, under a number of the server's, and
 * tells the management view about itself ({@link #info}) on its event loop. It counts its producers per queue
 * ({@link LocalQueue#producerOpened}), which hold no other state in the server.
 */
final class ServerConnection extends ChannelInboundHandlerAdapter implements ClientFrameHandler {

    private static final System.Logger LOG = System.getLogger(ServerConnection.class.getName());

    private final ServerContext context;
    private final String clientName;
    /** Who the handshake found the client to be; fixed for the connection's life. */
    private final Identity identity;
    /** Gives this connection back to its user's quota of connections (security file); runs once. */
    private final Runnable releaseQuota;
    /** The most a consumer's or browser's window in bytes may be (maxConsumerWindowBytes): one asking more gets it. */
    private final int maxConsumerWindowBytes;
    /** What the client may do; made once the channel (its peer address) is known. */
    private ConnectionAccess access;
    private final IntObjectHashMap<BrokerSession> sessions = new IntObjectHashMap<>();
    /** The session each open consumer or browser id belongs to. */
    private final IntObjectHashMap<BrokerSession> sessionOfConsumer = new IntObjectHashMap<>();
    /** Its temporary queues and topics; made with {@link #access}. */
    private TemporaryDestinations temporaries;
    private ChannelHandlerContext ctx;
    private Channel channel;
    private Replies replies;
    /** After CLOSE, or once the channel is inactive: nothing more is processed. */
    private boolean released;
    /** The JMS client ID (SET_CLIENT_ID), held in the server's {@link ClientIds} until the connection ends. */
    private String clientId;
    /** The namespace of the connection key (CLAIM_KEY), held in the server's {@link ConnectionKeys}; null before. */
    private String keyNamespace;
    /**
     * The SHA-256 of the key being claimed or held, which a connection taking over compares (on its own event loop:
     * written before the key is put in {@link ConnectionKeys}, which publishes it).
     */
    private volatile byte[] keyDigest;
    /** The server's number for this connection, in {@link OpenConnections}. */
    private long id;
    /** When the handshake completed, epoch ms. */
    private long connectedAt;
    private CountingFlushHandler traffic;
    /** Whether the server holds this connection's reading for its unsent bytes, for the management view. */
    private OutboundLimit outbound;
    /** The loop's hand-off of deliveries to other loops' sessions, told where each read starts and ends. */
    private DeliveryHandOff handOff;
    /** The channel from another queue manager this connection carries, after CHANNEL_OPEN; null before. */
    private ChannelAcceptor.Inbound inboundChannel;
    /** The in-process puts of that channel's non-persistent messages ({@link ChannelAcceptor.Peer#put}); null before. */
    private InProcessPuts channelPuts;
    /** The transacted in-process puts of that channel's batches ({@link ChannelAcceptor.Peer#putInBatch}); null before. */
    private InProcessPuts channelBatch;
    /** Open producers by id, each with its session and the queue it is counted on (null: anonymous or a topic). */
    private final IntObjectHashMap<Producer> producers = new IntObjectHashMap<>();

    /** An open producer: its session, and the queue it sends to, or null when it names no queue. */
    private record Producer(int sessionId, LocalQueue queue) {
    }

    /**
     * @param releaseQuota gives the connection back to its user's quota of connections; run when it is released
     */
    ServerConnection(ServerContext context, String clientName, Identity identity, Runnable releaseQuota) {
        this.context = context;
        this.clientName = clientName;
        this.identity = identity;
        this.releaseQuota = releaseQuota;
        this.maxConsumerWindowBytes = context.config().maxConsumerWindowBytes();
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        channel = ctx.channel();
        replies = new Replies(channel);
        access = new ConnectionAccess(identity, context.accessControl(), channel.remoteAddress());
        temporaries = new TemporaryDestinations(context.queueManager(), context.topicManager(), access,
                context.config().maxTemporaryQueuesPerConnection());
        traffic = ctx.pipeline().get(CountingFlushHandler.class);
        outbound = ctx.pipeline().get(OutboundLimit.class);
        handOff = DeliveryHandOff.of(ctx.channel().eventLoop()); // added by HandshakeHandler, on the loop
        connectedAt = System.currentTimeMillis();
        id = context.openConnections().add(this);
        LOG.log(System.Logger.Level.DEBUG, () -> "Client '" + clientName + "' connected from " + ctx.channel().remoteAddress());
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        handOff.readStarted(channel);
        if (released || ProtocolFailures.isClosing(ctx)) {
            ProtocolFailures.discard(msg);
            return;
        }
        if (!(msg instanceof Frame.FromClient frame)) {
            ProtocolFailures.discard(msg);
            ProtocolFailures.protocolError(ctx, ((Frame) msg).type() + " is sent by the server, never by a client");
            return;
        }
        try {
            frame.handleWith(this);
        } catch (MalformedFrameException e) {
            ProtocolFailures.protocolError(ctx, e.getMessage());
        }
    }

    /** The read has ended: deliveries it made to other loops' sessions go to those loops now. */
    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        handOff.readEnded();
        ctx.fireChannelReadComplete();
    }

    // ---- the connection ----

    @Override
    public void onHello(Frame.Hello f) {
        ProtocolFailures.protocolError(ctx, "HELLO received twice; the handshake happens once per connection");
    }

    @Override
    public void onAuth(Frame.Auth f) {
        ProtocolFailures.protocolError(ctx, "AUTH after the handshake; a connection authenticates once, before HELLO_OK");
    }

    @Override
    public void onAuthResponse(Frame.AuthResponse f) {
        ProtocolFailures.protocolError(ctx, "AUTH_RESPONSE after the handshake; a connection authenticates once, before HELLO_OK");
    }

    @Override
    public void onShareDeliveries(Frame.ShareDeliveries f) {
        if (f.slots() < 1 || f.slots() > Frame.ShareDeliveries.MAX_SLOTS) {
            ProtocolFailures.protocolError(ctx, "SHARE_DELIVERIES says the client keeps " + f.slots() + " messages;"
                    + " 1 to " + Frame.ShareDeliveries.MAX_SLOTS + " are allowed");
            return;
        }
        DeliveryHandOff.shareDeliveries(channel, f.slots());
    }

    @Override
    public void onPing(Frame.Ping f) {
        // its arrival has reset the HeartbeatHandler's read timer; nothing to answer
    }

    @Override
    public void onClose(Frame.Close f) {
        List<BrokerSession> closing = new ArrayList<>(sessions.values());
        releaseAll(false);
        // answered once the acknowledgements read before it are in the journal: the client's close is its barrier
        Runnable answer = () -> replies.ok(f.requestId());
        for (int i = closing.size() - 1; i >= 0; i--) {
            BrokerSession session = closing.get(i);
            Runnable next = answer;
            answer = () -> session.afterAcknowledgementsRecorded(next);
        }
        answer.run();
    }

    @Override
    public void onSetClientId(Frame.SetClientId f) {
        answer(f.requestId(), () -> setClientId(f.clientId()));
    }

    /** JMS: the client ID is set once, before anything else happens on the connection, and is unique. */
    private void setClientId(String id) {
        if (clientId != null) {
            throw WharfException.illegalState("The client ID of this connection is already '" + clientId + "'.");
        }
        if (!sessions.isEmpty()) {
            throw WharfException.illegalState("The client ID must be set before the connection is used (JMS 2.0 "
                    + "section 6.1.2); this connection already has sessions.");
        }
        if (id != null) {
            access.checkClientId(id);
            context.topicManager().checkClientId(id, identity);
        }
        context.clientIds().claim(id, this);
        clientId = id;
    }

    /**
     * CLAIM_KEY: takes the key's namespace for this connection's temporary destinations. When a live connection holds
     * the key already, it is the one the client left behind (a half-open connection, say): once it is checked to be
     * the same user's, it is released here as if it had dropped (its unacknowledged deliveries go back marked
     * redelivered, its client ID and durable subscriptions are free again) and its temporary destinations come to this
     * connection, and only then is the claim answered, so that what the client does next finds them free.
     */
    @Override
    public void onClaimKey(Frame.ClaimKey f) {
        if (keyNamespace != null || keyDigest != null) {
            replies.error(f.requestId(), WharfException.illegalState("This connection has claimed its key already; a"
                    + " connection claims one key, once."), 0, 0);
            return;
        }
        if (f.key().length != TemporaryNames.KEY_BYTES) {
            replies.error(f.requestId(), WharfException.illegalState("A connection key is " + TemporaryNames.KEY_BYTES
                    + " bytes; this one has " + f.key().length + "."), 0, 0);
            return;
        }
        String namespace = TemporaryNames.namespace(f.key());
        keyDigest = TemporaryNames.sha256(f.key());
        ServerConnection holder = context.connectionKeys().claim(namespace, this);
        if (holder == null) {
            holdKey(namespace);
            replies.ok(f.requestId());
            return;
        }
        if (!MessageDigest.isEqual(holder.keyDigest, keyDigest) || !holder.identity.user().equals(identity.user())) {
            keyDigest = null;
            replies.error(f.requestId(), new WharfException(ErrorCode.NOT_AUTHORISED, identity.describeAtStart()
                    + " may not take over the connection key held by the connection of " + holder.identity.describe()
                    + " from " + holder.channel.remoteAddress() + ": a connection takes over only from a connection of"
                    + " the same user."), 0, 0);
            return;
        }
        LOG.log(System.Logger.Level.INFO, () -> "Client '" + clientName + "' (" + channel.remoteAddress() + ") reconnected;"
                + " releasing its previous connection from " + holder.channel.remoteAddress() + ", which it has left");
        holder.handOver(handover -> channel.eventLoop().execute(() -> tookOver(f.requestId(), namespace, holder, handover)));
    }

    /** On the old connection's event loop: releases it as a dropped connection, handing its temporaries on. */
    private void handOver(Consumer<TemporaryDestinations.Handover> to) {
        channel.eventLoop().execute(() -> {
            if (released) {
                to.accept(TemporaryDestinations.Handover.NONE); // ended meanwhile: its temporaries are gone with it
                return;
            }
            TemporaryDestinations.Handover handover = releaseAll(true, true);
            to.accept(handover);
            channel.close();
        });
    }

    /** Back on this connection's event loop, after {@link #handOver}: the key and the temporaries are this one's. */
    private void tookOver(int requestId, String namespace, ServerConnection holder, TemporaryDestinations.Handover handover) {
        temporaries.adopt(handover);
        if (released) {
            temporaries.deleteAll(); // this connection ended meanwhile: nobody is left to own them
            return;
        }
        ConnectionKeys keys = context.connectionKeys();
        if (!keys.replace(namespace, holder, this) && keys.claim(namespace, this) != null) {
            keyDigest = null;
            replies.error(requestId, WharfException.illegalState("Another connection claimed this connection key while"
                    + " this one took over from the previous holder; a key belongs to one connection at a time."), 0, 0);
            return;
        }
        holdKey(namespace);
        replies.ok(requestId);
    }

    private void holdKey(String namespace) {
        keyNamespace = namespace;
        temporaries.namespace(namespace);
    }

    @Override
    public void onUnsubscribe(Frame.Unsubscribe f) {
        answer(f.requestId(), () -> context.topicManager().unsubscribe(clientId, f.subscriptionName(), identity));
    }

    @Override
    public void onCreateTemporary(Frame.CreateTemporary f) {
        answer(f.requestId(), () -> {
            if (inboundChannel != null) {
                throw onChannel("a temporary destination");
            }
            temporaries.create(f.destination());
        });
    }

    /**
     * The refusal of {@code what} on a connection that carries a channel from another queue manager: such a connection
     * carries that channel alone (its partner's clients have connections of their own), so that what a partner does
     * there is what the channel does.
     */
    private static WharfException onChannel(String what) {
        return WharfException.illegalState("This connection carries a channel from another queue manager, and a"
                + " channel's connection carries that channel alone: " + what + " is refused on it. Open it on a"
                + " connection of its own.");
    }

    @Override
    public void onDeleteTemporary(Frame.DeleteTemporary f) {
        answer(f.requestId(), () -> temporaries.delete(f.destination()));
    }

    /** Runs a connection-level request and answers OK, or ERROR with what it threw. */
    private void answer(int requestId, Runnable request) {
        try {
            request.run();
            replies.ok(requestId);
        } catch (WharfException e) {
            replies.error(requestId, e, 0, 0);
        }
    }

    // ---- sessions ----

    @Override
    public void onCreateSession(Frame.CreateSession f) {
        if (inboundChannel != null) {
            replies.error(f.requestId(), onChannel("a session"), f.sessionId(), 0);
            return;
        }
        if (sessions.containsKey(f.sessionId())) {
            replies.error(f.requestId(), WharfException.illegalState("Session id " + f.sessionId()
                    + " is already in use on this connection."), f.sessionId(), 0);
            return;
        }
        XaBranches xa = f.ackMode() == Frame.SESSION_XA ? context.xaBranches() : null;
        BrokerSession session = new BrokerSession(f.sessionId(), f.transacted(), xa, channel, replies,
                context.queueManager(), context.topicManager(), clientId, context.config().maxMessageLength(),
                context.config().producerWindowBytes(), context.config().fanOutWindowBytes(), access);
        sessions.put(f.sessionId(), session);
        session.openProducerWindow();
        replies.ok(f.requestId());
    }

    @Override
    public void onCloseSession(Frame.CloseSession f) {
        BrokerSession session = sessions.remove(f.sessionId());
        if (session == null) {
            replies.ok(f.requestId()); // closing twice is harmless
            return;
        }
        sessionOfConsumer.values().removeIf(s -> s == session);
        closeProducersOf(f.sessionId());
        session.close(f.requestId(), true);
    }

    @Override
    public void onSend(Frame.Send f) {
        BrokerSession session = sessions.get(f.sessionId());
        if (session == null) {
            f.message().release();
            replies.error(f.requestId(), noSession(f.sessionId()), f.sessionId(), f.producerId());
            return;
        }
        session.send(f.requestId(), f.producerId(), f.message());
    }

    @Override
    public void onAck(Frame.Ack f) {
        try {
            session(f.sessionId()).acknowledge(f.requestId(), f.consumed());
        } catch (WharfException e) {
            replies.error(f.requestId(), e, f.sessionId(), 0);
        }
    }

    @Override
    public void onCommit(Frame.Commit f) {
        try {
            session(f.sessionId()).commit(f.requestId(), f.consumed());
        } catch (WharfException e) {
            replies.error(f.requestId(), e, f.sessionId(), 0);
        }
    }

    @Override
    public void onRollback(Frame.Rollback f) {
        try {
            session(f.sessionId()).rollback(f.requestId(), f.consumed());
        } catch (WharfException e) {
            replies.error(f.requestId(), e, f.sessionId(), 0);
        }
    }

    @Override
    public void onCreateProducer(Frame.CreateProducer f) {
        try {
            session(f.sessionId());
            access.checkProducer(f.destination());
            LocalQueue queue = null;
            if (f.destination() != null && f.destination().kind().isQueue()) {
                queue = context.queueManager().queue(f.destination(), access.createCheck());
            } else if (f.destination() != null) {
                context.topicManager().checkPublishable(f.destination());
            }
            closeProducer(f.producerId()); // a client that reuses an id has closed the first producer
            producers.put(f.producerId(), new Producer(f.sessionId(), queue));
            if (queue != null) {
                queue.producerOpened();
            }
            replies.ok(f.requestId());
        } catch (WharfException e) {
            replies.error(f.requestId(), e, f.sessionId(), f.producerId());
        }
    }

    @Override
    public void onCloseProducer(Frame.CloseProducer f) {
        // a producer holds no state a SEND needs (it names its destination in the message): only the counts
        closeProducer(f.producerId());
        replies.ok(f.requestId());
    }

    private void closeProducer(int producerId) {
        Producer producer = producers.remove(producerId);
        if (producer != null && producer.queue() != null) {
            producer.queue().producerClosed();
        }
    }

    /** Forgets the producers of a closed session (a client closing a session does not close them one by one). */
    private void closeProducersOf(int sessionId) {
        List<Integer> ofSession = new ArrayList<>();
        producers.forEach((producerId, producer) -> {
            if (producer.sessionId() == sessionId) {
                ofSession.add(producerId);
            }
        });
        ofSession.forEach(this::closeProducer);
    }

    private BrokerSession session(int sessionId) {
        BrokerSession session = sessions.get(sessionId);
        if (session == null) {
            throw noSession(sessionId);
        }
        return session;
    }

    private static WharfException noSession(int sessionId) {
        return WharfException.illegalState("Session " + sessionId + " is not open on this connection.");
    }

    // ---- consumers and browsers: each is its session's; CREDIT, PULL and REJECT find it through its session ----

    @Override
    public void onCreateConsumer(Frame.CreateConsumer f) {
        try {
            BrokerSession session = session(f.sessionId());
            if (sessionOfConsumer.containsKey(f.consumerId())) {
                throw WharfException.illegalState("Consumer id " + f.consumerId() + " is already in use on this connection.");
            }
            if (f.destination() == null) {
                throw WharfException.illegalState("No destination given: a consumer must name a queue or a topic.");
            }
            temporaries.checkConsumable(f.destination());
            session.openConsumer(windowCapped(f));
            sessionOfConsumer.put(f.consumerId(), session);
        } catch (WharfException e) {
            if (f.requestId() == 0) {
                // created without waiting: the client raises it from that consumer's next receive
                channel.writeAndFlush(new Frame.ConsumerFailed(f.consumerId(), e.code(), e.getMessage()), channel.voidPromise());
            } else {
                replies.error(f.requestId(), e, f.sessionId(), 0);
            }
        }
    }

    @Override
    public void onCloseConsumer(Frame.CloseConsumer f) {
        BrokerSession session = sessionOfConsumer.get(f.consumerId());
        if (session != null && session.id() == f.sessionId()) { // else already closed, with its session or before
            sessionOfConsumer.remove(f.consumerId());
            session.closeConsumer(f.consumerId(), f.lastConsumedDeliveryId());
        }
        replies.ok(f.requestId());
    }

    /**
     * {@code f} with its window in bytes at most maxConsumerWindowBytes; a browser that asks for none (a version 2
     * client, or {@code consumerWindowBytes=0}) gets that cap too, since the server settles a browse by its CREDITs'
     * counts and needs nothing of the client to bound it (docs/protocol.md, "Browsing").
     */
    private Frame.CreateConsumer windowCapped(Frame.CreateConsumer f) {
        boolean browser = (f.flags() & Frame.CONSUMER_BROWSER) != 0;
        return f.windowBytes() > maxConsumerWindowBytes || browser && f.windowBytes() == 0
                ? f.withWindowBytes(maxConsumerWindowBytes) : f;
    }

    @Override
    public void onCredit(Frame.Credit f) {
        BrokerSession session = sessionOfConsumer.get(f.consumerId());
        if (session != null) {
            session.addCredit(f.consumerId(), f.credit(), f.settledBytes());
        }
    }

    @Override
    public void onPull(Frame.Pull f) {
        BrokerSession session = sessionOfConsumer.get(f.consumerId());
        if (session == null || session.pull(f.consumerId(), f.pullId())) {
            ctx.writeAndFlush(new Frame.PullDone(f.consumerId(), f.pullId()), ctx.voidPromise());
        }
    }

    @Override
    public void onReject(Frame.Reject f) {
        BrokerSession session = sessionOfConsumer.get(f.consumerId());
        if (session != null) { // else closed since: its deliveries went back to the queue
            session.reject(f.consumerId(), f.deliveryId(), "client '" + clientName + "' (" + channel.remoteAddress()
                    + ", consumer " + f.consumerId() + ") cannot decode it: " + f.reason());
        }
    }

    // ---- XA: associations name their session; prepare, commit, rollback and recover may come from any connection ----

    @Override
    public void onXaStart(Frame.XaStart f) {
        try {
            session(f.sessionId()).xaStart(f.requestId(), f.xid(), f.flags(), f.timeoutSeconds());
        } catch (WharfException e) {
            replies.error(f.requestId(), e, f.sessionId(), 0);
        }
    }

    @Override
    public void onXaEnd(Frame.XaEnd f) {
        try {
            session(f.sessionId()).xaEnd(f.requestId(), f.xid(), f.flags(), f.consumed());
        } catch (WharfException e) {
            replies.error(f.requestId(), e, f.sessionId(), 0);
        }
    }

    @Override
    public void onXaPrepare(Frame.XaPrepare f) {
        try {
            context.xaBranches().prepare(f.requestId(), f.xid(), access, replies);
        } catch (WharfException e) {
            replies.error(f.requestId(), e, 0, 0);
        }
    }

    @Override
    public void onXaCommit(Frame.XaCommit f) {
        try {
            context.xaBranches().commit(f.requestId(), f.xid(), f.onePhase(), access, channel.eventLoop(), replies);
        } catch (WharfException e) {
            replies.error(f.requestId(), e, 0, 0);
        }
    }

    @Override
    public void onXaRollback(Frame.XaRollback f) {
        try {
            context.xaBranches().rollback(f.requestId(), f.xid(), access, replies);
        } catch (WharfException e) {
            replies.error(f.requestId(), e, 0, 0);
        }
    }

    @Override
    public void onXaRecover(Frame.XaRecover f) {
        replies.xaResult(f.requestId(), Frame.XA_OK, context.xaBranches().recover(access));
    }

    // ---- a channel from another queue manager (the plugin's: ChannelAcceptor) ----

    @Override
    public void onChannelOpen(Frame.ChannelOpen f) {
        try {
            if (inboundChannel != null || !sessions.isEmpty()) {
                throw WharfException.illegalState("A channel's connection carries that channel alone: this connection"
                        + (inboundChannel != null ? " opened a channel already" : " has sessions") + ". Open channel '"
                        + f.channel() + "' on a connection of its own.");
            }
            try {
                access.check(Permission.CHANNEL, null);
            } catch (WharfException e) {
                throw new WharfException(ErrorCode.NOT_AUTHORISED, "Channel '" + f.channel() + "' from queue manager "
                        + f.queueManager() + " is refused: only a user with the 'channel' permission runs a channel"
                        + " (docs/distributed.md). " + e.getMessage());
            }
            ChannelAcceptor acceptor = context.channelAcceptor().acceptor();
            if (acceptor == null) {
                throw new WharfException(ErrorCode.UNKNOWN_DESTINATION, "Queue manager " + context.config().name()
                        + " receives no channels: it defines no receiver channel. Define receiver channel '"
                        + f.channel() + "' under channels: in its config/wharf.yaml (docs/distributed.md).");
            }
            inboundChannel = acceptor.open(channelPeer(), f.requestId(), f.channel(), f.queueManager(),
                    f.fastNonPersistent(), f.resetSequence());
            if (channel.config().getRecvByteBufAllocator() instanceof FrameReads reads) {
                // a stream of messages from now on
                reads.readAtLeast(reads.framesInPlace() ? Configuration.CHANNEL_READ_BYTES
                        : Configuration.CHANNEL_TLS_READ_BYTES);
            }
        } catch (WharfException e) {
            replies.error(f.requestId(), e, 0, 0);
        }
    }

    @Override
    public void onChannelMessage(Frame.ChannelMessage f) {
        if (inboundChannel == null) {
            f.message().release();
            ProtocolFailures.protocolError(ctx, "CHANNEL_MESSAGE before CHANNEL_OPEN was accepted");
            return;
        }
        inboundChannel.message(f.message());
    }

    @Override
    public void onChannelFastMessage(Frame.ChannelFastMessage f) {
        if (inboundChannel == null) {
            f.message().release();
            ProtocolFailures.protocolError(ctx, "CHANNEL_FAST_MESSAGE before CHANNEL_OPEN was accepted");
            return;
        }
        inboundChannel.fastMessage(f.message());
    }

    @Override
    public void onChannelEndBatch(Frame.ChannelEndBatch f) {
        if (inboundChannel == null) {
            ProtocolFailures.protocolError(ctx, "CHANNEL_END_BATCH before CHANNEL_OPEN was accepted");
            return;
        }
        inboundChannel.endBatch(f.requestId(), f.sequence(), f.batchId());
    }

    @Override
    public void onChannelFastConfirm(Frame.ChannelFastConfirm f) {
        if (inboundChannel == null) {
            ProtocolFailures.protocolError(ctx, "CHANNEL_FAST_CONFIRM before CHANNEL_OPEN was accepted");
            return;
        }
        inboundChannel.fastConfirm(f.requestId());
    }

    /** STATUS_REQUEST belongs to a replica's status session; the active queue manager has its admin command queue. */
    @Override
    public void onStatusRequest(Frame.StatusRequest f) {
        replies.error(f.requestId(), WharfException.illegalState("Queue manager " + context.config().name()
                + " is active: '" + f.command() + "' goes to its admin command queue (SYSTEM.ADMIN.COMMAND.QUEUE),"
                + " as wharf admin sends it; STATUS_REQUEST is for a replica's status session."), 0, 0);
    }

    private ChannelAcceptor.Peer channelPeer() {
        return new ChannelAcceptor.Peer() {
            @Override
            public Identity identity() {
                return identity;
            }

            @Override
            public String remoteAddress() {
                return String.valueOf(channel.remoteAddress());
            }

            @Override
            public boolean tls() {
                return TlsPeer.isTls(channel);
            }

            @Override
            public Optional<X500Principal> certificateSubject() {
                return TlsPeer.certificate(channel).map(X509Certificate::getSubjectX500Principal);
            }

            @Override
            public void put(ByteBuf message, MessageHeaders headers) {
                if (channelPuts == null) {
                    channelPuts = channelSession(false, message);
                }
                channelPuts.put(message, headers);
            }

            @Override
            public void putInBatch(ByteBuf message, MessageHeaders headers) {
                if (channelBatch == null) {
                    channelBatch = channelSession(true, message);
                }
                channelBatch.put(message, headers);
            }

            @Override
            public void commitBatch(String queue, Selector taking, Consumer<WharfException> done) {
                if (channelBatch == null) {
                    channelBatch = channelSession(true, null);
                }
                channelBatch.commit(queue, taking, done);
            }

            @Override
            public void rollbackBatch() {
                if (channelBatch != null && !released) {
                    channelBatch.rollback();
                }
            }

            @Override
            public void execute(Runnable task) {
                channel.eventLoop().execute(task);
            }

            @Override
            public void send(Frame.FromServer frame) {
                channel.writeAndFlush(frame, channel.voidPromise());
            }

            @Override
            public void close(String reason) {
                ProtocolFailures.closeWith(ctx, ErrorCode.CONNECTION_ENDED, reason);
            }
        };
    }

    /**
     * A session of this connection for a channel's in-process puts ({@link ChannelAcceptor.Peer#put},
     * {@link ChannelAcceptor.Peer#putInBatch}), with the queue manager's own authority (the plugin checks the
     * partner's); refused, releasing {@code message} (when there is one), once the connection has ended.
     */
    private InProcessPuts channelSession(boolean transacted, ByteBuf message) {
        if (released) {
            if (message != null) {
                message.release();
            }
            throw WharfException.illegalState("The channel's connection from " + channel.remoteAddress()
                    + " has ended: nothing more is put for it.");
        }
        return new InProcessPuts(channel, context.queueManager(), context.topicManager(),
                context.config().maxMessageLength(), context.config().producerWindowBytes(),
                context.config().fanOutWindowBytes(),
                new ConnectionAccess(Identity.SERVER, context.accessControl(), channel.remoteAddress()), transacted);
    }

    // ---- the end ----

    /**
     * Closes every session (unacknowledged deliveries go back to their queues, browsers end), then deletes the
     * connection's temporary destinations and frees its client ID.
     */
    private void releaseAll(boolean connectionLost) {
        if (!released) {
            releaseAll(connectionLost, false);
        }
    }

    /**
     * {@link #releaseAll(boolean)}, or, when a newer connection takes over its key, the same with its temporary
     * destinations handed over rather than deleted.
     */
    private TemporaryDestinations.Handover releaseAll(boolean connectionLost, boolean handOver) {
        released = true;
        if (inboundChannel != null) {
            inboundChannel.closed();
            inboundChannel = null;
        }
        if (channelPuts != null) {
            channelPuts.close();
            channelPuts = null;
        }
        if (channelBatch != null) {
            channelBatch.close(); // a commit under way ends as the journal has it, and answers the plugin
            channelBatch = null;
        }
        for (BrokerSession session : sessions.values()) {
            session.close(0, connectionLost);
        }
        sessions.clear();
        sessionOfConsumer.clear();
        for (Producer producer : producers.values()) {
            if (producer.queue() != null) {
                producer.queue().producerClosed();
            }
        }
        producers.clear();
        TemporaryDestinations.Handover handover = handOver ? temporaries.handOver() : TemporaryDestinations.Handover.NONE;
        temporaries.deleteAll();
        context.clientIds().release(clientId, this);
        context.connectionKeys().release(keyNamespace, this);
        context.openConnections().remove(id, traffic.bytesIn(), traffic.bytesOut());
        releaseQuota.run();
        return handover;
    }

    // ---- the management view (on the event loop, but for the first three) ----

    /** The event loop that owns this connection. Any thread. */
    EventLoop eventLoop() {
        return channel.eventLoop();
    }

    /** Completes when the connection has closed. Any thread. */
    ChannelFuture closeFuture() {
        return channel.closeFuture();
    }

    /** Whether the client is in this process (the in-VM listener): a plugin, a flow, the embedding application. */
    boolean inVm() {
        return channel instanceof LocalChannel;
    }

    /** The connection as an administrator sees it; null once it has ended. */
    ConnectionInfo info() {
        if (released) {
            return null;
        }
        int consumers = 0;
        int browsers = 0;
        for (BrokerSession session : sessions.values()) {
            consumers += session.consumerCount();
            browsers += session.browserCount();
        }
        String transport = inVm() ? "vm" : channel.pipeline().get(ServerChannelInitializer.SSL) != null ? "tls" : "tcp";
        return new ConnectionInfo(id, identity.anonymous() ? null : identity.user(),
                String.valueOf(channel.remoteAddress()), transport, clientId, clientName, connectedAt, sessions.size(),
                consumers, browsers, producers.size(), traffic.bytesIn(), traffic.bytesOut(),
                OutboundLimit.unsentBytes(channel), outbound != null && outbound.holding());
    }

    /**
     * An administrator ends the connection: the client is told why (ERROR CONNECTION_ENDED, request id 0: it does not
     * reconnect), then the
     * connection closes and releases everything as a dropped one does.
     */
    void end(String reason) {
        LOG.log(System.Logger.Level.INFO, "Ending connection " + id + " from " + channel.remoteAddress() + " ("
                + clientName + "): " + reason);
        ProtocolFailures.closeWith(ctx, ErrorCode.CONNECTION_ENDED, reason);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (!released) {
            LOG.log(System.Logger.Level.DEBUG, () -> "Connection from " + ctx.channel().remoteAddress() + " ("
                    + clientName + ") dropped; returning its unacknowledged messages");
        }
        releaseAll(true);
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ProtocolFailures.handle(ctx, cause, true, context.config().maxMessageLength());
    }
}
