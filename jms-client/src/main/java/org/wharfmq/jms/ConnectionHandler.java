package org.wharfmq.jms;

import org.wharfmq.jms.transport.FrameListener;
import org.wharfmq.protocol.Heartbeat;
import org.wharfmq.protocol.frame.Frame;

import java.nio.channels.ClosedChannelException;
import java.util.concurrent.CompletableFuture;

/**
 * Listens to one link of a connection: hands the handshake's frames to its {@link ClientHandshake}, then hands every
 * frame to its connection, and tells the connection when this link ends, naming it ({@link ConnectedLink}), so that
 * the end of a link the connection has already replaced is not taken for the end of the current one. Runs on the
 * link's reading thread, so it only routes: messages go into consumer buffers and answers complete futures;
 * application code never runs here.
 */
final class ConnectionHandler implements FrameListener {
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
            return;
        }
        if (frame instanceof Frame.Deliver d) {
            connection.onDeliver(d);
        } else if (frame instanceof Frame.Ok ok) {
            connection.onAnswer(ok.requestId(), null);
        } else if (frame instanceof Frame.ProducerCredit credit) {
            connection.onProducerCredit(connected, credit);
        } else if (frame instanceof Frame.PullDone done) {
            connection.onPullDone(done);
        } else if (frame instanceof Frame.ConsumerFailed failed) {
            connection.onConsumerFailed(failed);
        } else if (frame instanceof Frame.Error error) {
            connection.onError(connected, error);
        } else if (frame instanceof Frame.XaResult result) {
            connection.onXaResult(result);
        } else if (!(frame instanceof Frame.Ping)) {
            connection.onProtocolViolation(connected, "the server sent an unexpected " + frame.type() + " frame");
        }
    }

    /** The connecting thread closes the link when the handshake fails. */
    private void handshake(Frame frame) {
        handshake.onFrame(frame);
        established = hello.isDone() && !hello.isCompletedExceptionally();
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
