package org.wharfmq.client.core;

import io.netty.channel.DefaultEventLoop;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.wharfmq.client.core.transport.TestLink;
import org.wharfmq.protocol.ProtocolVersion;
import org.wharfmq.protocol.auth.Mechanisms;
import org.wharfmq.protocol.auth.ScramCredential;
import org.wharfmq.protocol.auth.ScramServer;
import org.wharfmq.protocol.frame.Frame;

import java.security.SecureRandom;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * SCRAM's proof (its salted password: PBKDF2, thousands of iterations) is computed by the thread that connects, not
 * by the thread that reads the link, which for a server's link to another queue manager is one of its event loops.
 * The server's side of the exchange is the real {@link ScramServer}; the link records who wrote each frame.
 */
class ClientHandshakeTest {
    /** The link's reading thread: an event loop, as on a {@link org.wharfmq.client.core.transport.NetworkLoop}. */
    private final DefaultEventLoop reader = new DefaultEventLoop();

    @AfterEach
    void stop() {
        reader.shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @Test
    void theScramProofIsComputedByTheConnectingThreadNotByTheThreadThatReadsTheLink() throws Exception {
        ScramCredential credential = ScramCredential.create("app-pw".toCharArray(), ScramCredential.MIN_ITERATIONS,
                new SecureRandom());
        ScramServer server = new ScramServer(user -> user.equals("app") ? credential : null, new byte[32]);
        RecordingLink link = new RecordingLink();
        ClientHandshake handshake = new ClientHandshake("app", "app-pw", false, false, "tcp://partner:7414",
                ClientConfiguration.DEFAULT_MAX_RECEIVE_LENGTH);
        handshake.link(link);

        // the partner: answers each frame the client writes, its answers read on the reading thread
        CompletableFuture<Void> partner = CompletableFuture.runAsync(() -> {
            try {
                reader.execute(() -> handshake.onAuthMechanisms(new Frame.AuthMechanisms(List.of(Mechanisms.SCRAM_SHA_256))));
                byte[] serverFirst = server.serverFirst(((Frame.Auth) link.next().frame()).data());
                reader.execute(() -> handshake.onAuthChallenge(new Frame.AuthChallenge(serverFirst)));
                byte[] serverFinal = server.serverFinal(((Frame.AuthResponse) link.next().frame()).data());
                reader.execute(() -> handshake.onHelloOk(new Frame.HelloOk(ProtocolVersion.CURRENT, "QM2", "0", 0,
                        1 << 20, "app", serverFinal)));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });

        Frame.HelloOk ok = handshake.await(30_000); // the server's signature checked: the exchange is whole
        partner.get(30, TimeUnit.SECONDS);
        assertEquals("app", server.user());
        assertEquals("QM2", ok.serverName());
        Written first = link.written.poll();
        Written proof = link.written.poll();
        assertNotNull(proof);
        assertInstanceOf(Frame.Auth.class, first.frame());
        assertEquals(reader.threadProperties().name(), first.by(), "the client-first message: no key derived");
        assertInstanceOf(Frame.AuthResponse.class, proof.frame());
        assertEquals(Thread.currentThread().getName(), proof.by(), "the proof: written by the connecting thread");
    }

    /** A frame the client wrote and the name of the thread that wrote it. */
    private record Written(Frame frame, String by) {
    }

    /** A link that records what is written, and by whom, for the partner to take. */
    private static final class RecordingLink extends TestLink {
        final BlockingQueue<Written> toPartner = new LinkedBlockingQueue<>();
        final BlockingQueue<Written> written = new LinkedBlockingQueue<>();

        Written next() throws InterruptedException {
            Written w = toPartner.poll(30, TimeUnit.SECONDS);
            if (w == null) {
                throw new IllegalStateException("the client wrote nothing");
            }
            return w;
        }

        @Override
        public void write(Frame frame) {
            Written w = new Written(frame, Thread.currentThread().getName());
            written.add(w);
            toPartner.add(w);
        }
    }
}
