package org.wharfmq.flow.runtime;

import org.wharfmq.flow.ExceptionList;
import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.Node;
import org.wharfmq.flow.node.FileInputNode;
import org.wharfmq.flow.node.FileOutputNode;
import org.wharfmq.flow.node.HttpInputNode;
import org.wharfmq.flow.node.InputNode;
import org.wharfmq.flow.node.JmsInputNode;
import org.wharfmq.flow.node.JmsOutputNode;
import org.wharfmq.flow.node.SqlNode;

import javax.jms.ConnectionFactory;
import javax.jms.JMSException;
import javax.sql.DataSource;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A flow running over JMS: for each input node, {@code instances} threads, each with its own connection and
 * sessions (see {@link FlowInstance} for what an invocation does and how failures are backed out); for each JMSInput
 * node as many more, each also connected to its other provider ({@link JmsInputReader}); for each FileInput node one
 * ({@link FileInstance}). All are {@link InputReader}s. Each HTTPInput node has {@code instances} threads of its own
 * taking the requests of its path ({@link HttpInput}). Works with any
 * {@link ConnectionFactory}: the server passes its in-VM factory; a standalone application passes one for a
 * remote server.
 *
 * <p>{@link #close()} drains: the instances stop reading, finish the invocation in progress (commit or roll
 * back), and close their connections, which returns prefetched messages to the queue. Nothing is lost or
 * processed twice across a redeploy.
 */
public final class RunningFlow implements AutoCloseable {

    /**
     * Where failing messages go when neither a failure terminal nor a backout queue takes them: the queue manager's
     * dead-letter queue ({@code DeadLetters.QUEUE} in the server, which this engine, usable with any JMS provider,
     * cannot depend on; a server test keeps the two names equal).
     */
    public static final String DEAD_LETTER_QUEUE = "SYSTEM.DEAD.LETTER.QUEUE";

    /**
     * The property of a dead-lettered message whose body was not copied, naming why: {@value}. An ObjectMessage of
     * another provider holds a serialized Java object, which only deserializing it would copy; deserializing what a
     * sender chose runs the code of the classes it names (the provider's client deserializes any class unless told
     * otherwise, Artemis's among them), so the server never does, and the message goes with its headers and
     * properties alone.
     */
    public static final String BODY_NOT_COPIED = "WharfBodyNotCopied";

    private static final System.Logger LOG = System.getLogger(RunningFlow.class.getName());

    private final FlowDefinition definition;
    private final Map<String, DataSource> dataSources;
    private final Map<String, JmsProvider> jmsProviders;
    private final XaCoordination coordination;
    private final int instances;
    private final FlowStatistics statistics;
    private final List<InputReader> readers = new ArrayList<>();
    private final List<FileOutputNode> fileWriters = new ArrayList<>();
    private final List<HttpInput> httpInputs = new ArrayList<>();
    /** The paths the HTTPInput nodes serve, closed first when the flow stops. */
    private final List<AutoCloseable> httpPaths = new ArrayList<>();
    /** The server's requests that wait for a reply from any flow; set at start. */
    private HttpRequests httpRequests = HttpRequests.NONE;
    private final Map<String, ExceptionList> failures = new ConcurrentHashMap<>();
    private final CountDownLatch stopSignal = new CountDownLatch(1);
    private volatile boolean running = true;
    private volatile boolean trace = true;
    /** Its threads ({@link #startThread}) and how its bodies cross the JMS API ({@link #bodies}). */
    private final FlowHosting hosting;

    private RunningFlow(FlowDefinition definition, Map<String, DataSource> dataSources,
                        Map<String, JmsProvider> jmsProviders, XaCoordination coordination, int instances,
                        boolean timing, FlowHosting hosting) {
        this.definition = definition;
        this.hosting = hosting;
        this.dataSources = Map.copyOf(dataSources);
        this.jmsProviders = Map.copyOf(jmsProviders);
        this.coordination = coordination;
        this.instances = instances;
        this.statistics = new FlowStatistics(definition, timing);
    }

