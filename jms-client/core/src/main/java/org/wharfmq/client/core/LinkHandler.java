package org.wharfmq.client.core;

import org.wharfmq.client.core.transport.BrokerAddress;
import org.wharfmq.client.core.transport.ClientTls;
import org.wharfmq.client.core.transport.FrameLink;
import org.wharfmq.client.core.transport.FrameListener;
import org.wharfmq.client.core.transport.NetworkLoop;
import org.wharfmq.client.core.transport.Transport;
import org.wharfmq.protocol.Heartbeat;
import org.wharfmq.protocol.ProtocolVersion;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.frame.FrameTooLongException;
import org.wharfmq.protocol.frame.ServerFrameHandler;
import org.wharfmq.protocol.message.MessageLengthLimit;

import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.function.IntSupplier;

/**
 * Listens to one link of a connection: hands the handshake's frames to its {@link ClientHandshake}, then each server
 * frame to its own method ({@link ServerFrameHandler}: a new kind of server frame does not compile until it is handled
 * here): deliveries go to the connection's {@link ConsumerRegistry}, answers complete its {@link PendingRequests}, the
 * rest go to its {@link LinkEvents}; a frame only a client sends is a protocol violation. It tells the connection when this link ends, naming it
 * ({@link ConnectedLink}), so that the end of a link the connection has already replaced is not taken for the end of
 * the current one. Runs on the link's reading thread, so it only routes: messages go into consumer buffers and answers
 * complete futures; application code never runs here.
 */
public final class LinkHandler implements FrameListener, ServerFrameHandler {
    private static final System.Logger LOG = System.getLogger(LinkHandler.class.getName());

    private final ClientHandshake handshake;
    private final CompletableFuture<Frame.HelloOk> hello;
    private final PendingRequests requests;
    /** A final class, called directly: DELIVER, the frame of the receive path, goes through no interface to it. */
    private final ConsumerRegistry consumers;
    private final LinkEvents events;
    /** The longest message this client receives ({@code maxReceiveLength}), whatever the server declares. */
    private final int maxReceiveLength;
    /** The WARNINGs of answers for what no longer waits: the first, then at most one line a minute. */
    private final ThrottledLog noLongerWaits = new ThrottledLog(line -> LOG.log(System.Logger.Level.WARNING, line),
            ClientConfiguration.UNEXPECTED_ANSWER_LOG_MILLIS, System::nanoTime);
    private volatile boolean established;
    /** The link once the handshake is done and the connection has it; null before. */
    private volatile ConnectedLink connected;

    private LinkHandler(ClientHandshake handshake, PendingRequests requests, ConsumerRegistry consumers,
                        LinkEvents events, int maxReceiveLength) {
        this.handshake = handshake;
        this.maxReceiveLength = maxReceiveLength;
        this.hello = handshake.done();
        this.requests = requests;
        this.consumers = consumers;
        this.events = events;
    }

    /**
     * Opens one link to {@code address}: connects, completes the handshake with the given credentials and starts the
     * heartbeat. It is not yet the connection's current link; its frames go to {@code requests}, {@code consumers} and
     * {@code events}.
     *
     * @param tls                  the TLS settings for an {@code ssl://} address
     * @param user                 the user to log in as, null or empty for none
     * @param password             the password, null for none
     * @param clientName           the name the server shows for the connection
     * @param heartbeatMillis      the heartbeat interval the client asks for (0: none)
     * @param helloFlags           the HELLO's flags (0 for an application)
     * @param connectTimeoutMillis how long the connect and the handshake may take
     * @param maxReceiveLength     the longest message the client receives over the network: frames longer than the
     *                             lower of this and the server's maxMessageLength, plus a frame's fields, end the link
     *                             unread. An in-VM link takes what its server declares: that server is this
     *                             process's own, configured by whoever runs it
     * @param generation           gives the link its generation once it is handshaken
     * @throws ClientException why the link could not be opened (AUTHENTICATION_FAILED and the like when the server
     *                         refused; no code when it could not be reached or did not complete the handshake)
     */
    public static ConnectedLink open(BrokerAddress address, ClientTls tls, String user, String password, String clientName,
                                     int heartbeatMillis, int helloFlags, int connectTimeoutMillis,
                                     int maxReceiveLength, IntSupplier generation,
                                     PendingRequests requests, ConsumerRegistry consumers, LinkEvents events)
            throws ClientException {
        return open(address, tls, user, password, clientName, heartbeatMillis, helloFlags, connectTimeoutMillis,
                maxReceiveLength, generation, requests, consumers, events, null);
    }

