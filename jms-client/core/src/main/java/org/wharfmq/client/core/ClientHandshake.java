package org.wharfmq.client.core;

import org.wharfmq.client.core.transport.FrameLink;
import org.wharfmq.protocol.auth.Mechanisms;
import org.wharfmq.protocol.auth.ScramClient;
import org.wharfmq.protocol.auth.ScramException;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.ServerFrameHandler;
import org.wharfmq.protocol.message.MessageLengthLimit;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The client's side of the handshake after HELLO (docs/protocol.md, "Connection life"): picks a mechanism from the
 * server's AUTH_MECHANISMS (EXTERNAL when it has a TLS client certificate and no password; SCRAM-SHA-256 when it has a
 * user; PLAIN only over TLS, for a server that offers no SCRAM; ANONYMOUS when it has no user), runs it, and checks
 * HELLO_OK (for SCRAM, the server's signature: a server that does not know the user's key is refused). Runs on the
 * link's reading thread, each server frame calling its own method; a frame that has no place in the handshake fails
 * it. SCRAM's proof, whose salted password is thousands of PBKDF2 iterations (milliseconds of CPU), is computed by
 * the thread that connects, waiting in {@link #await}: the reading thread may be an event loop (a link on a
 * {@link org.wharfmq.client.core.transport.NetworkLoop}, a server's), which must not spend that time on one login.
 * The password never leaves this object but inside PLAIN over TLS.
 */
public final class ClientHandshake implements ServerFrameHandler {

    private final String user;
    private final char[] password;
    private final boolean overTls;
    private final boolean hasCertificate;
    private final String server;
    /** The longest message this client receives, whatever the server declares ({@code maxReceiveLength}). */
    private final int maxReceiveLength;
    private final CompletableFuture<Frame.HelloOk> done = new CompletableFuture<>();
    /** What the reading thread leaves to the thread in {@link #await}: the SCRAM proof, or a wake-up once done. */
    private final BlockingQueue<Runnable> forConnectingThread = new LinkedBlockingQueue<>();
    private FrameLink link;
    /** The SCRAM exchange once chosen (by the reading thread). */
    private ScramClient scram;
    /** The mechanism the client answered AUTH_MECHANISMS with, null before; the reading thread's. */
    private String chosen;
    /** Whether SCRAM's AUTH_CHALLENGE came (one per exchange); the reading thread's. */
    private boolean challenged;
    /**
     * The SCRAM exchange once its proof is sent: written by the thread in {@link #await} after it derived the keys,
     * read by the reading thread at HELLO_OK (volatile: that read sees the keys).
     */
    private volatile ScramClient proven;

    /**
     * @param user     the user name, null or empty for none
     * @param password the password, null for none (copied)
     * @param overTls  whether the connection is encrypted (PLAIN only then)
     * @param hasCertificate whether this client presents a TLS client certificate (the URL option keyStore)
     * @param server   the server's address, for messages
     * @param maxReceiveLength the longest message the client receives: the link reads frames of at most the lower of
     *                 this and the server's declared maxMessageLength, plus a frame's fields
     */
    public ClientHandshake(String user, String password, boolean overTls, boolean hasCertificate, String server,
                           int maxReceiveLength) {
        this.user = user == null || user.isEmpty() ? null : user;
        this.password = password == null ? new char[0] : password.toCharArray();
        this.overTls = overTls;
        this.hasCertificate = hasCertificate;
        this.server = server;
        this.maxReceiveLength = maxReceiveLength;
        done.whenComplete((ok, failure) -> forConnectingThread.add(() -> { })); // wakes await
    }

    /**
     * Waits up to {@code timeoutMillis} for the handshake's end, running the steps left to the connecting thread
     * meanwhile (the SCRAM proof).
     *
     * @return the server's HELLO_OK
     * @throws ExecutionException why the handshake failed (a {@link ClientException} when the server refused)
     * @throws TimeoutException   when it did not end in time
     */
    public Frame.HelloOk await(long timeoutMillis) throws ExecutionException, TimeoutException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (!done.isDone()) {
            Runnable step = forConnectingThread.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            if (step == null) {
                throw new TimeoutException();
            }
            step.run();
        }
        return done.get();
    }

    /** Completes with the server's HELLO_OK once authenticated, or exceptionally with why the handshake failed. */
    public CompletableFuture<Frame.HelloOk> done() {
        return done;
    }

    /** Sets the link the answers go out on, before HELLO is sent. */
    public void link(FrameLink link) {
        this.link = link;
    }

    @Override
    public void onAuthMechanisms(Frame.AuthMechanisms frame) {
        if (chosen != null) {
            unexpected(frame); // once per handshake: a second offer would have the client choose again
            return;
        }
        try {
            choose(frame.mechanisms());
        } catch (ClientException e) {
            done.completeExceptionally(e);
        }
    }

    @Override
    public void onAuthChallenge(Frame.AuthChallenge frame) {
        ScramClient exchange = scram;
        if (exchange == null || challenged) {
            unexpected(frame);
            return;
        }
        challenged = true;
        forConnectingThread.add(() -> prove(exchange, frame.data()));
    }

    /** On the connecting thread: derives the keys from the password (PBKDF2) and sends the proof. */
    private void prove(ScramClient exchange, byte[] serverFirst) {
        try {
            byte[] clientFinal = exchange.clientFinal(serverFirst);
            proven = exchange;
            link.write(new Frame.AuthResponse(clientFinal));
        } catch (ScramException e) {
            done.completeExceptionally(scramFailed(e));
        }
    }

    /**
     * The login's end. Refused unless the client has sent its AUTH first (a server that skips the exchange would log in
     * a client with a password without knowing it) and, for SCRAM, the server's signature proves it knows the user's
     * key. Raises the link's frame limit to what the server declared, its maxMessageLength, or the client's
     * {@code maxReceiveLength} when that is lower, and a frame's fields.
     */
    @Override
    public void onHelloOk(Frame.HelloOk frame) {
        try {
            if (chosen == null) {
                throw new ScramException("the server accepted the login before it offered its mechanisms and the"
                        + " client chose one (HELLO_OK without AUTH_MECHANISMS and AUTH): a server that does not"
                        + " follow the protocol, or one impersonating the real one without knowing the user's key;"
                        + " the client does not trust it. Check the address (and use ssl:// with a verified"
                        + " certificate to know whom you talk to)");
            }
            if (scram != null) {
                ScramClient exchange = proven;
                if (exchange == null) {
                    throw new ScramException("the server accepted the login before the client's proof");
                }
                exchange.verifyServerFinal(frame.data());
            }
            link.frameLimit(MessageLengthLimit.frameLimit(Math.min(frame.maxMessageLength(), maxReceiveLength)));
            done.complete(frame);
        } catch (ScramException e) {
            done.completeExceptionally(scramFailed(e));
        }
    }

    @Override
    public void onError(Frame.Error frame) {
        done.completeExceptionally(ClientException.of(frame));
    }

    @Override
    public void onPing(Frame.Ping frame) {
        unexpected(frame);
    }

    @Override
    public void onOk(Frame.Ok frame) {
        unexpected(frame);
    }

    @Override
    public void onPullDone(Frame.PullDone frame) {
        unexpected(frame);
    }

    @Override
    public void onConsumerFailed(Frame.ConsumerFailed frame) {
        unexpected(frame);
    }

    @Override
    public void onProducerCredit(Frame.ProducerCredit frame) {
        unexpected(frame);
    }

    @Override
    public void onDeliver(Frame.Deliver frame) {
        frame.message().release();
        unexpected(frame);
    }

    @Override
    public void onXaResult(Frame.XaResult frame) {
        unexpected(frame);
    }

    @Override
    public void onChannelStatus(Frame.ChannelStatus frame) {
        unexpected(frame);
    }

    @Override
    public void onStatusReply(Frame.StatusReply frame) {
        unexpected(frame);
    }

    /** A frame that has no place in the handshake: the handshake fails. */
    public void unexpected(Frame frame) {
        done.completeExceptionally(new IllegalStateException("the server sent " + frame.type() + " during the handshake"));
    }

    private ClientException scramFailed(ScramException e) {
        return new ClientException(ErrorCode.AUTHENTICATION_FAILED, "Authentication with Wharf at " + server + " failed"
                + (user == null ? " (anonymous)" : " for user '" + user + "'") + ": " + e.getMessage());
    }

    private void choose(List<String> offered) throws ClientException {
        if (byCertificate(offered)) {
            // the authorisation identity: empty for the user the certificate is mapped to; a name the server checks
            byte[] authzid = user == null ? new byte[0] : user.getBytes(StandardCharsets.UTF_8);
            chosen = Mechanisms.EXTERNAL;
            link.write(new Frame.Auth(Mechanisms.EXTERNAL, authzid));
        } else if (user == null) {
            if (!offered.contains(Mechanisms.ANONYMOUS)) {
                throw new ClientException(ErrorCode.AUTHENTICATION_FAILED, "Wharf at " + server + " requires a user name and password (it offers "
                        + String.join(", ", offered) + "): connect with createConnection(user, password) or the"
                        + " factory's user and password.");
            }
            chosen = Mechanisms.ANONYMOUS;
            link.write(new Frame.Auth(Mechanisms.ANONYMOUS, new byte[0]));
        } else if (offered.contains(Mechanisms.SCRAM_SHA_256)) {
            scram = new ScramClient(user, password);
            java.util.Arrays.fill(password, '\0');
            chosen = Mechanisms.SCRAM_SHA_256;
            link.write(new Frame.Auth(Mechanisms.SCRAM_SHA_256, scram.clientFirst()));
        } else if (offered.contains(Mechanisms.PLAIN) && overTls) {
            byte[] message = ("\0" + user + "\0" + new String(password)).getBytes(StandardCharsets.UTF_8);
            java.util.Arrays.fill(password, '\0');
            chosen = Mechanisms.PLAIN;
            link.write(new Frame.Auth(Mechanisms.PLAIN, message));
        } else if (offered.equals(List.of(Mechanisms.ANONYMOUS))) {
            throw new ClientException(ErrorCode.AUTHENTICATION_FAILED, "Wharf at " + server + " has no users, so it cannot log in user '" + user
                    + "' (it accepts anonymous clients only): connect without a user name, or add the user to the"
                    + " server's security file (bin/wharf user add).");
        } else {
            throw new ClientException(ErrorCode.AUTHENTICATION_FAILED, "Wharf at " + server + " offers no mechanism this client can use for user '"
                    + user + "' (it offers " + String.join(", ", offered) + "; PLAIN is used only over TLS).");
        }
    }

    /**
     * Whether to log in by the TLS client certificate (EXTERNAL): when this client has one and no password, and the
     * server offers EXTERNAL or it is the client's only way in (no user and no ANONYMOUS; the server's refusal then
     * names the certificate's subject and how to map it to a user).
     */
    private boolean byCertificate(List<String> offered) {
        if (!hasCertificate || password.length > 0) {
            return false;
        }
        return offered.contains(Mechanisms.EXTERNAL) || user != null || !offered.contains(Mechanisms.ANONYMOUS);
    }
}
