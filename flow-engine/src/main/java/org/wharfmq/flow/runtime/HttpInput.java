package org.wharfmq.flow.runtime;

import org.wharfmq.flow.DatabaseUnavailableException;
import org.wharfmq.flow.ExceptionList;
import org.wharfmq.flow.FlowException;
import org.wharfmq.flow.FlowMessage;
import org.wharfmq.flow.Folder;
import org.wharfmq.flow.HttpCaller;
import org.wharfmq.flow.HttpExchange;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.TransactionMode;
import org.wharfmq.flow.node.HttpInputNode;

import javax.jms.Connection;
import javax.jms.ConnectionFactory;
import javax.jms.JMSException;
import javax.jms.Session;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The requests of one {@link HttpInputNode}: a bounded queue that the listener's side fills ({@link #accept}, which
 * never blocks) and {@code instances} threads that take from it, each with its own connection, a transacted session
 * and a plain one for the flow's sends (which go the host's way, {@link PlainSends}), as a queue's reader has; a
 * caller's connection (runAs CALLER) sends over its sessions as they send.
 *
 * <h2>A request</h2>
 * The node's timeout starts when the request is accepted: it completes the answer with 504 unless the flow answered
 * first; a request still queued then is dropped unrun. An invocation runs the flow from the node's {@code out}; when it
 * commits, the answer is the HTTPReply node's reply, or a 500 that says no node replied. When it fails, its sends and
 * database work roll back and its reply is forgotten; the {@code failure} terminal, when wired, runs in a
 * transaction of its own (and may reply); else, or when that fails too, the answer is a 500 naming the flow, or a
 * 503 with {@code Retry-After} when a data source gave no connection ({@link DatabaseUnavailableException}).
 */
final class HttpInput {

    private static final System.Logger LOG = System.getLogger(HttpInput.class.getName());

    private final RunningFlow flow;
    private final HttpInputNode node;
    private final BlockingQueue<HttpExchange> requests =
            new ArrayBlockingQueue<>(FlowConfiguration.MAX_QUEUED_HTTP_REQUESTS);
    private final List<Instance> instances = new ArrayList<>();
    /** The bytes of the bodies of the requests in {@link #requests}: {@link #holdBody}. */
    private final AtomicLong queuedBytes = new AtomicLong();

    HttpInput(RunningFlow flow, HttpInputNode node) {
        this.flow = flow;
        this.node = node;
    }

    HttpInputNode node() {
        return node;
    }

    /** Starts {@code count} instance threads. */
    void start(int count, ConnectionFactory connectionFactory, ClassLoader loader) {
        for (int i = 1; i <= count; i++) {
            Instance instance = new Instance(connectionFactory);
            instances.add(instance);
            flow.startThread(instance, "wharf-flow-" + flow.name() + "-" + node.name() + "-" + i, loader);
        }
    }

    List<CompletableFuture<Void>> opened() {
        return instances.stream().map(i -> i.opened).toList();
    }

    List<CompletableFuture<Void>> finished() {
        return instances.stream().map(i -> i.finished).toList();
    }

    /**
     * Takes a request: queued for an instance, with the node's timeout running. Any thread; never blocks.
     *
     * @return the answer to come
     */
    CompletableFuture<HttpExchange.Reply> accept(HttpExchange request) {
        CompletableFuture<HttpExchange.Reply> answer = request.answer();
        if (!flow.isRunning()) {
            answer.complete(HttpExchange.Reply.text(503, "Flow '" + flow.name() + "' is stopping: try again shortly."));
        } else if (!holdBody(request.body().length)) {
            answer.complete(HttpExchange.Reply.text(503, "Flow '" + flow.name() + "' is busy: the requests that wait "
                    + "for it hold " + queuedBytes.get() + " bytes of bodies already, and this one's "
                    + request.body().length + " would take them past " + FlowConfiguration.MAX_QUEUED_HTTP_REQUEST_BYTES
                    + " (the most one HTTPInput node's waiting requests hold). Try again shortly."));
        } else if (!requests.offer(request)) {
            queuedBytes.addAndGet(-request.body().length);
            answer.complete(HttpExchange.Reply.text(503, "Flow '" + flow.name() + "' is busy: "
                    + FlowConfiguration.MAX_QUEUED_HTTP_REQUESTS + " requests wait for it already. Try again shortly."));
        } else {
            if (node.repliesLater()) {
                flow.httpRequests().await(request);
            }
            answer.completeOnTimeout(HttpExchange.Reply.text(504, "Flow '" + flow.name() + "' did not answer "
                    + request.method() + " " + request.path() + " within its HTTPInput node's timeout ("
                    + node.timeout().toMillis() + " ms). Try again later; if the flow's work takes that long, its "
                    + "owner raises the node's timeout."), node.timeout().toMillis(), TimeUnit.MILLISECONDS);
        }
        return answer;
    }

