package org.wharfmq.protocol.frame;

/**
 * What the client does with each kind of frame the server sends ({@link Frame.FromServer}): one method per kind,
 * called by {@link Frame.FromServer#handleWith}; the twin of {@link ClientFrameHandler}. Adding a server frame to the
 * protocol adds a method here, so the client does not compile until it handles the new frame.
 *
 * <p>Each method is called on the thread that read the frame, in the order the frames arrived. The meaning of every
 * frame is in {@code docs/protocol.md}.
 */
public interface ServerFrameHandler {

    /** AUTH_MECHANISMS: the mechanisms the server offers, in answer to HELLO. */
    void onAuthMechanisms(Frame.AuthMechanisms frame);

    /** AUTH_CHALLENGE: the next message of a challenge-response mechanism. */
    void onAuthChallenge(Frame.AuthChallenge frame);

    /** HELLO_OK: authenticated; the server's name and limits. */
    void onHelloOk(Frame.HelloOk frame);

    /** PING: the server is alive; never answered. */
    void onPing(Frame.Ping frame);

    /** OK: the request with this id succeeded. */
    void onOk(Frame.Ok frame);

    /** ERROR: a request failed, or (request id 0) a fire-and-forget one or the connection. */
    void onError(Frame.Error frame);

    /** PULL_DONE: the answer to a PULL, after any message it delivered. */
    void onPullDone(Frame.PullDone frame);

    /** CONSUMER_FAILED: a consumer created without waiting could not be created. */
    void onConsumerFailed(Frame.ConsumerFailed frame);

    /** PRODUCER_CREDIT: a session's producers may send more bytes. */
    void onProducerCredit(Frame.ProducerCredit frame);

    /** DELIVER: a message for a consumer. */
    void onDeliver(Frame.Deliver frame);

    /** XA_RESULT: the answer to an XA_PREPARE or XA_RECOVER. */
    void onXaResult(Frame.XaResult frame);

    void onChannelStatus(Frame.ChannelStatus frame);

    /** STATUS_REPLY: the answer to a STATUS_REQUEST, in a status session. */
    void onStatusReply(Frame.StatusReply frame);
}
