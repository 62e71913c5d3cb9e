package org.wharfmq.server.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.collection.IntObjectHashMap;
import org.wharfmq.protocol.Heartbeat;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.frame.MalformedFrameException;
import org.wharfmq.protocol.selector.Selector;
import org.wharfmq.protocol.selector.SelectorParseException;
import org.wharfmq.server.WharfException;
import org.wharfmq.server.queue.LocalQueue;
import org.wharfmq.server.session.Replies;
import org.wharfmq.server.session.ServerBrowser;
import org.wharfmq.server.session.ServerConsumer;
import org.wharfmq.server.session.ServerSession;
import org.wharfmq.server.session.TemporaryDestinations;
import org.wharfmq.server.topic.Subscription;
import org.wharfmq.server.topic.TopicManager;

import java.util.Iterator;

/**
 * One client connection after its handshake: dispatches each frame, in arrival order, to the session, consumer or
 * queue it concerns, and answers requests with OK or ERROR.
 *
 * <p>Everything here runs on the connection's event loop, which owns the connection's maps of sessions and
 * consumers (ids are chosen by the client and unique within the connection). There is no hand-off to worker
 * threads: a SEND is validated, stored and put on its queue (and, when a consumer is waiting, delivered) right here.
 *
 * <p>Heartbeats: PING goes out when nothing was written for one agreed interval; a connection from which nothing
 * was read for three intervals is closed. A connection that ends, however it ends, releases everything: its
 * sessions close and their unacknowledged deliveries go back to their queues.
 */
final class ConnectionHandler extends ChannelInboundHandlerAdapter {

    private static final System.Logger LOG = System.getLogger(ConnectionHandler.class.getName());

    private final ServerContext context;
    private final String clientName;
    private final int heartbeatMillis;
    private final IntObjectHashMap<ServerSession> sessions = new IntObjectHashMap<>();
    private final IntObjectHashMap<ServerConsumer> consumers = new IntObjectHashMap<>();
    /** Open QueueBrowser enumerations; their ids share the consumer id space. */
    private final IntObjectHashMap<ServerBrowser> browsers = new IntObjectHashMap<>();
    private final TemporaryDestinations temporaries;
    private Channel channel;
    private Replies replies;
    /** After CLOSE, or once the channel is inactive: nothing more is processed. */
    private boolean released;
    /** The JMS client ID (SET_CLIENT_ID), held in the topic manager's registry until the connection ends. */
    private String clientId;

    ConnectionHandler(ServerContext context, String clientName, int heartbeatMillis) {
        this.context = context;
        this.clientName = clientName;
        this.heartbeatMillis = heartbeatMillis;
        this.temporaries = new TemporaryDestinations(context.queueManager(), context.topicManager());
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        channel = ctx.channel();
        replies = new Replies(channel);
        LOG.log(System.Logger.Level.DEBUG, () -> "Client '" + clientName + "' connected from " + ctx.channel().remoteAddress());
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (released || ProtocolFailures.isClosing(ctx)) {
            ProtocolFailures.discard(msg);
            return;
        }
        try {
            dispatch(ctx, (Frame) msg);
        } catch (MalformedFrameException e) {
            ProtocolFailures.protocolError(ctx, e.getMessage());
        }
    }

