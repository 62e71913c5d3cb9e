package org.wharfmq.client.core;

import org.wharfmq.protocol.frame.Frame;

import java.util.List;

/**
 * What a {@link CoreConnection} asks of one of its sessions: to be created again after a reconnection, and to hear of
 * what happens to the connection. The connection calls these on the thread named with each; none may block on the
 * server except {@link #awaitIdle}.
 */
public interface SessionMember {

    /** The session's id on its connection. */
    int id();

    /** Whether it is closing or closed: a reconnection does not create it again. */
    boolean isClosing();

    /** CREATE_SESSION for this session (again, after a reconnection), with {@code requestId}. */
    Frame createFrame(int requestId);

    /**
     * A reconnection creates this session's open consumers again on {@code next} (on the reconnection's thread): each
     * request written now and added to {@code pending}, to be awaited with the others.
     */
    void reattachConsumers(ConnectedLink next, List<Reestablishing> pending);

    /** PRODUCER_CREDIT for this session, read from the link of {@code generation} (on the reading thread). */
    void onProducerCredit(int generation, int bytes);

    /** The failure of one of this session's asynchronous sends (on the reading thread). */
    void onAsyncSendError(Frame.Error error);

    /** The connection was started: consumers get the credit withheld while it was stopped. */
    void connectionStarted() throws ClientException;

    /** Returns once none of the session's message handlers runs (unless called by one). */
    void awaitIdle();

    /** The link was lost and the connection reconnects: buffered deliveries are dropped; waiting threads wait on. */
    void onLinkLost();

    /** The connection is lost for good: buffered deliveries are dropped, waiting threads woken to find out. */
    void onConnectionLost();

    /** The connection is usable again after a reconnection: waiting threads look again. */
    void wakeAll();

    /** The connection closes: the session closes locally (the connection's CLOSE releases it on the server). */
    void closeForConnection();
}
