package org.wharfmq.jms;

import org.wharfmq.client.core.ConnectedLink;

import org.wharfmq.client.core.ClientHandshake;

import org.wharfmq.client.core.transport.FrameListener;
import org.wharfmq.protocol.Heartbeat;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.frame.ServerFrameHandler;

import java.nio.channels.ClosedChannelException;
import java.util.concurrent.CompletableFuture;

/**
 * Listens to one link of a connection: hands the handshake's frames to its {@link ClientHandshake}, then hands every
 * frame to its connection, and tells the connection when this link ends, naming it ({@link ConnectedLink}), so that
 * the end of a link the connection has already replaced is not taken for the end of the current one. Runs on the
 * link's reading thread, so it only routes: messages go into consumer buffers and answers complete futures;
 * application code never runs here. Each server frame calls its own method ({@link ServerFrameHandler}: a new kind of
 * server frame does not compile until it is handled here); a frame only a client sends is a protocol violation.
 */
final class ConnectionHandler implements FrameListener, ServerFrameHandler {
    private final WharfConnection connection;
    private final ClientHandshake handshake;
    private final CompletableFuture<Frame.HelloOk> hello;
    private volatile boolean established;
    /** The link once the handshake is done and the connection has it; null before. */
    private volatile ConnectedLink connected;

    ConnectionHandler(WharfConnection connection, ClientHandshake handshake) {
        this.connection = connection;
        this.handshake = handshake;
        this.hello = handshake.done();
    }

    /** Completes with the server's HELLO_OK, or exceptionally with the reason the handshake failed. */
    CompletableFuture<Frame.HelloOk> hello() {
        return hello;
    }

    /**
     * The handshake is done: from now on the end of the link is reported as the end of {@code link}. The caller then
     * checks that the link is still open; an end before this call is the caller's to notice.
     */
    void connected(ConnectedLink link) {
        connected = link;
    }

    @Override
    public void onFrame(Frame frame) {
        if (!established) {
            handshake(frame);
        } else if (frame instanceof Frame.Deliver d) {
            // the frame of the receive path, called directly: one type check, no call the JIT cannot inline
            connection.onDeliver(d);
        } else if (frame instanceof Frame.FromServer fromServer) {
            fromServer.handleWith(this);
        } else {
            connection.onProtocolViolation(connected, "the server sent " + frame.type() + ", a frame only a client sends");
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
        connection.onDeliver(frame);
    }

    @Override
    public void onOk(Frame.Ok frame) {
        connection.onAnswer(frame.requestId(), null);
    }

    @Override
    public void onProducerCredit(Frame.ProducerCredit frame) {
        connection.onProducerCredit(connected, frame);
    }

    @Override
    public void onPullDone(Frame.PullDone frame) {
        connection.onPullDone(frame);
    }

    @Override
    public void onConsumerFailed(Frame.ConsumerFailed frame) {
        connection.onConsumerFailed(frame);
    }

    @Override
    public void onError(Frame.Error frame) {
        connection.onError(connected, frame);
    }

    @Override
    public void onXaResult(Frame.XaResult frame) {
        connection.onXaResult(frame);
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
        connection.onProtocolViolation(connected, "the server sent " + frame.type() + " after the handshake");
    }

    @Override
    public void onSilence() {
        ConnectedLink link = connected;
        if (link != null) {
            connection.linkLost(link, "nothing received for " + Heartbeat.deadAfterMillis(link.heartbeatMillis())
                    + " ms (" + Heartbeat.MISSED_BEFORE_DEAD + " heartbeat intervals)", null, true);
        }
    }

    @Override
    public void onFailure(Throwable cause) {
        ConnectedLink link = connected;
        if (link == null) {
            hello.completeExceptionally(cause);
        } else {
            connection.linkLost(link, String.valueOf(cause.getMessage() == null ? cause : cause.getMessage()), cause, true);
        }
    }

    @Override
    public void onClosed() {
        ConnectedLink link = connected;
        if (link == null) {
            hello.completeExceptionally(new ClosedChannelException());
        } else {
            connection.linkLost(link, "the connection was closed by the server or the network", null, true);
        }
    }
}
