package org.wharfmq.server.channels;

import org.wharfmq.client.core.ClientException;
import org.wharfmq.client.core.ConnectedLink;
import org.wharfmq.client.core.ConsumerRegistry;
import org.wharfmq.client.core.DeliveryTarget;
import org.wharfmq.client.core.LinkEvents;
import org.wharfmq.client.core.LinkHandler;
import org.wharfmq.client.core.PendingRequests;
import org.wharfmq.client.core.transport.BrokerAddress;
import org.wharfmq.client.core.transport.ClientTls;
import org.wharfmq.client.core.transport.NetworkLoop;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.frame.FrameTooLongException;

import java.net.URI;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/**
 * One connection of a channel over the JMS-free core client: to the partner queue manager (TCP or TLS, as its channel
 * user), or to this queue manager over its in-VM listener (as the queue manager itself). Requests wait for their
 * answer on the calling thread; deliveries and PULL_DONEs queue up for {@link #next}. A dedicated reader thread reads
 * the link ({@code readerOnly}), so a partner that stops answering is found by the heartbeat even between batches; a
 * {@code tcp://} or {@code ssl://} connection opened on a {@link NetworkLoop} is read, and written, by that event loop
 * instead.
 */
final class CoreLink implements LinkEvents, DeliveryTarget, AutoCloseable {
    private static final System.Logger LOG = System.getLogger(CoreLink.class.getName());

    private final PendingRequests requests = new PendingRequests();
    /** The consumers whose frames this link queues for {@link #next}: {@link #receiveFor} registers them. */
    private final ConsumerRegistry consumers = new ConsumerRegistry();
    /** DELIVER and PULL_DONE frames, in arrival order; a lost link adds {@link #LOST}. */
    private final LinkedBlockingQueue<Object> arrivals = new LinkedBlockingQueue<>();
    private static final Object LOST = new Object();
    private volatile String lostReason;
    /** The frame past the link's limit that ended it, null while none did (written by the reading thread). */
    private volatile FrameTooLongException tooLong;
    private ConnectedLink link;
    /** Runs each time the link is found lost, after {@link #isOpen} says so: wakes whoever watches it. */
    private volatile Runnable whenLost = () -> { };

    private CoreLink() {
    }

    /**
     * Connects and logs in, taking frames as long as the queue manager declares it may send (its maxMessageLength).
     *
     * @param url {@code tcp://HOST:PORT}, {@code ssl://HOST:PORT} or {@code vm://NAME}
     */
    static CoreLink open(String url, Map<String, String> tls, String user, String password, String clientName,
                         int heartbeatMillis, int connectTimeoutMillis) throws ClientException {
        return open(url, ClientTls.of(tls), user, password, clientName, heartbeatMillis, connectTimeoutMillis,
                Integer.MAX_VALUE, null);
    }

    /**
     * Connects and logs in, a {@code tcp://} or {@code ssl://} connection on {@code loop} when it is not null: one
     * whose writes never block, so that an event loop may {@link #write} it.
     *
     * @param maxReceiveLength the longest message taken from the queue manager: a frame longer than the lower of this
     *                         and its maxMessageLength, plus a frame's fields, ends the link unread ({@link #tooLong})
     */
    static CoreLink open(String url, ClientTls tls, String user, String password, String clientName,
                         int heartbeatMillis, int connectTimeoutMillis, int maxReceiveLength, NetworkLoop loop)
            throws ClientException {
        CoreLink core = new CoreLink();
        core.link = LinkHandler.open(address(url), tls, user, password, clientName, heartbeatMillis, 0,
                connectTimeoutMillis, maxReceiveLength, () -> 1, core.requests, core.consumers, core, loop);
        core.link.link().readerOnly();
        return core;
    }

    private static BrokerAddress address(String url) {
        URI uri = URI.create(url);
        return switch (uri.getScheme()) {
            case BrokerAddress.VM -> BrokerAddress.vm(uri.getAuthority());
            case BrokerAddress.SSL -> BrokerAddress.ssl(uri.getHost(), uri.getPort());
            default -> BrokerAddress.tcp(uri.getHost(), uri.getPort());
        };
    }

    /** What TLS the connection negotiated ({@code TLSv1.3 TLS_AES_128_GCM_SHA256 on OpenSSL}); null for a plain one. */
    String tls() {
        return link.link().tls();
    }

    /** The queue manager's name, from its HELLO_OK. */
    String serverName() {
        return link.serverName();
    }

    /** The longest message the queue manager accepts (its maxMessageLength), from its HELLO_OK. */
    int maxMessageLength() {
        return link.maxMessageLength();
    }

    /**
     * Sends the request {@code frame} makes of a fresh request id and waits for its answer.
     *
     * @return the answer: OK's null-error request (its {@code channelStatus()} or {@code xaResult()} when it had one)
     * @throws ClientException the server's ERROR, the link's loss, or no answer in time
     */
    PendingRequests.Request call(IntFunction<Frame> frame, long timeoutMillis) throws ClientException {
        return await(send(frame), timeoutMillis);
    }