    private void dispatch(ChannelHandlerContext ctx, Frame frame) {
        if (frame instanceof Frame.Send f) {
            send(f);
        } else if (frame instanceof Frame.Ack f) {
            try {
                session(f.sessionId()).acknowledge(f.requestId(), f.consumed());
            } catch (WharfException e) {
                replies.error(f.requestId(), e, f.sessionId(), 0);
            }
        } else if (frame instanceof Frame.Credit f) {
            ServerConsumer consumer = consumers.get(f.consumerId());
            if (consumer != null) {
                consumer.session().addCredit(consumer, f.credit());
            } else {
                ServerBrowser browser = browsers.get(f.consumerId());
                if (browser != null) {
                    browser.addCredit(f.credit());
                }
            }
        } else if (frame instanceof Frame.Reject f) {
            ServerConsumer consumer = consumers.get(f.consumerId());
            if (consumer != null) { // else closed since: its deliveries went back to the queue
                consumer.session().reject(consumer, f.deliveryId(), "client '" + clientName + "' ("
                        + channel.remoteAddress() + ", consumer " + f.consumerId() + ") cannot decode it: " + f.reason());
            }
        } else if (frame instanceof Frame.Pull f) {
            ServerConsumer consumer = consumers.get(f.consumerId());
            if (consumer != null) {
                consumer.session().pull(consumer);
            } else {
                ServerBrowser browser = browsers.get(f.consumerId());
                if (browser != null) {
                    browser.pull();
                }
            }
            ctx.writeAndFlush(new Frame.PullDone(f.consumerId(), f.pullId()), ctx.voidPromise());
        } else if (frame instanceof Frame.CreateConsumer f) {
            try {
                createConsumer(f);
            } catch (WharfException e) {
                if (f.requestId() == 0) {
                    // created without waiting: the client raises it from that consumer's next receive
                    channel.writeAndFlush(new Frame.ConsumerFailed(f.consumerId(), e.code(), e.getMessage()), channel.voidPromise());
                } else {
                    replies.error(f.requestId(), e, f.sessionId(), 0);
                }
            }
        } else if (frame instanceof Frame.CloseConsumer f) {
            closeConsumer(f);
        } else if (frame instanceof Frame.Commit f) {
            try {
                session(f.sessionId()).commit(f.requestId(), f.consumed());
            } catch (WharfException e) {
                replies.error(f.requestId(), e, f.sessionId(), 0);
            }
        } else if (frame instanceof Frame.Rollback f) {
            try {
                session(f.sessionId()).rollback(f.requestId(), f.consumed());
            } catch (WharfException e) {
                replies.error(f.requestId(), e, f.sessionId(), 0);
            }
        } else if (frame instanceof Frame.Ping) {
            // its arrival has reset the read-idle timer; nothing to answer
        } else if (frame instanceof Frame.CreateSession f) {
            createSession(f);
        } else if (frame instanceof Frame.CloseSession f) {
            closeSession(f);
        } else if (frame instanceof Frame.CreateProducer f) {
            try {
                session(f.sessionId());
                if (f.destination() != null && f.destination().kind().isQueue()) {
                    context.queueManager().queue(f.destination());
                } else if (f.destination() != null) {
                    context.topicManager().checkPublishable(f.destination());
                }
                replies.ok(f.requestId());
            } catch (WharfException e) {
                replies.error(f.requestId(), e, f.sessionId(), f.producerId());
            }
        } else if (frame instanceof Frame.CloseProducer f) {
            // producers hold no server state: a SEND names its destination in the message
            replies.ok(f.requestId());
        } else if (frame instanceof Frame.CreateTemporary f) {
            answer(f.requestId(), () -> temporaries.create(f.destination()));
        } else if (frame instanceof Frame.DeleteTemporary f) {
            answer(f.requestId(), () -> temporaries.delete(f.destination()));
        } else if (frame instanceof Frame.SetClientId f) {
            try {
                setClientId(f.clientId());
                replies.ok(f.requestId());
            } catch (WharfException e) {
                replies.error(f.requestId(), e, 0, 0);
            }
        } else if (frame instanceof Frame.Unsubscribe f) {
            try {
                context.topicManager().unsubscribe(clientId, f.subscriptionName());
                replies.ok(f.requestId());
            } catch (WharfException e) {
                replies.error(f.requestId(), e, 0, 0);
            }
        } else if (frame instanceof Frame.Close f) {
            releaseAll(false);
            replies.ok(f.requestId());
        } else if (frame instanceof Frame.Hello) {
            ProtocolFailures.protocolError(ctx, "HELLO received twice; the handshake happens once per connection");
        } else {
            ProtocolFailures.discard(frame);
            ProtocolFailures.protocolError(ctx, frame.type() + " is sent by the server, never by a client");
        }
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

    private void send(Frame.Send f) {
        ServerSession session = sessions.get(f.sessionId());
        if (session == null) {
            f.message().release();
            replies.error(f.requestId(), noSession(f.sessionId()), f.sessionId(), f.producerId());
            return;
        }
        session.send(f.requestId(), f.producerId(), f.message());
    }

    private void createSession(Frame.CreateSession f) {
        if (sessions.containsKey(f.sessionId())) {
            replies.error(f.requestId(), WharfException.illegalState("Session id " + f.sessionId()
                    + " is already in use on this connection."), f.sessionId(), 0);
            return;
        }
        sessions.put(f.sessionId(), new ServerSession(f.sessionId(), f.transacted(), channel, replies,
                context.queueManager(), context.topicManager(), clientId, context.config().maxMessageLength()));
        replies.ok(f.requestId());
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
        context.topicManager().claimClientId(id, this);
        clientId = id;
    }

    private void closeSession(Frame.CloseSession f) {
        ServerSession session = sessions.remove(f.sessionId());
        if (session == null) {
            replies.ok(f.requestId()); // closing twice is harmless
            return;
        }
        for (Iterator<ServerConsumer> it = consumers.values().iterator(); it.hasNext(); ) {
            if (it.next().session() == session) {
                it.remove();
            }
        }
        browsers.values().removeIf(b -> b.sessionId() == f.sessionId() && b.close());
        session.close(f.requestId(), true);
    }

    private void createConsumer(Frame.CreateConsumer f) {
        ServerSession session = session(f.sessionId());
        if (consumers.containsKey(f.consumerId()) || browsers.containsKey(f.consumerId())) {
            throw WharfException.illegalState("Consumer id " + f.consumerId() + " is already in use on this connection.");
        }
        if (f.destination() == null) {
            throw WharfException.illegalState("No destination given: a consumer must name a queue or a topic.");
        }
        temporaries.checkConsumable(f.destination());
        Selector selector;
        try {
            selector = Selector.parse(f.selector());
        } catch (SelectorParseException e) {
            throw new WharfException(ErrorCode.INVALID_SELECTOR, "Invalid message selector: " + e.getMessage());
        }
        ServerConsumer consumer;
        if (f.destination().kind().isQueue()) {
            LocalQueue queue = context.queueManager().attach(f.destination()); // detached when it closes
            if ((f.flags() & Frame.CONSUMER_BROWSER) != 0) {
                ServerBrowser browser = new ServerBrowser(f.consumerId(), session.id(), queue, selector, channel);
                browsers.put(f.consumerId(), browser);
                replies.ok(f.requestId()); // answered before the first DELIVER, as for consumers
                browser.addCredit(f.credit());
                return;
            }
            consumer = session.createConsumer(f.consumerId(), queue, selector, f.credit());
        } else {
            consumer = subscribe(session, f, selector);
        }
        consumers.put(f.consumerId(), consumer);
        replies.ok(f.requestId()); // answered before the first DELIVER is written
        session.startConsumer(consumer);
    }

    /**
     * A consumer on a topic consumes from its subscription's queue; the subscription applies the selector when a
     * message is published, so the consumer itself takes everything on that queue.
     */
    private ServerConsumer subscribe(ServerSession session, Frame.CreateConsumer f, Selector selector) {
        if ((f.flags() & Frame.CONSUMER_BROWSER) != 0) {
            throw WharfException.illegalState("Topic '" + f.destination().name() + "' cannot be browsed; browsers are for queues.");
        }
        TopicManager topics = context.topicManager();
        Subscription subscription = topics.attach(f.destination(), f.selector() == null || f.selector().isBlank()
                        ? null : f.selector(), selector, (f.flags() & Frame.CONSUMER_NO_LOCAL) != 0,
                (f.flags() & Frame.CONSUMER_DURABLE) != 0, (f.flags() & Frame.CONSUMER_SHARED) != 0,
                f.subscriptionName(), clientId, channel);
        subscription.queue().attach(); // as every consumer's queue; a subscription's is never deleted as unused
        ServerConsumer consumer = session.createConsumer(f.consumerId(), subscription.queue(), Selector.ALL_MATCH,
                f.credit());
        consumer.onClose(() -> topics.detach(subscription));
        return consumer;
    }

    private void closeConsumer(Frame.CloseConsumer f) {
        ServerBrowser browser = browsers.remove(f.consumerId());
        if (browser != null) {
            browser.close();
            replies.ok(f.requestId()); // a browser holds no message: its DELIVERs were copies
            return;
        }
        ServerConsumer consumer = consumers.get(f.consumerId());
        if (consumer == null || consumer.session().id() != f.sessionId()) {
            replies.ok(f.requestId()); // already closed, with its session or before
            return;
        }
        consumers.remove(f.consumerId());
        consumer.session().closeConsumer(consumer, f.lastConsumedDeliveryId());
        replies.ok(f.requestId());
    }

    private ServerSession session(int sessionId) {
        ServerSession session = sessions.get(sessionId);
        if (session == null) {
            throw noSession(sessionId);
        }
        return session;
    }

    private static WharfException noSession(int sessionId) {
        return WharfException.illegalState("Session " + sessionId + " is not open on this connection.");
    }

    /**
     * Closes every session (unacknowledged deliveries go back to their queues), then deletes the connection's
     * temporary destinations.
     */
    private void releaseAll(boolean connectionLost) {
        if (released) {
            return;
        }
        released = true;
        for (ServerSession session : sessions.values()) {
            session.close(0, connectionLost);
        }
        sessions.clear();
        consumers.clear();
        browsers.values().forEach(ServerBrowser::close);
        browsers.clear();
        temporaries.deleteAll();
        context.topicManager().releaseClientId(clientId, this);
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
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof IdleStateEvent idle) {
            if (idle.state() == IdleState.WRITER_IDLE) {
                ctx.writeAndFlush(Frame.Ping.INSTANCE, ctx.voidPromise());
            } else if (idle.state() == IdleState.READER_IDLE) {
                LOG.log(System.Logger.Level.WARNING, "Closing connection from " + ctx.channel().remoteAddress() + " ("
                        + clientName + "): nothing received for " + Heartbeat.deadAfterMillis(heartbeatMillis)
                        + " ms (" + Heartbeat.MISSED_BEFORE_DEAD + " heartbeat intervals)");
                ctx.close();
            }
        } else {
            ctx.fireUserEventTriggered(evt);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ProtocolFailures.handle(ctx, cause, true, context.config().maxMessageLength());
    }
}
