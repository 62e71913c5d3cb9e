package org.wharfmq.client.core;

import org.wharfmq.client.core.transport.FrameWait;
import org.wharfmq.protocol.frame.Frame;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Requests of one connection that wait for the server's OK or ERROR. A request's answer completes with null
 * for OK and with the ERROR frame otherwise (the waiting thread builds the exception, so its stack trace shows
 * the application's call), or exceptionally when its link is lost ({@link LinkLostException} while the
 * connection reconnects) or the connection is. Request ids run on across reconnections, so an answer is never taken
 * for another link's request.
 */
public final class PendingRequests {
    private final ConcurrentHashMap<Integer, Request> pending = new ConcurrentHashMap<>();
    private final AtomicInteger lastId = new AtomicInteger();
    /** Why every request fails from now on: the connection is closed or lost for good; null before. */
    private volatile ClientException failure;

    /**
     * One request waiting for its answer, and the wait of the thread that sent it: that thread reads the answer
     * itself while the read turn is free ({@link FrameWait}), and is woken when another thread delivers it.
     */
    public static final class Request extends FrameWait {
        public final int id;
        /** The link the request goes out on, whose answer it waits for. */
        public final ConnectedLink on;
        private final CompletableFuture<Frame.Error> answer = new CompletableFuture<>();
        /** The XA_RESULT that answered an XA_PREPARE or XA_RECOVER; written before {@link #answer} completes. */
        private volatile Frame.XaResult xaResult;
        /** The CHANNEL_STATUS that answered a CHANNEL_OPEN; written before {@link #answer} completes. */
        private volatile Frame.ChannelStatus channelStatus;
        /** The STATUS_REPLY that answered a STATUS_REQUEST; written before {@link #answer} completes. */
        private volatile Frame.StatusReply statusReply;

        private Request(int id, ConnectedLink on) {
            super(on.link());
            this.id = id;
            this.on = on;
        }

        /** Completes with null for OK, the ERROR frame otherwise, or exceptionally when the connection is lost. */
        public CompletableFuture<Frame.Error> answer() {
            return answer;
        }

        /** The XA_RESULT of an answered XA_PREPARE or XA_RECOVER; null for any other answer. */
        public Frame.XaResult xaResult() {
            return xaResult;
        }

        /** The CHANNEL_STATUS of an answered CHANNEL_OPEN; null for any other answer. */
        public Frame.ChannelStatus channelStatus() {
            return channelStatus;
        }

        /** The STATUS_REPLY of an answered STATUS_REQUEST; null for any other answer. */
        public Frame.StatusReply statusReply() {
            return statusReply;
        }

        /**
         * {@code answer}, the answer of its own frame ({@code frame}: XA_RESULT, STATUS_REPLY, ...) this request was
         * answered with; a server that answered it OK instead broke the protocol, which this says rather than let a
         * null through.
         *
         * @throws ClientException when {@code answer} is null
         */
        public <T> T required(T answer, String frame) throws ClientException {
            if (answer == null) {
                throw new ClientException("Wharf at " + on.address() + " answered request " + id + " with OK, not the "
                        + frame + " it needs: a server that breaks the protocol", null);
            }
            return answer;
        }

        @Override
        protected boolean isOver() {
            return answer.isDone();
        }

        private void complete(Frame.Error error) {
            answer.complete(error);
            wake();
        }

        private void fail(ClientException cause) {
            answer.completeExceptionally(cause);
            wake();
        }
    }

    /** A fresh request id: positive, so never the fire-and-forget id 0. */
    public int nextId() {
        while (true) {
            int id = lastId.incrementAndGet() & Integer.MAX_VALUE;
            if (id != 0) {
                return id;
            }
        }
    }

    /** Registers a request before it is written on {@code link}; fails at once if the link or the connection is gone. */
    public Request register(int id, ConnectedLink link) {
        Request request = new Request(id, link);
        pending.put(id, request);
        ClientException failed = failure;
        if (failed == null && !link.link().isOpen()) {
            failed = ConnectedLink.reconnecting(link); // ended before failLink could see this request
        }
        if (failed != null && pending.remove(id, request)) {
            request.fail(failed);
        }
        return request;
    }

    /**
     * Completes a request with the server's answer (on the IO thread).
     *
     * @param error null for OK
     * @return false when no request had that id
     */
    public boolean answer(int id, Frame.Error error) {
        Request request = pending.remove(id);
        if (request == null) {
            return false;
        }
        request.complete(error);
        return true;
    }

    /**
     * Completes an XA_PREPARE or XA_RECOVER with the server's XA_RESULT (on the IO thread): as an OK whose
     * {@link Request#xaResult()} is {@code result}.
     *
     * @return false when no request had that id
     */
    public boolean answer(Frame.XaResult result) {
        Request request = pending.remove(result.requestId());
        if (request == null) {
            return false;
        }
        request.xaResult = result;
        request.complete(null);
        return true;
    }

    /**
     * Completes a STATUS_REQUEST with the server's STATUS_REPLY (on the IO thread): as an OK whose
     * {@link Request#statusReply()} is {@code reply}.
     *
     * @return false when no request had that id
     */
    public boolean answer(Frame.StatusReply reply) {
        Request request = pending.remove(reply.requestId());
        if (request == null) {
            return false;
        }
        request.statusReply = reply;
        request.complete(null);
        return true;
    }

    /**
     * Completes a CHANNEL_OPEN with the server's CHANNEL_STATUS (on the IO thread): as an OK whose
     * {@link Request#channelStatus()} is {@code status}.
     *
     * @return false when no request had that id
     */
    public boolean answer(Frame.ChannelStatus status) {
        Request request = pending.remove(status.requestId());
        if (request == null) {
            return false;
        }
        request.channelStatus = status;
        request.complete(null);
        return true;
    }

    /** Gives up on a request (its wait timed out). */
    public void forget(int id) {
        pending.remove(id);
    }

    /** Fails every pending request, and every later one, with {@code cause}. */
    public void failAll(ClientException cause) {
        failure = cause;
        for (Integer id : pending.keySet()) {
            Request request = pending.remove(id);
            if (request != null) {
                request.fail(cause);
            }
        }
    }

    /**
     * {@code link} has ended (it is no longer open): fails every request that went out on it with {@code cause};
     * requests on other links go on. A request registered on it later fails at once ({@link #register}).
     */
    public void failLink(ConnectedLink link, ClientException cause) {
        for (Request request : pending.values()) {
            if (request.on == link && pending.remove(request.id, request)) {
                request.fail(cause);
            }
        }
    }
}
