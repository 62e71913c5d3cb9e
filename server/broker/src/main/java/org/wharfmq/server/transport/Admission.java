package org.wharfmq.server.transport;

import io.netty.channel.ChannelHandler;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.server.security.Identity;

import java.net.SocketAddress;

/**
 * What a listener lets a connection become, the one thing its handshake ({@link HandshakeHandler}) does not decide
 * alike everywhere: on the active queue manager a {@link ServerConnection} with sessions ({@link ServerContext}); on
 * a replica of a replicated queue manager a status session ({@link StatusListener}), and no application at all.
 * Called on the connection's event loop.
 */
interface Admission {

    /**
     * Before authentication: why this HELLO is refused (answered ERROR NOT_ACTIVE, the connection closed, nothing
     * revealed), or null to go on and authenticate.
     */
    String refusal(Frame.Hello hello);

    /**
     * Once authenticated and admitted (the connect permission), before HELLO_OK: whether {@code who} may have this
     * kind of session.
     *
     * @throws org.wharfmq.server.WharfException NOT_AUTHORISED, said to the client, which is then closed
     */
    void check(Identity who, SocketAddress peer);

    /** HELLO_OK's flags for this connection. */
    int helloOkFlags();

    /** The handler that takes the connection over at HELLO_OK; {@code giveBack} returns the user's quota, once. */
    ChannelHandler connection(Frame.Hello hello, Identity identity, Runnable giveBack);

    /** The longest frame after HELLO_OK, type byte and payload. */
    int maxFrameLength();
}