    /**
     * Opens one link as {@link #open(BrokerAddress, ClientTls, String, String, String, int, int, int, int,
     * IntSupplier, PendingRequests, ConsumerRegistry, LinkEvents)} does, a {@code tcp://} or {@code ssl://} one on
     * {@code loop} (a link whose writes never block: {@link NetworkLoop}) when it is not null. The login's SCRAM proof
     * is computed by the calling thread, never by the loop ({@link ClientHandshake#await}). It asks for this build's
     * protocol version, {@link ProtocolVersion#CURRENT}; a server that answers UNSUPPORTED_VERSION (a server before
     * it) is connected to again with {@link ProtocolVersion#OLDEST} (docs/protocol.md, "Versioning").
     */
    public static ConnectedLink open(BrokerAddress address, ClientTls tls, String user, String password, String clientName,
                                     int heartbeatMillis, int helloFlags, int connectTimeoutMillis,
                                     int maxReceiveLength, IntSupplier generation, PendingRequests requests,
                                     ConsumerRegistry consumers, LinkEvents events, NetworkLoop loop)
            throws ClientException {
        try {
            return open(address, tls, user, password, clientName, heartbeatMillis, helloFlags, connectTimeoutMillis,
                    maxReceiveLength, generation, requests, consumers, events, loop, ProtocolVersion.CURRENT);
        } catch (ClientException e) {
            if (e.code() != ErrorCode.UNSUPPORTED_VERSION) {
                throw e;
            }
            LOG.log(System.Logger.Level.DEBUG, () -> "Wharf at " + address + " does not speak protocol version "
                    + ProtocolVersion.CURRENT + " (" + e.getMessage() + "); connecting with version "
                    + ProtocolVersion.OLDEST);
            return open(address, tls, user, password, clientName, heartbeatMillis, helloFlags, connectTimeoutMillis,
                    maxReceiveLength, generation, requests, consumers, events, loop, ProtocolVersion.OLDEST);
        }
    }