    /**
     * Starts the flow and returns when every instance's consumer is open.
     *
     * @param instances threads per input node (at least 1)
     * @param timing    whether statistics measure elapsed and CPU time from the start
     * @param loader    the flow's class loader, made each instance thread's context class loader
     * @throws JMSException when an instance cannot connect or open its consumer (the others are stopped)
     */
    public static RunningFlow start(FlowDefinition definition, ConnectionFactory connectionFactory, int instances,
                                    boolean timing, ClassLoader loader) throws JMSException {
        return start(definition, connectionFactory, Map.of(), instances, timing, loader);
    }

    /**
     * Starts the flow with data sources for its Database nodes and returns when every instance's consumer is open.
     *
     * @param dataSources the data sources its Database nodes may use, by name (the flow host's {@code dataSources})
     * @throws IllegalArgumentException when a Database node names a data source not among {@code dataSources}
     * @see #start(FlowDefinition, ConnectionFactory, int, boolean, ClassLoader)
     */
    public static RunningFlow start(FlowDefinition definition, ConnectionFactory connectionFactory,
                                    Map<String, DataSource> dataSources, int instances, boolean timing,
                                    ClassLoader loader) throws JMSException {
        return start(definition, connectionFactory, dataSources, Map.of(), HttpEndpoints.NONE, null, instances, timing,
                loader);
    }

    /**
     * Starts the flow with data sources for its Database nodes, other JMS providers for its JMSInput and JMSOutput
     * nodes and the HTTP listener its HTTPInput nodes serve their paths on, coordinated or not, and returns when
     * every instance's consumer on Wharf is open and every path is served (a JMSInput node's reader keeps trying its
     * provider after that, so a provider that is down does not stop the flow from starting).
     *
     * @param jmsProviders the JMS providers its JMSInput and JMSOutput nodes may use, by name (the flow host's
     *                     {@code jmsProviders})
     * @param http         where its HTTPInput nodes serve their paths (the server's HTTP listener)
     * @param coordination what its transactional invocations run under when the flow is coordinated (each one XA
     *                     transaction: docs/flows.md, "Coordinated transactions"), or null; then {@code dataSources}
     *                     are XA pools that enlist their connections in the thread's transaction
     * @throws IllegalArgumentException when a node names a data source or JMS provider not given
     * @throws IllegalStateException    when an HTTPInput node's path cannot be served (the flow is stopped again)
     * @see #start(FlowDefinition, ConnectionFactory, Map, int, boolean, ClassLoader)
     */
    public static RunningFlow start(FlowDefinition definition, ConnectionFactory connectionFactory,
                                    Map<String, DataSource> dataSources, Map<String, JmsProvider> jmsProviders,
                                    HttpEndpoints http, XaCoordination coordination, int instances, boolean timing,
                                    ClassLoader loader) throws JMSException {
        return start(definition, connectionFactory, dataSources, jmsProviders, http, coordination, instances, timing,
                loader, FlowHosting.PLAIN);
    }