    /**
     * Counts {@code bytes} of a request's body among those waiting, unless they would take the waiting ones past
     * {@link FlowConfiguration#MAX_QUEUED_HTTP_REQUEST_BYTES} while others wait: then false, nothing counted.
     */
    private boolean holdBody(int bytes) {
        long after = queuedBytes.addAndGet(bytes);
        if (after > FlowConfiguration.MAX_QUEUED_HTTP_REQUEST_BYTES && after != bytes) {
            queuedBytes.addAndGet(-bytes);
            return false;
        }
        return true;
    }

    /** The request an instance takes, its body no longer counted as waiting; null when none came within the poll. */
    private HttpExchange take() throws InterruptedException {
        HttpExchange request = requests.poll(FlowConfiguration.POLL_MILLIS, TimeUnit.MILLISECONDS);
        if (request != null) {
            queuedBytes.addAndGet(-request.body().length);
        }
        return request;
    }

    /** Answers the requests still queued once the instances have stopped. */
    void refuseQueued() {
        for (HttpExchange request; (request = requests.poll()) != null; ) {
            queuedBytes.addAndGet(-request.body().length);
            request.answer().complete(HttpExchange.Reply.text(503, "Flow '" + flow.name() + "' stopped before it "
                    + "took this request: try again."));
        }
    }

    /** A connection as one HTTP caller, with its sessions and the invocation on them; on its instance's thread. */
    private static final class CallerLink {
        private final Connection connection;
        private final Invocation invocation;

        private CallerLink(Connection connection, Invocation invocation) {
            this.connection = connection;
            this.invocation = invocation;
        }

        static CallerLink open(HttpCaller caller, RunningFlow flow, DatabaseWork database) throws JMSException {
            Connection connection = caller.connectionFactory().createConnection();
            try {
                Session transacted = connection.createSession(true, Session.SESSION_TRANSACTED);
                Session plain = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
                return new CallerLink(connection, new Invocation(flow, transacted, plain, database));
            } catch (JMSException | RuntimeException e) {
                FlowInstance.closeQuietly(connection);
                throw e;
            }
        }

        void close() {
            invocation.close();
            FlowInstance.closeQuietly(connection);
        }
    }

    /** One instance thread: takes requests and runs the flow on each. */
    private final class Instance implements Runnable {

        private final ConnectionFactory connectionFactory;
        private final boolean transactional = node.transactionMode() == TransactionMode.YES;
        private final CompletableFuture<Void> opened = new CompletableFuture<>();
        private final CompletableFuture<Void> finished = new CompletableFuture<>();
        private final DatabaseWork database;
        private Connection connection;
        private Invocation invocation;
        /** What makes the plain session's sends go the host's way ({@link PlainSends}); made with the connection. */
        private AutoCloseable plainSends;
        /** Connections as authenticated callers (runAs CALLER), least recently used first. */
        private final Map<String, CallerLink> callers = new LinkedHashMap<>(16, 0.75f, true);

        Instance(ConnectionFactory connectionFactory) {
            this.connectionFactory = connectionFactory;
            this.database = new DatabaseWork(flow.name(), flow.dataSources(), transactional);
        }

