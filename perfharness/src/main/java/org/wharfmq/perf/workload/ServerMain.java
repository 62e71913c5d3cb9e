package org.wharfmq.perf.workload;

import org.wharfmq.flow.runtime.FlowStatistics;
import org.wharfmq.perf.driver.Driver;
import org.wharfmq.perf.driver.DriverResult;
import org.wharfmq.perf.driver.Provider;
import org.wharfmq.perf.flow.BenchmarkDatabase;
import org.wharfmq.perf.flow.BenchmarkFlow;
import org.wharfmq.perf.flow.FileFlow;
import org.wharfmq.perf.flow.FileOutputFlow;
import org.wharfmq.perf.flow.JmsFlow;
import org.wharfmq.perf.options.OptionException;
import org.wharfmq.perf.options.PerfOptions;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.admin.AdminPlugin;
import org.wharfmq.server.channels.ChannelSettings;
import org.wharfmq.server.channels.ChannelsPlugin;
import org.wharfmq.server.cli.ConfigurationFile;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.flow.DataSourceConfig;
import org.wharfmq.server.flow.FlowHost;
import org.wharfmq.server.flow.FlowHostSettings;
import org.wharfmq.server.http.HttpPlugin;
import org.wharfmq.server.http.HttpSettings;
import org.wharfmq.server.metrics.MetricsPlugin;
import org.wharfmq.server.security.file.SecurityFileRealm;
import org.wharfmq.server.store.JournalOpening;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * {@code wharf perf server [--port N] [--in-vm NAME] [--tls ENGINE] [--security rules] [--metrics on|scrape]
 * [--flow F-ID [--flow-instances N] [--persistent BOOL] [--jms-provider URL]] [--config WHARF.YAML]
 * [--driver "DRIVER ARGS"]...}:
 * a Wharf queue manager for the workload runner (with {@code --config}, the one a wharf.yaml describes, its channels
 * and security file included, in a fresh data directory: a queue manager of RR-5's pair, {@link QueueManagerPair}), optionally running one of the harness's message flows
 * ({@link BenchmarkFlow}) and hosting drivers in its own JVM over {@code vm://} (RR-1, RR-2's responders, RR-3).
 * ({@code --persistent}: the run's messages are, which F-FILE's and F-JMS's input nodes follow; {@code --jms-provider}:
 * the Wharf server F-JMS's nodes use as the other JMS provider).
 * Deploys the flow, prints {@code wharf-perf: server ready tcp=URL vm=URL} (F-FILE: and {@code files=DIR}, the
 * folder its feeders write to), starts the drivers one after the other
 * (each waits for the previous one to connect; with {@code --security rules} the line also says
 * {@code user=U password=P}, the {@link BenchmarkSecurity} user the network drivers log in as), prints {@code wharf-perf: driver done id=ID passed=BOOL} as each
 * one ends, and stops when standard input closes (or {@link #stop()}); with a flow it prints, just before
 * stopping, {@code wharf-perf: flow F-ID invocations=N failures=N backouts=N input-depth=N output-depth=N}; then, with
 * or without a flow, the most its queues held against its memory budget ({@link MemoryWatch#line()}).
 * With {@code --metrics on} it runs the distribution's metrics and HTTP listener (on a free port of 127.0.0.1); with
 * {@code --metrics scrape} also a thread of its own that scrapes {@code /metrics} every {@value #SCRAPE_INTERVAL_MILLIS} ms, as a Prometheus would:
 * what metrics cost a running server (docs/performance-log.md).
 */
public final class ServerMain {

    /** Prefix of the line printed once the server accepts connections. */
    public static final String READY_PREFIX = "wharf-perf: server ready";
    /** Prefix of the line printed when a hosted driver ends. */
    public static final String DRIVER_DONE_PREFIX = "wharf-perf: driver done";
    /** Prefix of the line with the flow's counts, printed when a server running a flow stops. */
    public static final String FLOW_PREFIX = "wharf-perf: flow";
    /**
     * Prefix of the line a server started with {@code --config} prints as it stops: each sender channel's messages
     * confirmed by its partner, {@code wharf-perf: channels NAME=N ...} (the runner's check that the messages crossed).
     */
    public static final String CHANNELS_PREFIX = "wharf-perf: channels";
    /** The field of the ready line with the HTTP listener's URL, when the flow serves a path on it (F-HTTP). */
    static final String HTTP_FIELD = "http";
    /** The field of the ready line with the folder the flow takes its files from (F-FILE). */
    static final String FILES_FIELD = "files";
    /** The field of the flow's line with F-FILE-OUT's records in its files (once its node finished the open one). */
    static final String FILE_WORK = "file-work";
    /** The field of the flow's line with a database workload's rows inserted or updates made. */
    static final String DATABASE_WORK = "database-work";
    /**
     * The field of the flow's line with the bytes the server's live threads had allocated when the clients stopped
     * (its start included: a fixed cost, small only in a run of tens of thousands of invocations).
     */
    static final String ALLOCATED = "allocated";
    /** How often {@code --metrics scrape} scrapes {@code /metrics}, in ms: every second, 15 times Prometheus' default. */
    static final long SCRAPE_INTERVAL_MILLIS = 1_000;
    /**
     * The perf server's {@code maxConnections} and {@code maxConnectionsPerAddress}: every client of a run comes from
     * 127.0.0.1, so the stock 1,000 per address would refuse RR-RATED's steps past it (and {@code perf footprint}'s
     * connections). A server with thousands of clients behind one address needs both raised in its wharf.yaml.
     */
    static final int MAX_CONNECTIONS = 100_000;
    /**
     * The perf server's {@code handshakeTimeoutMillis}: 60 s, where the stock 10 s closed a rated requester whose
     * handshake (accept to HELLO_OK) a machine at load 50 to 60 took longer over, while hundreds of others connected
     * and the JITs compiled. The stock limit is a defence against clients that connect and stay silent; the harness's
     * clients are its own, and wait for their logins as long ({@link Provider#CONNECT_TIMEOUT_MILLIS}).
     */
    static final int HANDSHAKE_TIMEOUT_MILLIS = Provider.CONNECT_TIMEOUT_MILLIS;

    /**
     * The lines of a {@code wharf.yaml} the harness writes for a server of its own (RR-5's and OW-5's two queue
     * managers, the replicated peer's members) with the limits this class gives the servers it configures itself:
     * {@link #MAX_CONNECTIONS} and {@link #HANDSHAKE_TIMEOUT_MILLIS}. Without them RR-5's queue managers kept the stock
     * 10 s handshake timeout, and at load 40 to 70 a responder's or requester's login to them was closed by it.
     */
    static String limitsYaml() {
        return "maxConnections: " + MAX_CONNECTIONS + "\n"
                + "maxConnectionsPerAddress: " + MAX_CONNECTIONS + "\n"
                + "handshakeTimeoutMillis: " + HANDSHAKE_TIMEOUT_MILLIS + "\n";
    }

    private final List<String> args;
    private final PrintStream out;
    private final CountDownLatch stopSignal = new CountDownLatch(1);

    /** A server configured by {@code args}, printing to {@code out}. */
    public ServerMain(List<String> args, PrintStream out) {
        this.args = List.copyOf(args);
        this.out = out;
    }

    /** The {@code wharf perf server} command: runs until standard input closes. */
    public static int run(String[] args) throws Exception {
        ServerMain server = new ServerMain(Arrays.asList(args), System.out);
        org.wharfmq.perf.driver.StdinClose.then(server::stop, "perf-server-stdin");
        return server.run();
    }

    /** Asks the server (and its hosted drivers) to finish. */
    public void stop() {
        stopSignal.countDown();
    }

    /** Runs until {@link #stop()}; returns 0, or 1 if a hosted driver's check failed. */
    public int run() throws Exception {
        int port = 0;
        String inVm = "wharf-perf";
        BenchmarkFlow flow = null;
        int flowInstances = 1;
        String tlsEngine = null;
        String security = null;
        String metrics = null;
        boolean persistent = false;
        String jmsProvider = null;
        Path configFile = null;
        List<List<String>> driverArgs = new ArrayList<>();
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (i + 1 >= args.size()) {
                throw new OptionException("server: " + a + " needs a value");
            }
            switch (a) {
                case "--port" -> port = Integer.parseInt(args.get(++i));
                case "--in-vm" -> inVm = args.get(++i);
                case "--driver" -> driverArgs.add(Arrays.asList(args.get(++i).trim().split("\\s+")));
                case "--flow" -> flow = BenchmarkFlow.of(args.get(++i));
                case "--flow-instances" -> flowInstances = Integer.parseInt(args.get(++i));
                case "--persistent" -> persistent = Boolean.parseBoolean(args.get(++i));
                case "--jms-provider" -> jmsProvider = args.get(++i);
                case "--tls" -> tlsEngine = args.get(++i);
                case "--security" -> security = args.get(++i);
                case "--metrics" -> metrics = args.get(++i);
                case "--config" -> configFile = Path.of(args.get(++i));
                default -> throw new OptionException("server: unknown option " + a);
            }
        }
        ConfigurationFile file = configFile == null ? null : ConfigurationFile.load(configFile);
        if (file != null && security != null) {
            throw new OptionException("server: --config " + configFile + " names its own security file: leave --security out");
        }
        Path data = Files.createTempDirectory("wharf-perf-data");
        ServerConfig.Builder builder = file != null ? file.server().toBuilder().dataDirectory(data)
                : ServerConfig.builder().host("127.0.0.1").port(port).inVmName(inVm).dataDirectory(data)
                .maxConnections(MAX_CONNECTIONS).maxConnectionsPerAddress(MAX_CONNECTIONS)
                .handshakeTimeoutMillis(HANDSHAKE_TIMEOUT_MILLIS);
        SelfSignedTls tls = tlsEngine == null ? null : SelfSignedTls.create();
        if (tls != null) {
            builder.tls(tls.config(tlsEngine));
        }
        BenchmarkSecurity users = null;
        if ("rules".equals(security)) {
            users = BenchmarkSecurity.create(data);
        } else if (security != null) {
            throw new OptionException("server: --security " + security + ": the one setting is rules");
        }
        if (metrics != null && !metrics.equals("scrape") && !metrics.equals("on")) {
            throw new OptionException("server: --metrics " + metrics + ": on (running, not scraped) or scrape");
        }
        ServerConfig config = builder.build();
        SecurityFileRealm realm = users != null ? SecurityFileRealm.open(users.file())
                : file != null && file.security() != null ? SecurityFileRealm.open(file.security().file()) : null;
        List<Driver> drivers = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        java.util.concurrent.atomic.AtomicBoolean failed = new java.util.concurrent.atomic.AtomicBoolean();
        String database = flow == null || flow.database() == null ? null : BenchmarkDatabase.url(data.resolve("h2"));
        boolean flowPaths = flow != null && flow.httpPath() != null;
        HttpPlugin http = new HttpPlugin(metrics == null && !flowPaths ? null : HttpSettings.on("127.0.0.1"));
        // with the admin plugin, as in the distribution (the admin command queue); F-HTTP's flow serves its path on the
        // HTTP listener
        if (flow != null && flow.usesOtherProvider() && jmsProvider == null) {
            throw new OptionException("server: --flow " + flow.id() + " needs --jms-provider URL, the other provider's server");
        }
        // the journal opens while the plugins are made and prepared, as wharf server does (JournalOpening)
        JournalOpening journal = JournalOpening.begin(config);
        FlowHostSettings flowSettings = flowHostSettings(flow, database, data, jmsProvider);
        FlowHost flowHost = flowPaths ? new FlowHost(flowSettings, http) : new FlowHost(flowSettings);
        ChannelsPlugin channels = new ChannelsPlugin(file == null ? ChannelSettings.none() : file.channels());
        AdminPlugin admin = new AdminPlugin(flowHost.adminCommands(), channels.adminCommands());
        WharfServer.Starter starter = metrics != null
                ? WharfServer.builder(config).plugins(channels, flowHost, admin,
                new MetricsPlugin(http.routes(), flowHost, channels, null), http) // as wharf server starts them
                : flowPaths ? WharfServer.builder(config).plugins(channels, flowHost, admin, http)
                : WharfServer.builder(config).plugins(channels, flowHost, admin);
        if (realm != null) {
            starter.authenticator(realm).accessControl(realm.accessControl());
        }
        admin.prepare();
        starter.store(journal.take());
        try (WharfServer server = starter.start(); MemoryWatch memory = MemoryWatch.start(server.queueManager().memoryBudget())) {
            if (flow != null) {
                flowHost.deploy(flow.factory(data, persistent), flowInstances);
            }
            out.println(READY_PREFIX + " tcp=" + server.tcpUrl() + " vm=" + server.vmUrl()
                    + (tls == null ? "" : " tls=" + server.tlsUrl() + "?" + tls.clientOptions())
                    + (users == null ? "" : " user=" + BenchmarkSecurity.USER + " password=" + users.password())
                    + (metrics == null ? "" : " metrics=" + http.url() + MetricsPlugin.PATH)
                    + (flowPaths ? " " + HTTP_FIELD + "=" + http.url() : "")
                    + (flow == null || flow.inputDirectory(data) == null ? "" : " " + FILES_FIELD + "=" + flow.inputDirectory(data))
                    + " qm=" + config.name() + " pid=" + ProcessHandle.current().pid());
            out.flush();
            Thread scraper = !"scrape".equals(metrics) ? null : scraper(URI.create(http.url() + MetricsPlugin.PATH));
            for (List<String> a : driverArgs) {
                PerfOptions options = PerfOptions.parse(a.toArray(String[]::new));
                Driver driver = new Driver(options, out);
                drivers.add(driver);
                Thread t = new Thread(() -> {
                    try {
                        DriverResult r = driver.run();
                        if (!r.passed()) {
                            failed.set(true);
                        }
                        out.println(DRIVER_DONE_PREFIX + " id=" + options.processId() + " passed=" + r.passed());
                    } catch (Exception e) {
                        failed.set(true);
                        out.println(DRIVER_DONE_PREFIX + " id=" + options.processId() + " passed=false error=" + e);
                    }
                    out.flush();
                }, "perf-hosted-" + options.processId());
                t.start();
                threads.add(t);
                if (!driver.awaitReady(120, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("hosted driver " + options.processId() + " did not connect in 120 s");
                }
            }
            stopSignal.await();
            if (scraper != null) {
                scraper.interrupt();
            }
            drivers.forEach(Driver::stop);
            for (Thread t : threads) {
                t.join(TimeUnit.MINUTES.toMillis(2));
            }
            if (flow != null) {
                printFlowCounts(server, flowHost, flow, database, data);
            }
            memory.close();
            out.println(memory.line());
            out.flush();
            if (file != null) {
                StringBuilder line = new StringBuilder(CHANNELS_PREFIX);
                channels.status().stream().filter(c -> c.type().equals("sender"))
                        .forEach(c -> line.append(' ').append(c.name()).append('=').append(c.messages()));
                out.println(line);
                out.flush();
            }
        } finally {
            if (realm != null) {
                realm.close();
            }
            TempFiles.deleteTree(data);
        }
        return failed.get() ? 1 : 0;
    }

    /** Starts a thread that GETs {@code metrics} every {@link #SCRAPE_INTERVAL_MILLIS} until interrupted. */
    private Thread scraper(URI metrics) {
        Thread t = new Thread(() -> {
            HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            HttpRequest scrape = HttpRequest.newBuilder(metrics).build();
            long scrapes = 0;
            try {
                while (!Thread.currentThread().isInterrupted()) {
                    HttpResponse<Void> answer = client.send(scrape, HttpResponse.BodyHandlers.discarding());
                    if (answer.statusCode() != 200) {
                        throw new IllegalStateException("GET " + metrics + " answered " + answer.statusCode());
                    }
                    scrapes++;
                    Thread.sleep(SCRAPE_INTERVAL_MILLIS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // the server stops
            } catch (Exception e) {
                out.println("wharf-perf: scraping " + metrics + " failed after " + scrapes + " scrapes: " + e);
                out.flush();
            }
        }, "perf-metrics-scraper");
        t.setDaemon(true);
        t.start();
        return t;
    }

    /**
     * The flow host's settings: the defaults; for a database workload its data source
     * ({@value BenchmarkDatabase#DATA_SOURCE}) on the H2 at {@code database} (XA when
     * {@value BenchmarkDatabase#XA_PROPERTY} says so), whose tables are created first; for
     * F-FILE and F-FILE-OUT their folder (created) as the one directory flows may use; for F-JMS the other provider, the Wharf server
     * at {@code jmsProvider}.
     */
    private static FlowHostSettings flowHostSettings(BenchmarkFlow flow, String database, Path data, String jmsProvider)
            throws SQLException, java.io.IOException {
        FlowHostSettings settings = FlowHostSettings.defaults();
        if (database != null) {
            flow.database().create(database);
            settings = settings.withDataSources(List.of(new DataSourceConfig(BenchmarkDatabase.DATA_SOURCE,
                    database, BenchmarkDatabase.user(), BenchmarkDatabase.PASSWORD)
                    .withXa(Boolean.getBoolean(BenchmarkDatabase.XA_PROPERTY))));
        }
        Path files = flow == null ? null : flow.inputDirectory(data) != null ? flow.inputDirectory(data)
                : flow.outputDirectory(data);
        if (files != null) {
            settings = settings.withFileDirectories(List.of(Files.createDirectories(files).getParent()));
        }
        if (jmsProvider != null) {
            settings = settings.withJmsProviders(List.of(JmsFlow.provider(jmsProvider)));
        }
        return settings;
    }

    /**
     * The flow's counts once the clients have stopped: the runner checks one invocation per request, and for a
     * database workload one row inserted or update made per invocation ({@code database-work=N}).
     */
    private void printFlowCounts(WharfServer server, FlowHost flowHost, BenchmarkFlow flow, String database, Path data)
            throws SQLException, java.io.IOException {
        Path files = flow.inputDirectory(data);
        Path written = flow.outputDirectory(data);
        FlowStatistics stats = flowHost.flow(flow.id()).running().statistics();
        long allocated = allocatedByLiveThreads(); // the flow's threads among them
        flowHost.undeploy(flow.id()); // drains: every message read has been processed and its output sent
        out.println(FLOW_PREFIX + " " + flow.id() + " invocations=" + stats.invocations() + " failures=" + stats.failures()
                + " backouts=" + stats.backouts() + " input-depth=" + (files != null ? filesLeft(files) : depth(server, flow.inputQueue()))
                + " output-depth=" + depth(server, flow.outputQueue())
                + (database == null || flow.database().count() == null ? "" : " " + DATABASE_WORK + "=" + flow.database().count(database))
                + (written == null ? "" : " " + FILE_WORK + "=" + FileOutputFlow.records(written))
                + " " + ALLOCATED + "=" + allocated);
        out.flush();
    }

    /** The bytes this JVM's live threads have allocated so far (HotSpot's count per thread). */
    private static long allocatedByLiveThreads() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long total = 0;
        for (long bytes : threads.getThreadAllocatedBytes(threads.getAllThreadIds())) {
            total += Math.max(0, bytes); // -1: a thread that ended meanwhile
        }
        return total;
    }

    /** F-FILE's input depth: the files its node has not taken (still in its folder, not archived). */
    private static long filesLeft(Path folder) throws java.io.IOException {
        try (var files = Files.list(folder)) {
            return files.filter(Files::isRegularFile).filter(f -> f.getFileName().toString().endsWith(FileFlow.SUFFIX)).count();
        }
    }

    private static long depth(WharfServer server, String queue) {
        return queue != null && server.queueManager().exists(queue) ? server.queueManager().depth(queue) : 0;
    }
}
