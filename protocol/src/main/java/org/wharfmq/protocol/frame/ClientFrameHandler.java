package org.wharfmq.protocol.frame;

/**
 * What the server does with each kind of frame a client sends ({@link Frame.FromClient}): one method per kind,
 * called by {@link Frame.FromClient#handleWith}. Adding a client frame to the protocol adds a method here, so the
 * server does not compile until it handles the new frame; nothing is found missing only at run time.
 *
 * <p>Each method is called on the connection's event loop, in the order the frames arrived. The meaning of every
 * frame and its answer is in {@code docs/protocol.md}.
 */
public interface ClientFrameHandler {

    /** HELLO: the handshake, which a connection makes once, before any other frame. */
    void onHello(Frame.Hello frame);

    /** AUTH: the authentication mechanism the client chose, and its first message. */
    void onAuth(Frame.Auth frame);

    /** AUTH_RESPONSE: the client's answer to the server's challenge. */
    void onAuthResponse(Frame.AuthResponse frame);

    /** PING: the client is alive; never answered. */
    void onPing(Frame.Ping frame);

    /** CLOSE: end the connection in order. */
    void onClose(Frame.Close frame);

    /**
     * CLAIM_KEY: the connection's key, which gives it its temporary namespace and takes over from an older connection
     * of the same key that the server still thinks alive.
     */
    void onClaimKey(Frame.ClaimKey frame);

    /** SET_CLIENT_ID: the connection's JMS client ID. */
    void onSetClientId(Frame.SetClientId frame);

    /** CREATE_SESSION. */
    void onCreateSession(Frame.CreateSession frame);

    /** CLOSE_SESSION. */
    void onCloseSession(Frame.CloseSession frame);

    /** CREATE_PRODUCER: checks the producer's destination. */
    void onCreateProducer(Frame.CreateProducer frame);

    /** CLOSE_PRODUCER. */
    void onCloseProducer(Frame.CloseProducer frame);

    /** CREATE_CONSUMER: a consumer, a topic subscriber or a queue browser. */
    void onCreateConsumer(Frame.CreateConsumer frame);

    /** CLOSE_CONSUMER. */
    void onCloseConsumer(Frame.CloseConsumer frame);

    /** CREDIT: a consumer or browser may be sent more messages. */
    void onCredit(Frame.Credit frame);

    /** PULL: one message now, credit or not, then PULL_DONE. */
    void onPull(Frame.Pull frame);

    /** SEND: a message for a queue or topic. */
    void onSend(Frame.Send frame);

    /** REJECT: the client cannot decode a delivery. */
    void onReject(Frame.Reject frame);

    /** ACK: deliveries consumed outside a transaction. */
    void onAck(Frame.Ack frame);

    /** COMMIT: the session's transaction. */
    void onCommit(Frame.Commit frame);

    /** ROLLBACK: the session's transaction, or Session.recover. */
    void onRollback(Frame.Rollback frame);

    /** UNSUBSCRIBE: delete a durable subscription. */
    void onUnsubscribe(Frame.Unsubscribe frame);

    /** CREATE_TEMPORARY: a temporary queue or topic. */
    void onCreateTemporary(Frame.CreateTemporary frame);

    /** DELETE_TEMPORARY. */
    void onDeleteTemporary(Frame.DeleteTemporary frame);

    /** XA_START: associate a session with an XA transaction branch (new, joined or resumed). */
    void onXaStart(Frame.XaStart frame);

    /** XA_END: end (or suspend) a session's association with its branch, handing the branch what it consumed. */
    void onXaEnd(Frame.XaEnd frame);

    /** XA_PREPARE: the first phase of a branch's two-phase commit. */
    void onXaPrepare(Frame.XaPrepare frame);

    /** XA_COMMIT: commit a branch, in one phase or after its prepare. */
    void onXaCommit(Frame.XaCommit frame);

    /** XA_ROLLBACK: roll back a branch. */
    void onXaRollback(Frame.XaRollback frame);

    /** XA_RECOVER: the prepared branches, for a transaction manager's recovery. */
    void onXaRecover(Frame.XaRecover frame);

    void onChannelOpen(Frame.ChannelOpen frame);

    void onChannelMessage(Frame.ChannelMessage frame);

    /** CHANNEL_FAST_MESSAGE: a non-persistent message outside the batches, on a channel that agreed to them. */
    void onChannelFastMessage(Frame.ChannelFastMessage frame);

    /** STATUS_REQUEST: a read-only admin command, in a replica's status session only. */
    void onStatusRequest(Frame.StatusRequest frame);

    void onChannelEndBatch(Frame.ChannelEndBatch frame);

    /** CHANNEL_FAST_CONFIRM: answer OK, the CHANNEL_FAST_MESSAGEs before it being read. */
    void onChannelFastConfirm(Frame.ChannelFastConfirm frame);

    /** SHARE_DELIVERIES: the client keeps messages for DELIVER_SAME (docs/protocol.md, "Shared deliveries"). */
    void onShareDeliveries(Frame.ShareDeliveries frame);
}