    /**
     * As {@link #start(FlowDefinition, ConnectionFactory, Map, Map, HttpEndpoints, XaCoordination, int, boolean,
     * ClassLoader)}, on {@code hosting}'s threads and with its way of reading and writing bodies on
     * {@code connectionFactory}'s messages: the flow host's threads are Netty's, whose buffers come from a cache of the
     * thread's own rather than the shared arenas under their locks, and its bodies are handed over, not copied.
     */
    public static RunningFlow start(FlowDefinition definition, ConnectionFactory connectionFactory,
                                    Map<String, DataSource> dataSources, Map<String, JmsProvider> jmsProviders,
                                    HttpEndpoints http, XaCoordination coordination, int instances, boolean timing,
                                    ClassLoader loader, FlowHosting hosting) throws JMSException {
        if (instances < 1) {
            throw new IllegalArgumentException("A flow needs at least 1 instance, was " + instances + ".");
        }
        for (Node node : definition.nodes().values()) {
            if (node instanceof HttpInputNode input && http == HttpEndpoints.NONE) {
                throw HttpEndpoints.noListener(definition.name(), input); // before anything connects or starts
            }
            if (node instanceof SqlNode sql && !dataSources.containsKey(sql.dataSource())) {
                throw new IllegalArgumentException(unknownDataSource(definition.name(), sql.dataSource(), dataSources)
                        .replace("uses", "node '" + node.name() + "' uses"));
            }
        }
        for (Node node : definition.nodes().values()) {
            String provider = node instanceof JmsInputNode in ? in.provider()
                    : node instanceof JmsOutputNode out ? out.provider() : null;
            if (provider != null && !jmsProviders.containsKey(provider)) {
                throw new IllegalArgumentException(unknownProvider(definition.name(), provider, jmsProviders)
                        .replace("uses", "node '" + node.name() + "' uses"));
            }
        }
        RunningFlow flow = new RunningFlow(definition, dataSources, jmsProviders, coordination, instances, timing,
                hosting);
        flow.httpRequests = http.requests();
        flow.openFileWriters();
        int n = 0;
        for (InputNode input : definition.inputNodes()) {
            for (int i = 0; i < instances; i++) {
                String name = "wharf-flow-" + definition.name() + "-" + (++n);
                switch (input.transactionMode()) {
                    case YES -> flow.startReader(name, input, connectionFactory, true, input.selector(), loader);
                    case NO -> flow.startReader(name, input, connectionFactory, false, input.selector(), loader);
                    case AUTOMATIC -> {
                        // one reader per persistence: a non-persistent message then never waits for a commit
                        flow.startReader(name + "p", input, connectionFactory, true,
                                narrow(input.selector(), "JMSDeliveryMode = 'PERSISTENT'"), loader);
                        flow.startReader(name + "n", input, connectionFactory, false,
                                narrow(input.selector(), "JMSDeliveryMode = 'NON_PERSISTENT'"), loader);
                    }
                }
            }
        }
        flow.startFileReaders(connectionFactory, loader);
        for (Node node : definition.nodes().values()) {
            if (node instanceof JmsInputNode input) {
                for (int i = 0; i < instances; i++) {
                    flow.startReader("wharf-flow-" + definition.name() + "-" + input.name() + "-" + (i + 1),
                            new JmsInputReader(flow, input, jmsProviders.get(input.provider()), connectionFactory),
                            loader);
                }
            }
        }
        flow.startHttpInputs(connectionFactory, loader);
        try {
            for (InputReader reader : flow.readers) {
                reader.opened().get(FlowConfiguration.START_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            }
            for (HttpInput input : flow.httpInputs) {
                for (CompletableFuture<Void> opened : input.opened()) {
                    opened.get(FlowConfiguration.START_TIMEOUT_SECONDS, TimeUnit.SECONDS);
                }
            }
        } catch (ExecutionException | TimeoutException | InterruptedException e) {
            flow.close();
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
            JMSException failure = new JMSException("Flow '" + definition.name() + "' cannot start: " + cause);
            failure.initCause(cause);
            throw failure;
        }
        try {
            for (HttpInput input : flow.httpInputs) {
                flow.httpPaths.add(http.serve(definition.name(), input.node(), input::accept));
            }
        } catch (RuntimeException e) {
            flow.close();
            throw e;
        }
        LOG.log(System.Logger.Level.INFO, "Flow '" + definition.name() + "' started with " + instances
                + " instance(s) per input node (" + flow.readers.size() + " reader threads)");
        return flow;
    }

    /** How the bodies of the messages it takes from and sends to the host's provider cross the JMS API. */
    JmsBodies bodies() {
        return hosting.bodies();
    }

    /** The longest message body its server takes ({@link FlowHosting#maxMessageBytes}). */
    int maxMessageBytes() {
        return hosting.maxMessageBytes();
    }

    /** How its non-transactional readers of queues take their messages ({@link FlowInstance#open}). */
    QueueConsumers queueConsumers() {
        return hosting.consumers();
    }

    /** How its readers' sends outside a transaction reach the host's provider ({@link InputReader#openWharf}). */
    PlainSends plainSends() {
        return hosting.sends();
    }

    /** The server's HTTP requests that wait for a reply from any flow. */
    HttpRequests httpRequests() {
        return httpRequests;
    }

    private void startReader(String threadName, InputNode input, ConnectionFactory connectionFactory,
                             boolean transactional, String selector, ClassLoader loader) {
        startReader(threadName, new FlowInstance(this, input, connectionFactory, transactional, selector), loader);
    }

    private void startReader(String threadName, InputReader reader, ClassLoader loader) {
        readers.add(reader);
        startThread(reader, threadName, loader);
    }

    /** Starts a thread of the flow's (a daemon named {@code name}, {@code loader} its context class loader). */
    void startThread(Runnable work, String name, ClassLoader loader) {
        Thread thread = hosting.threads().newThread(work);
        thread.setName(name);
        thread.setDaemon(true);
        thread.setContextClassLoader(loader);
        thread.start();
    }

    /** One reader thread per FileInput node, whatever the instance count (docs/flows.md, "Files"). */
    private void startFileReaders(ConnectionFactory connectionFactory, ClassLoader loader) {
        for (Node node : definition.nodes().values()) {
            if (node instanceof FileInputNode input) {
                startReader("wharf-flow-" + definition.name() + "-" + input.name(),
                        new FileInstance(this, input, connectionFactory), loader);
            }
        }
    }

    /** {@code instances} threads per HTTPInput node (docs/flows.md, "HTTP"); their paths are served once they run. */
    private void startHttpInputs(ConnectionFactory connectionFactory, ClassLoader loader) {
        for (Node node : definition.nodes().values()) {
            if (node instanceof HttpInputNode input) {
                HttpInput requests = new HttpInput(this, input);
                httpInputs.add(requests);
                requests.start(instances, connectionFactory, loader);
            }
        }
    }

    /** Opens the FileOutput nodes (finishing what a crash left) before any message can reach them. */
    private void openFileWriters() throws JMSException {
        for (Node node : definition.nodes().values()) {
            if (node instanceof FileOutputNode output) {
                try {
                    output.open();
                } catch (IOException e) {
                    closeFileWriters();
                    JMSException failure = new JMSException("Flow '" + definition.name() + "' cannot start: " + output
                            + " cannot open " + output.directory() + ": " + e);
                    failure.initCause(e);
                    throw failure;
                }
                fileWriters.add(output);
            }
        }
    }

    /** Finishes the files the FileOutput nodes have open. */
    private void closeFileWriters() {
        for (FileOutputNode output : fileWriters) {
            try {
                output.close();
            } catch (IOException e) {
                LOG.log(System.Logger.Level.ERROR, "Flow '" + name() + "' " + output + " cannot finish its file in "
                        + output.directory() + ": " + e);
            }
        }
        fileWriters.clear();
    }

    private static String narrow(String selector, String condition) {
        return selector == null || selector.isBlank() ? condition : "(" + selector + ") AND " + condition;
    }

    /** Why a flow cannot use data source {@code name}: it is not among {@code dataSources}, and how to add it. */
    static String unknownDataSource(String flowName, String name, Map<String, DataSource> dataSources) {
        return "Flow '" + flowName + "' uses data source '" + name + "', which is not defined (defined: "
                + (dataSources.isEmpty() ? "none" : String.join(", ", new java.util.TreeSet<>(dataSources.keySet())))
                + "). Add it under dataSources: in the server's configuration (docs/flows.md, \"Databases\"); a flow "
                + "run on its own (wharf flow run) has no data sources yet.";
    }

    /** Why a flow cannot use JMS provider {@code name}: it is not among {@code providers}, and how to add it. */
    static String unknownProvider(String flowName, String name, Map<String, JmsProvider> providers) {
        return "Flow '" + flowName + "' uses JMS provider '" + name + "', which is not defined (defined: "
                + (providers.isEmpty() ? "none" : String.join(", ", new java.util.TreeSet<>(providers.keySet())))
                + "). Add it under jmsProviders: in the server's configuration (docs/flows.md, \"Other JMS "
                + "providers\"); a flow run on its own (wharf flow run) has none.";
    }

    /** The other JMS providers its JMSInput and JMSOutput nodes may use, by name. */
    Map<String, JmsProvider> jmsProviders() {
        return jmsProviders;
    }

    /** What its transactional readers run under, when the flow is coordinated; else null. */
    XaCoordination coordination() {
        return coordination;
    }

    /** Whether its transactional invocations are XA transactions (docs/flows.md, "Coordinated transactions"). */
    public boolean coordinated() {
        return coordination != null;
    }

    /** The data sources its Database nodes may use, by name. */
    Map<String, DataSource> dataSources() {
        return dataSources;
    }

    /** The flow's name. */
    public String name() {
        return definition.name();
    }

    /** The definition it runs. */
    public FlowDefinition definition() {
        return definition;
    }

    /** Instances per input node. */
    public int instances() {
        return instances;
    }

    /** The counters. */
    public FlowStatistics statistics() {
        return statistics;
    }

    /** Switches the flow's Trace nodes on or off while it runs (on at start). */
    public void trace(boolean on) {
        trace = on;
    }

    /** Whether Trace nodes write. */
    public boolean traceEnabled() {
        return trace;
    }

    /** Whether the flow runs: false from the moment {@link #close()} begins (its readers then take no more work). */
    public boolean isRunning() {
        return running;
    }

    /** Waits up to {@code millis} for {@link #close()}; true when the flow is stopping. */
    boolean awaitStop(long millis) {
        try {
            return stopSignal.await(millis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return true;
        }
    }

    void rememberFailure(String messageId, ExceptionList list) {
        if (messageId == null) {
            return;
        }
        if (failures.size() >= FlowConfiguration.MAX_REMEMBERED_FAILURES) {
            failures.clear(); // only the text of a later backout suffers; the message itself is safe on its queue
        }
        failures.put(messageId, list);
    }

    ExceptionList takeFailure(String messageId, InputNode input, int deliveryCount) {
        return takeFailure(messageId, input, input.backoutThreshold(), deliveryCount);
    }

    /** The failure remembered for the message, else one saying that its delivery count passed the threshold. */
    ExceptionList takeFailure(String messageId, Node input, int backoutThreshold, int deliveryCount) {
        ExceptionList list = messageId == null ? null : failures.remove(messageId);
        if (list != null) {
            return list;
        }
        return ExceptionList.EMPTY.with(new ExceptionList.Entry(input.name(), input.kind(), "BackoutThreshold",
                "delivery count " + deliveryCount + " passed the backout threshold " + backoutThreshold));
    }

    /**
     * Drains and stops: no new reads, the invocations in progress finish, connections close. Waits up to 60 s.
     */
    @Override
    public void close() {
        for (AutoCloseable path : httpPaths) { // no new requests
            try {
                path.close();
            } catch (Exception e) {
                LOG.log(System.Logger.Level.WARNING, "Flow '" + name() + "' could not stop serving a path: " + e);
            }
        }
        httpPaths.clear();
        running = false;
        stopSignal.countDown();
        readers.forEach(InputReader::stopWaiting);
        List<CompletableFuture<Void>> finished = new ArrayList<>();
        readers.forEach(r -> finished.add(r.finished()));
        httpInputs.forEach(h -> finished.addAll(h.finished()));
        CompletableFuture<?>[] all = finished.toArray(CompletableFuture[]::new);
        try {
            CompletableFuture.allOf(all).get(FlowConfiguration.DRAIN_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            LOG.log(System.Logger.Level.WARNING, "Flow '" + name() + "' did not drain within "
                    + FlowConfiguration.DRAIN_TIMEOUT_SECONDS + " s: " + e);
        }
        httpInputs.forEach(HttpInput::refuseQueued);
        closeFileWriters();
        LOG.log(System.Logger.Level.INFO, "Flow '" + name() + "' stopped");
    }
}