        @Override
        public void run() {
            try {
                open();
                opened.complete(null);
            } catch (JMSException | RuntimeException e) {
                opened.completeExceptionally(e);
                close();
                finished.complete(null);
                return;
            }
            long delay = FlowConfiguration.FIRST_RETRY_MILLIS;
            try {
                while (flow.isRunning()) {
                    try {
                        if (connection == null) {
                            open();
                            delay = FlowConfiguration.FIRST_RETRY_MILLIS;
                        }
                        HttpExchange request = take();
                        if (request != null && !request.answer().isDone()) { // done: its timeout answered it
                            process(request);
                        }
                    } catch (JMSException e) {
                        LOG.log(System.Logger.Level.WARNING, "Flow '" + flow.name() + "' " + node + ": " + e
                                + "; connecting again in " + delay + " ms");
                        flow.statistics().reconnects.increment();
                        close();
                        flow.awaitStop(delay);
                        delay = Math.min(delay * 2, FlowConfiguration.MAX_RETRY_MILLIS);
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                close();
                finished.complete(null);
            }
        }

        private void open() throws JMSException {
            connection = connectionFactory.createConnection();
            Session transacted = connection.createSession(true, Session.SESSION_TRANSACTED);
            Session plain = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            plainSends = flow.plainSends().open(flow.name(), plain);
            invocation = new Invocation(flow, transacted, plain, database);
        }

        private void close() {
            callers.values().forEach(CallerLink::close);
            callers.clear();
            PlainSends.closeQuietly(plainSends);
            plainSends = null;
            FlowInstance.closeQuietly(connection);
            connection = null;
        }

        /**
         * The invocation that runs {@code request}: the instance's own (the flow host's authority) for runAs FLOW and
         * for an anonymous caller (whose sends are refused), else one on a connection as the caller, opened on its
         * first request on this instance.
         */
        private Invocation invocationFor(HttpExchange request) throws JMSException {
            if (node.runAs() == HttpInputNode.RunAs.FLOW || request.caller() == null) {
                return invocation;
            }
            CallerLink link = callers.get(request.caller().user());
            if (link == null) {
                link = CallerLink.open(request.caller(), flow, database);
                callers.put(request.caller().user(), link);
                if (callers.size() > FlowConfiguration.MAX_CALLER_CONNECTIONS) {
                    var eldest = callers.entrySet().iterator();
                    eldest.next().getValue().close();
                    eldest.remove();
                }
            }
            return link.invocation;
        }

        private void dropCaller(HttpExchange request) {
            CallerLink link = callers.remove(request.caller().user());
            if (link != null) {
                link.close();
            }
        }

        /** Runs the flow on {@code request}, then answers it. */
        private void process(HttpExchange request) throws JMSException {
            Invocation run;
            try {
                run = invocationFor(request);
            } catch (JMSException | RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "Flow '" + flow.name() + "' cannot connect as user '"
                        + request.user() + "' for " + request.method() + " " + request.path() + ": " + e);
                request.answer().complete(HttpExchange.Reply.text(503, "Flow '" + flow.name() + "' cannot act as "
                        + "user '" + request.user() + "' on the queue manager: " + e.getMessage()));
                return;
            }
            MessageAssembly assembly = assembly(request);
            ExceptionList failure = invoke(run, request, assembly, false);
            if (request.refusal() != null) { // rolled back: the caller may not make one of its sends
                LOG.log(System.Logger.Level.INFO, "Flow '" + flow.name() + "' answered " + request.method() + " "
                        + request.path() + " 403: " + request.refusal());
                request.answer().complete(HttpExchange.Reply.text(403, request.refusal()));
                return;
            }
            if (failure != null && !flow.definition().targets(node, "failure").isEmpty()) {
                ExceptionList failed = invoke(run, request, assembly.withExceptionList(failure), true);
                if (failed == null) {
                    flow.statistics().backouts.increment();
                }
            }
            HttpExchange.Reply reply = request.pendingReply();
            if (reply == null && failure != null) {
                reply = failed(request, failure);
            } else if (reply == null && node.repliesLater()) {
                return; // committed: the request waits for an HTTPReply given its identifier, or its timeout
            } else if (reply == null) {
                reply = HttpExchange.Reply.text(500, "Flow '" + flow.name() + "' finished " + request.method() + " "
                        + request.path() + " without replying: an HTTPReply node downstream of its HTTPInput node "
                        + "answers.");
            }
            request.answer().complete(reply); // false when the timeout answered first: the work is done all the same
        }

        /**
         * The answer to a request whose invocation failed and that nothing replied to: 503 with {@code Retry-After}
         * when a data source gave no connection (the request may succeed later), else 500; why goes to the log.
         */
        private HttpExchange.Reply failed(HttpExchange request, ExceptionList failure) {
            String unavailable = DatabaseUnavailableException.in(failure);
            int status = unavailable == null ? 500 : 503;
            LOG.log(System.Logger.Level.WARNING, "Flow '" + flow.name() + "' failed on " + request.method() + " "
                    + request.path() + ", answered " + status + ":\n" + failure.render());
            if (unavailable != null) {
                return HttpExchange.Reply.retryLater("Flow '" + flow.name() + "' cannot serve " + request.method() + " "
                        + request.path() + " now: " + unavailable + " Try again in "
                        + FlowConfiguration.DATABASE_RETRY_AFTER_SECONDS + " s.",
                        FlowConfiguration.DATABASE_RETRY_AFTER_SECONDS);
            }
            return HttpExchange.Reply.text(500, "Flow '" + flow.name() + "' failed on " + request.method() + " "
                    + request.path() + " (the server log has why).");
        }

        /**
         * One invocation from the node's {@code out}, or its {@code failure} terminal.
         *
         * @return null when it committed, else why it failed (its reply forgotten)
         * @throws JMSException when the connection is gone (the request is answered 503 first)
         */
        private ExceptionList invoke(Invocation invocation, HttpExchange request, MessageAssembly assembly,
                                     boolean failurePath) throws JMSException {
            flow.statistics().invocations.increment();
            invocation.reset(transactional);
            invocation.answering(request, node.runAs() == HttpInputNode.RunAs.CALLER);
            try {
                if (failurePath) {
                    invocation.runFrom(node, "failure", assembly);
                } else {
                    invocation.run(node, "out", assembly);
                }
                if (request.refusal() != null) { // a node caught the refusal: the invocation fails all the same
                    throw new IllegalStateException(request.refusal());
                }
                invocation.commit();
                return null;
            } catch (FlowException | SQLException | RuntimeException e) {
                flow.statistics().failures.increment();
                request.discardReply();
                try {
                    invocation.rollback();
                } catch (JMSException gone) {
                    return lost(invocation, request, gone);
                }
                return e instanceof FlowException fe && !fe.exceptionList().isEmpty() ? fe.exceptionList()
                        : ExceptionList.of(node, e);
            } catch (JMSException e) {
                request.discardReply();
                return lost(invocation, request, e);
            } finally {
                invocation.release();
            }
        }

        /**
         * A connection lost under an invocation: the request is answered 503; a caller's connection is closed (the
         * next request as that caller connects again), the instance's own is thrown for the instance to reconnect.
         */
        private ExceptionList lost(Invocation invocation, HttpExchange request, JMSException e) throws JMSException {
            request.answer().complete(HttpExchange.Reply.text(503, "Flow '" + flow.name() + "' lost its "
                    + "connection to the queue manager: try again."));
            if (invocation == this.invocation) {
                throw e;
            }
            dropCaller(request);
            return ExceptionList.of(node, e);
        }

        private MessageAssembly assembly(HttpExchange request) {
            MessageAssembly assembly = MessageAssembly.of(FlowMessage.ofBytes(node.domain(), request.body()),
                    Folder.empty("Environment"));
            Folder local = assembly.localEnvironment();
            local.set(HttpInputNode.METHOD, request.method()).set(HttpInputNode.PATH, request.path())
                    .set(HttpInputNode.QUERY, request.query()).set(HttpInputNode.HEADERS, request.headers());
            if (request.user() != null) {
                local.set(HttpInputNode.USER, request.user());
            }
            if (node.repliesLater()) {
                local.set(HttpInputNode.REQUEST_ID, request.id());
                assembly.message().setUserProperty(HttpInputNode.REQUEST_ID, request.id());
            }
            return assembly;
        }
    }
}