    /** Sends the request {@code frame} makes of a fresh request id without waiting: {@link #await} its answer. */
    PendingRequests.Request send(IntFunction<Frame> frame) {
        int id = requests.nextId();
        PendingRequests.Request request = requests.register(id, link);
        link.write(frame.apply(id));
        return request;
    }

    /**
     * Waits for the answer to a request of {@link #send}.
     *
     * @return the request, answered OK
     * @throws ClientException the server's ERROR, the link's loss, or no answer in time
     */
    PendingRequests.Request await(PendingRequests.Request request, long timeoutMillis) throws ClientException {
        if (!request.await(TimeUnit.MILLISECONDS.toNanos(timeoutMillis))) {
            requests.forget(request.id);
            throw new ClientException("No answer from " + link.address() + " within " + timeoutMillis + " ms", null);
        }
        Frame.Error error;
        try {
            error = request.answer().join();
        } catch (java.util.concurrent.CompletionException e) {
            throw e.getCause() instanceof ClientException c ? c : new ClientException(String.valueOf(e.getCause()), e);
        }
        if (error != null) {
            throw ClientException.of(error);
        }
        return request;
    }

    /** Queues the DELIVERs and PULL_DONEs of consumer {@code consumerId} for {@link #next}: before it is created. */
    void receiveFor(int consumerId) {
        consumers.registerConsumer(consumerId, this);
    }

    /** Writes a frame that wants no answer. */
    void write(Frame frame) {
        link.write(frame);
    }

    /**
     * The next DELIVER or PULL_DONE, waiting up to {@code millis} (negative: without limit); null when none came.
     *
     * @throws ClientException once the link is lost
     */
    Frame next(long millis) throws ClientException, InterruptedException {
        Object next = millis < 0 ? arrivals.take() : arrivals.poll(millis, TimeUnit.MILLISECONDS);
        if (next == LOST) {
            arrivals.add(LOST);
            throw new ClientException("The connection to " + link.address() + " was lost: " + lostReason, null);
        }
        return (Frame) next;
    }

    /** The frame past the link's limit that ended the link; null while none did. */
    FrameTooLongException tooLong() {
        return tooLong;
    }

    boolean isOpen() {
        return lostReason == null && link.link().isOpen();
    }

    /**
     * Runs {@code wake} (it must not block: the link's reading thread runs it) each time the link is found lost, after
     * {@link #isOpen} says so: a thread that checks {@link #checkOpen} before it parks, and that {@code wake} unparks,
     * sees the loss at once, whatever it waits for.
     */
    void whenLost(Runnable wake) {
        whenLost = wake;
    }

    /** Whether the connection holds no more than its limit of bytes written and not yet taken by its socket. */
    boolean isWritable() {
        return link.link().isWritable();
    }

    /**
     * Throws what {@link #next} would once the link is lost: for a writer that waits for no answer, which would
     * otherwise not learn of the loss (a write on a lost link goes nowhere, silently).
     *
     * @throws ClientException once the link is lost
     */
    void checkOpen() throws ClientException {
        if (!isOpen()) {
            throw new ClientException("The connection to " + link.address() + " was lost: "
                    + (lostReason == null ? "its socket is closed" : lostReason), null);
        }
    }

    @Override
    public void close() {
        link.link().close(1000);
        Object next;
        while ((next = arrivals.poll()) != null) {
            if (next instanceof Frame.Deliver d) {
                d.message().release();
            }
        }
    }

    @Override
    public void deliver(Frame.Deliver deliver) {
        arrivals.add(deliver);
    }

    @Override
    public void pullDone(long pullId) {
        arrivals.add(new Frame.PullDone(0, pullId));
    }

    @Override
    public void failed(ErrorCode code, String message) {
        linkLost(link, "a consumer failed: " + message, null, false);
    }

    @Override
    public void onProducerCredit(ConnectedLink on, Frame.ProducerCredit credit) {
        // the channel's puts wait for their answers: producer credit needs no tracking
    }

    @Override
    public void onAsyncError(ConnectedLink on, Frame.Error error) {
        // a put of a transaction, sent without waiting: the transaction's commit fails and says why
        LOG.log(System.Logger.Level.DEBUG, () -> "Wharf at " + on.address() + ": " + error.message());
    }

    @Override
    public void linkLost(ConnectedLink lost, String reason, Throwable cause, boolean mayReconnect) {
        if (cause instanceof FrameTooLongException frame) {
            tooLong = frame; // before the requests fail: a thread that sees their failure sees it
        }
        lostReason = reason;
        ClientException why = new ClientException("The connection to " + (lost == null ? "the queue manager"
                : lost.address()) + " was lost: " + reason, cause);
        requests.failAll(why);
        arrivals.add(LOST);
        whenLost.run();
    }
}
