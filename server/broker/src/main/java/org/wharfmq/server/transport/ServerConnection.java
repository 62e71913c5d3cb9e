package org.wharfmq.server.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.collection.IntObjectHashMap;
import org.wharfmq.protocol.frame.ClientFrameHandler;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.frame.MalformedFrameException;
import org.wharfmq.server.WharfException;
import org.wharfmq.server.security.ConnectionAccess;
import org.wharfmq.server.security.Identity;
import org.wharfmq.server.session.BrokerSession;
import org.wharfmq.server.session.Replies;
import org.wharfmq.server.session.TemporaryDestinations;

/**
 * The server's end of one client connection, after its handshake: handles each frame the client sends
 * ({@link ClientFrameHandler}), in arrival order, and answers requests with OK or ERROR. It owns what belongs to the
 * connection as a whole: its sessions, its client ID and its temporary destinations. Consumers and browsers belong
 * to their session; the connection only remembers which session each consumer id is in, because CREDIT, PULL and
 * REJECT name the consumer alone.
 *
 * <p>Everything here runs on the connection's event loop, which owns these maps (ids are chosen by the client and
 * unique within the connection). There is no hand-off to worker threads: a SEND is validated, stored and put on its
 * queue (and, when a consumer is waiting, delivered) right here.
 *
 * <p>A connection that ends, however it ends (CLOSE, a dropped socket, or its {@link HeartbeatHandler} finding it silent),
 * releases everything: its sessions close and their unacknowledged deliveries go back to their queues.
 */
final class ServerConnection extends ChannelInboundHandlerAdapter implements ClientFrameHandler {

    private static final System.Logger LOG = System.getLogger(ServerConnection.class.getName());

    private final ServerContext context;
    private final String clientName;
    /** Who the handshake found the client to be; fixed for the connection's life. */
    private final Identity identity;
    /** What the client may do; made once the channel (its peer address) is known. */
    private ConnectionAccess access;
    private final IntObjectHashMap<BrokerSession> sessions = new IntObjectHashMap<>();
    /** The session each open consumer or browser id belongs to. */
    private final IntObjectHashMap<BrokerSession> sessionOfConsumer = new IntObjectHashMap<>();
    private final TemporaryDestinations temporaries;
    private ChannelHandlerContext ctx;
    private Channel channel;
    private Replies replies;
    /** After CLOSE, or once the channel is inactive: nothing more is processed. */
    private boolean released;
    /** The JMS client ID (SET_CLIENT_ID), held in the server's {@link ClientIds} until the connection ends. */
    private String clientId;

    ServerConnection(ServerContext context, String clientName, Identity identity) {
        this.context = context;
        this.clientName = clientName;
        this.identity = identity;
        this.temporaries = new TemporaryDestinations(context.queueManager(), context.topicManager());
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        channel = ctx.channel();
        replies = new Replies(channel);
        access = new ConnectionAccess(identity, context.accessControl(), channel.remoteAddress());
        LOG.log(System.Logger.Level.DEBUG, () -> "Client '" + clientName + "' connected from " + ctx.channel().remoteAddress());
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
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
    public void onPing(Frame.Ping f) {
        // its arrival has reset the HeartbeatHandler's read timer; nothing to answer
    }

    @Override
    public void onClose(Frame.Close f) {
        releaseAll(false);
        replies.ok(f.requestId());
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
            context.topicManager().checkClientId(id, identity);
        }
        context.clientIds().claim(id, this);
        clientId = id;
    }

    @Override
    public void onUnsubscribe(Frame.Unsubscribe f) {
        answer(f.requestId(), () -> context.topicManager().unsubscribe(clientId, f.subscriptionName(), identity));
    }

    @Override
    public void onCreateTemporary(Frame.CreateTemporary f) {
        answer(f.requestId(), () -> temporaries.create(f.destination()));
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
        if (sessions.containsKey(f.sessionId())) {
            replies.error(f.requestId(), WharfException.illegalState("Session id " + f.sessionId()
                    + " is already in use on this connection."), f.sessionId(), 0);
            return;
        }
        BrokerSession session = new BrokerSession(f.sessionId(), f.transacted(), channel, replies,
                context.queueManager(), context.topicManager(), clientId, context.config().maxMessageLength(),
                context.config().producerWindowBytes(), access);
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
            if (f.destination() != null && f.destination().kind().isQueue()) {
                context.queueManager().queue(f.destination(), access.createCheck());
            } else if (f.destination() != null) {
                context.topicManager().checkPublishable(f.destination());
            }
            replies.ok(f.requestId());
        } catch (WharfException e) {
            replies.error(f.requestId(), e, f.sessionId(), f.producerId());
        }
    }

    @Override
    public void onCloseProducer(Frame.CloseProducer f) {
        // producers hold no server state: a SEND names its destination in the message
        replies.ok(f.requestId());
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
            session.openConsumer(f);
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

    @Override
    public void onCredit(Frame.Credit f) {
        BrokerSession session = sessionOfConsumer.get(f.consumerId());
        if (session != null) {
            session.addCredit(f.consumerId(), f.credit());
        }
    }

    @Override
    public void onPull(Frame.Pull f) {
        BrokerSession session = sessionOfConsumer.get(f.consumerId());
        if (session != null) {
            session.pull(f.consumerId());
        }
        ctx.writeAndFlush(new Frame.PullDone(f.consumerId(), f.pullId()), ctx.voidPromise());
    }

    @Override
    public void onReject(Frame.Reject f) {
        BrokerSession session = sessionOfConsumer.get(f.consumerId());
        if (session != null) { // else closed since: its deliveries went back to the queue
            session.reject(f.consumerId(), f.deliveryId(), "client '" + clientName + "' (" + channel.remoteAddress()
                    + ", consumer " + f.consumerId() + ") cannot decode it: " + f.reason());
        }
    }

    // ---- the end ----

    /**
     * Closes every session (unacknowledged deliveries go back to their queues, browsers end), then deletes the
     * connection's temporary destinations and frees its client ID.
     */
    private void releaseAll(boolean connectionLost) {
        if (released) {
            return;
        }
        released = true;
        for (BrokerSession session : sessions.values()) {
            session.close(0, connectionLost);
        }
        sessions.clear();
        sessionOfConsumer.clear();
        temporaries.deleteAll();
        context.clientIds().release(clientId, this);
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
