package org.wharfmq.server.transport;

import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.GlobalEventExecutor;
import org.junit.jupiter.api.Test;
import org.wharfmq.protocol.ProtocolVersion;
import org.wharfmq.protocol.auth.Mechanisms;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.server.TestUsers;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.queue.QueueManager;
import org.wharfmq.server.security.AccessControl;
import org.wharfmq.server.security.Logins;
import org.wharfmq.server.store.InMemoryMessageStore;
import org.wharfmq.server.topic.TopicManager;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import java.nio.charset.StandardCharsets;
import java.time.InstantSource;

import static org.junit.jupiter.api.Assertions.*;

/**
 * PLAIN (a password in clear, checked by a login module) at the handshake: offered only on a TLS connection (here a
 * channel whose pipeline holds an {@link SslHandler}, until the TLS listener lands), and answered from the login
 * module's verdict ({@link TestUsers#loginModule}), given back on the event loop.
 */
class PlainOverTlsTest {

    private static EmbeddedChannel connect(boolean tls) throws Exception {
        ServerConfig config = ServerConfig.builder().heartbeatMillis(0).build();
        QueueManager queues = new QueueManager(config, new InMemoryMessageStore(), InstantSource.system());
        ServerContext context = new ServerContext(config, queues, new TopicManager(config, queues),
                AccessControl.allowAll(), new DefaultChannelGroup(GlobalEventExecutor.INSTANCE), "test", new Logins(TestUsers.loginModule("alice")));
        EmbeddedChannel channel = new EmbeddedChannel(new ServerChannelInitializer(context));
        if (tls) {
            SSLEngine engine = SSLContext.getDefault().createSSLEngine();
            engine.setUseClientMode(false);
            channel.pipeline().addLast(new SslHandler(engine)); // behind the handshake: marks the channel TLS, sees no frame
        }
        channel.writeInbound(new Frame.Hello(ProtocolVersion.CURRENT, "plain-test", 0));
        return channel;
    }

    /** The next frame the server wrote: the pipeline's encoder made it bytes, which a decoder reads back. */
    private static Frame next(EmbeddedChannel channel) {
        EmbeddedChannel decoder = new EmbeddedChannel(new org.wharfmq.protocol.frame.FrameDecoder(1 << 20));
        io.netty.buffer.ByteBuf bytes;
        while ((bytes = channel.readOutbound()) != null) {
            decoder.writeInbound(bytes);
        }
        Frame frame = decoder.readInbound();
        assertNotNull(frame, "the server wrote nothing");
        decoder.finishAndReleaseAll();
        return frame;
    }

    private static Frame.Auth plain(String user, String password) {
        return new Frame.Auth(Mechanisms.PLAIN, ("\0" + user + "\0" + password).getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void plainIsOfferedOverTlsAndLogsInWithTheModulesIdentity() throws Exception {
        EmbeddedChannel channel = connect(true);
        Frame.AuthMechanisms offered = (Frame.AuthMechanisms) next(channel);
        assertTrue(offered.mechanisms().contains(Mechanisms.PLAIN), offered.toString());
        channel.writeInbound(plain("alice", TestUsers.password("alice")));
        channel.runPendingTasks(); // the module's verdict comes back as a task on the event loop
        Frame.HelloOk ok = (Frame.HelloOk) next(channel);
        assertEquals("alice", ok.user());
        channel.finishAndReleaseAll();
    }

    @Test
    void aWrongPasswordIsRefused() throws Exception {
        EmbeddedChannel channel = connect(true);
        next(channel);
        channel.writeInbound(plain("alice", "guess"));
        channel.runPendingTasks();
        Frame.Error error = (Frame.Error) next(channel);
        assertEquals(ErrorCode.AUTHENTICATION_FAILED, error.code());
        assertEquals("Authentication failed for user 'alice'.", error.message());
        channel.finishAndReleaseAll();
    }

    @Test
    void withoutTlsPlainIsNeitherOfferedNorAccepted() throws Exception {
        EmbeddedChannel channel = connect(false);
        Frame offered = next(channel);
        Frame.Error error = assertInstanceOf(Frame.Error.class, offered, "nothing to offer: no users, no anonymous, no TLS for PLAIN");
        assertEquals(ErrorCode.AUTHENTICATION_FAILED, error.code());
        assertTrue(error.message().contains("offered only over TLS"), error.message());
        channel.finishAndReleaseAll();
    }
}
