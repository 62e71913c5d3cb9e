package org.wharfmq.jms;

import org.wharfmq.jms.transport.FrameListener;
import org.wharfmq.protocol.frame.Frame;

import java.nio.channels.ClosedChannelException;
import java.util.concurrent.CompletableFuture;

/**
 * Listens to a connection's link: hands the handshake's frames to its {@link ClientHandshake}, then hands every frame to its connection. Runs
 * on the link's reading thread, so it only routes: messages go into consumer buffers and answers complete
 * futures; application code never runs here.
 */
final class ConnectionHandler implements FrameListener {
    private final WharfConnection connection;
    private final ClientHandshake handshake;
    private final CompletableFuture<Frame.HelloOk> hello;
    private volatile boolean established;

    ConnectionHandler(WharfConnection connection, ClientHandshake handshake) {
        this.connection = connection;
        this.handshake = handshake;
        this.hello = handshake.done();
    }

    /** Completes with the server's HELLO_OK, or exceptionally with the reason the handshake failed. */
    CompletableFuture<Frame.HelloOk> hello() {
        return hello;
    }

    @Override
    public void onFrame(Frame frame) {
        if (!established) {
            handshake(frame);
            return;
        }
        if (frame instanceof Frame.Deliver d) {
            connection.onDeliver(d);
        } else if (frame instanceof Frame.Ok ok) {
            connection.onAnswer(ok.requestId(), null);
        } else if (frame instanceof Frame.ProducerCredit credit) {
            connection.onProducerCredit(credit);
        } else if (frame instanceof Frame.PullDone done) {
            connection.onPullDone(done);
        } else if (frame instanceof Frame.ConsumerFailed failed) {
            connection.onConsumerFailed(failed);
        } else if (frame instanceof Frame.Error error) {
            connection.onError(error);
        } else if (!(frame instanceof Frame.Ping)) {
            connection.onProtocolViolation("the server sent an unexpected " + frame.type() + " frame");
        }
    }

    /** The connecting thread closes the link when the handshake fails. */
    private void handshake(Frame frame) {
        handshake.onFrame(frame);
        established = hello.isDone() && !hello.isCompletedExceptionally();
    }

    @Override
    public void onSilence() {
        connection.onHeartbeatTimeout();
    }

    @Override
    public void onFailure(Throwable cause) {
        if (!established) {
            hello.completeExceptionally(cause);
        } else {
            connection.onTransportError(cause);
        }
    }

    @Override
    public void onClosed() {
        if (!established) {
            hello.completeExceptionally(new ClosedChannelException());
        } else {
            connection.onChannelClosed();
        }
    }
}