    /** Opens one link, asking for protocol {@code version}. */
    static ConnectedLink open(BrokerAddress address, ClientTls tls, String user, String password, String clientName,
                              int heartbeatMillis, int helloFlags, int connectTimeoutMillis,
                              int maxReceiveLength, IntSupplier generation, PendingRequests requests,
                              ConsumerRegistry consumers, LinkEvents events, NetworkLoop loop, short version)
            throws ClientException {
        // the server in this JVM: its own maxMessageLength bounds what it sends
        int receiveLimit = address.isInVm() ? Integer.MAX_VALUE : maxReceiveLength;
        // PLAIN (a password in clear) only over TLS
        ClientHandshake handshake = new ClientHandshake(user, password, address.isTls(),
                address.isTls() && tls.keyStore() != null, address.toString(), receiveLimit);
        LinkHandler handler = new LinkHandler(handshake, requests, consumers, events, receiveLimit);
        FrameLink link = Transport.connect(address, tls, handler, connectTimeoutMillis, loop);
        handshake.link(link);
        Frame.HelloOk ok;
        try {
            link.write(new Frame.Hello(version, clientName, heartbeatMillis, helloFlags));
            ok = handshake.await(connectTimeoutMillis); // SCRAM's proof is computed here, not on the reading thread
        } catch (ExecutionException e) {
            link.close(connectTimeoutMillis);
            if (e.getCause() instanceof ClientException refused) {
                throw refused;
            }
            FrameTooLongException tooLong = tooLong(e.getCause());
            if (tooLong != null) {
                throw new ClientException("Wharf at " + address + " sent a frame of " + tooLong.length() + " bytes in the"
                        + " handshake, more than the " + tooLong.limit() + " a client reads before the login is done"
                        + " (ClientConfiguration.HANDSHAKE_FRAME_BYTES); the client read no further. A Wharf server's"
                        + " handshake frames are a few hundred bytes: is " + address + " a Wharf server, or does"
                        + " something between rewrite the stream (use ssl://)?", tooLong);
            }
            if (address.isTls() && e.getCause() instanceof IOException lost) {
                // a TLS 1.3 server checks the client's certificate after the client's handshake has finished
                throw Transport.tlsFailure(address, tls, lost);
            }
            if (e.getCause() instanceof ClosedChannelException) {
                throw new ClientException("Wharf at " + address + " closed the connection during the handshake without"
                        + " saying why. On a busy machine its handshake deadline (the server's handshakeTimeoutMillis, 10 s"
                        + " by default) may have passed before this client's login came: connect again, or raise"
                        + " handshakeTimeoutMillis in the server's configuration; the server's log says why it closed"
                        + " the connection.", e.getCause());
            }
            throw new ClientException("Wharf at " + address + " did not complete the handshake: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            link.close(connectTimeoutMillis);
            throw new ClientException("Wharf at " + address + " did not complete the handshake within "
                    + connectTimeoutMillis + " ms (connectTimeout). Is it a Wharf server?", null);
        } catch (RuntimeException e) {
            // a step of the handshake on this thread failed on what the server sent: the link must not stay open
            link.close(connectTimeoutMillis);
            throw new ClientException("Wharf at " + address + " did not complete the handshake: " + e, e);
        } catch (InterruptedException e) {
            link.close(connectTimeoutMillis);
            Thread.currentThread().interrupt();
            throw new ClientException("Interrupted while connecting to Wharf at " + address, null);
        }
        ConnectedLink connected = ConnectedLink.of(generation.getAsInt(), link, address, ok, heartbeatMillis, version);
        handler.connected = connected;
        if (!link.isOpen()) { // ended before the handler could report it as this link's end
            link.close(0);
            throw new ClientException("Wharf at " + address + " closed the connection right after the handshake", null);
        }
        if (connected.heartbeatMillis() > 0) {
            link.startHeartbeat(connected.heartbeatMillis());
        }
        if (ok.sharedDeliveries() && !ok.statusSession() && link.keptDeliveries() > 0) {
            // before any consumer: its deliveries may then come as DELIVER_KEEP and DELIVER_SAME; rides the next write
            link.writeSoon(new Frame.ShareDeliveries(link.keptDeliveries()));
        }
        return connected;
    }

    @Override
    public void onFrame(Frame frame) {
        if (!established) {
            handshake(frame);
        } else if (frame instanceof Frame.Deliver d) {
            // the frame of the receive path, called directly: one type check, no call the JIT cannot inline
            consumers.deliver(d);
        } else if (frame instanceof Frame.FromServer fromServer) {
            fromServer.handleWith(this);
        } else {
            events.linkLost(connected, "the server sent " + frame.type() + ", a frame only a client sends", null, false);
        }
    }

    /** The connecting thread closes the link when the handshake fails. */
    private void handshake(Frame frame) {
        if (frame instanceof Frame.FromServer fromServer) {
            fromServer.handleWith(handshake);
        } else {
            handshake.unexpected(frame);
        }
        established = hello.isDone() && !hello.isCompletedExceptionally();
    }

    @Override
    public void onDeliver(Frame.Deliver frame) {
        consumers.deliver(frame);
    }

    @Override
    public void onOk(Frame.Ok frame) {
        requests.answer(frame.requestId(), null);
    }

    @Override
    public void onXaResult(Frame.XaResult frame) {
        if (!requests.answer(frame)) {
            noLongerWaits.warn(() -> "Wharf at " + server() + " answered XA request " + frame.requestId()
                    + ", which no longer waits");
        }
    }

    @Override
    public void onStatusReply(Frame.StatusReply frame) {
        if (!requests.answer(frame)) {
            noLongerWaits.warn(() -> "Wharf at " + server() + " answered status request "
                    + frame.requestId() + ", which no longer waits");
        }
    }

    @Override
    public void onChannelStatus(Frame.ChannelStatus frame) {
        if (!requests.answer(frame)) {
            noLongerWaits.warn(() -> "Wharf at " + server() + " answered channel request "
                    + frame.requestId() + ", which no longer waits");
        }
    }

    @Override
    public void onError(Frame.Error error) {
        ConnectedLink on = connected;
        if (error.requestId() != 0) {
            if (!requests.answer(error.requestId(), error)) {
                noLongerWaits.warn(() -> "Wharf at " + on.address() + " reported " + error.code() + " for request "
                        + error.requestId() + ", which no longer waits: " + error.message());
            }
        } else if (error.code() == ErrorCode.PROTOCOL_ERROR) {
            // a bug on one side or the other: connecting again would only meet it again
            events.linkLost(on, "the server reported a protocol error: " + error.message(), null, false);
        } else if (error.code() == ErrorCode.CONNECTION_ENDED) {
            // an administrator ended it: coming back would undo what they did
            events.linkLost(on, error.message(), null, false);
        } else {
            events.onAsyncError(on, error);
        }
    }

    @Override
    public void onProducerCredit(Frame.ProducerCredit frame) {
        events.onProducerCredit(connected, frame);
    }

    @Override
    public void onPullDone(Frame.PullDone frame) {
        consumers.pullDone(frame);
    }

    @Override
    public void onConsumerFailed(Frame.ConsumerFailed frame) {
        if (!consumers.failed(frame)) {
            noLongerWaits.warn(() -> "Wharf at " + server() + " refused consumer " + frame.consumerId()
                    + ", which is closed already: " + frame.message());
        }
    }

    @Override
    public void onPing(Frame.Ping frame) {
        // the server is alive: reading it was all a ping is for
    }

    @Override
    public void onAuthMechanisms(Frame.AuthMechanisms frame) {
        afterHandshake(frame);
    }

    @Override
    public void onAuthChallenge(Frame.AuthChallenge frame) {
        afterHandshake(frame);
    }

    @Override
    public void onHelloOk(Frame.HelloOk frame) {
        afterHandshake(frame);
    }

    private void afterHandshake(Frame frame) {
        events.linkLost(connected, "the server sent " + frame.type() + " after the handshake", null, false);
    }

    @Override
    public void onSilence() {
        ConnectedLink link = connected;
        if (link != null) {
            events.linkLost(link, "nothing received for " + Heartbeat.deadAfterMillis(link.heartbeatMillis())
                    + " ms (" + Heartbeat.MISSED_BEFORE_DEAD + " heartbeat intervals)", null, true);
        }
    }

    @Override
    public void onFailure(Throwable cause) {
        ConnectedLink link = connected;
        FrameTooLongException tooLong = tooLong(cause);
        if (link == null) {
            hello.completeExceptionally(cause);
        } else if (tooLong != null) {
            // connecting again would meet it again, a message held for ever
            events.linkLost(link, tooLong(tooLong, link), tooLong, false);
        } else {
            events.linkLost(link, String.valueOf(cause.getMessage() == null ? cause : cause.getMessage()), cause, true);
        }
    }

    /** The server's address, for a log line ("?" in the instant before the connecting thread has the link). */
    private String server() {
        ConnectedLink link = connected;
        return link == null ? "?" : String.valueOf(link.address());
    }

    /** Why a frame past the link's limit ended it: whose limit it broke, and the fix. */
    private String tooLong(FrameTooLongException tooLong, ConnectedLink link) {
        String sent = "the server sent a frame of " + tooLong.length() + " bytes, more than the " + tooLong.limit();
        String fields = " and " + MessageLengthLimit.FRAME_OVERHEAD_BYTES + " for a frame's fields); the client read"
                + " none of it and does not reconnect. ";
        if (maxReceiveLength < link.maxMessageLength()) {
            return sent + " this client reads (its maxReceiveLength of " + maxReceiveLength + " bytes, lower than the"
                    + " server's maxMessageLength of " + link.maxMessageLength() + "," + fields + "To receive longer"
                    + " messages from this server, raise the broker URL's option maxReceiveLength (up to the server's"
                    + " maxMessageLength); a server that sends such frames unasked may be hostile (use ssl://)";
        }
        return sent + " it declared it may send (its maxMessageLength of " + link.maxMessageLength() + " bytes in"
                + " HELLO_OK," + fields + "A server that breaks its own limit, or a stream rewritten in transit (use"
                + " ssl://); if the queue manager's maxMessageLength was lowered while longer messages were stored,"
                + " raise it back to deliver them";
    }

    /** The {@link FrameTooLongException} that {@code cause} is or wraps (a Netty decoder's), else null. */
    private static FrameTooLongException tooLong(Throwable cause) {
        for (Throwable t = cause; t != null; t = t.getCause()) {
            if (t instanceof FrameTooLongException tooLong) {
                return tooLong;
            }
        }
        return null;
    }

    @Override
    public void onClosed() {
        ConnectedLink link = connected;
        if (link == null) {
            hello.completeExceptionally(new ClosedChannelException());
        } else {
            events.linkLost(link, "the connection was closed by the server or the network", null, true);
        }
    }
}
