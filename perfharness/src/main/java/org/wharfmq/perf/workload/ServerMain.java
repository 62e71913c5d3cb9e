package org.wharfmq.perf.workload;

import org.wharfmq.flow.runtime.FlowStatistics;
import org.wharfmq.perf.driver.Driver;
import org.wharfmq.perf.driver.DriverResult;
import org.wharfmq.perf.flow.BenchmarkFlow;
import org.wharfmq.perf.options.OptionException;
import org.wharfmq.perf.options.PerfOptions;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.admin.AdminPlugin;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.flow.FlowHost;
import org.wharfmq.server.http.HttpPlugin;
import org.wharfmq.server.http.HttpSettings;
import org.wharfmq.server.metrics.MetricsPlugin;
import org.wharfmq.server.security.file.SecurityFileRealm;

import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * {@code wharf perf server [--port N] [--in-vm NAME] [--tls ENGINE] [--security rules] [--metrics on|scrape]
 * [--flow F-ID [--flow-instances N]]
 * [--driver "DRIVER ARGS"]...}:
 * a Wharf queue manager for the workload runner, optionally running one of the harness's message flows
 * ({@link BenchmarkFlow}) and hosting drivers in its own JVM over {@code vm://} (RR-1, RR-2's responders, RR-3).
 * Deploys the flow, prints {@code wharf-perf: server ready tcp=URL vm=URL}, starts the drivers one after the other
 * (each waits for the previous one to connect; with {@code --security rules} the line also says
 * {@code user=U password=P}, the {@link BenchmarkSecurity} user the network drivers log in as), prints {@code wharf-perf: driver done id=ID passed=BOOL} as each
 * one ends, and stops when standard input closes (or {@link #stop()}); with a flow it prints, just before
 * stopping, {@code wharf-perf: flow F-ID invocations=N failures=N backouts=N input-depth=N output-depth=N}.
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
    /** How often {@code --metrics scrape} scrapes {@code /metrics}, in ms: every second, 15 times Prometheus' default. */
    static final long SCRAPE_INTERVAL_MILLIS = 1_000;
    /**
     * The perf server's {@code maxConnections} and {@code maxConnectionsPerAddress}: every client of a run comes from
     * 127.0.0.1, so the stock 1,000 per address would refuse RR-RATED's steps past it (and {@code perf footprint}'s
     * connections). A server with thousands of clients behind one address needs both raised in its wharf.yaml.
     */
    static final int MAX_CONNECTIONS = 100_000;

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
                case "--tls" -> tlsEngine = args.get(++i);
                case "--security" -> security = args.get(++i);
                case "--metrics" -> metrics = args.get(++i);
                default -> throw new OptionException("server: unknown option " + a);
            }
        }
        Path data = Files.createTempDirectory("wharf-perf-data");
        ServerConfig.Builder builder = ServerConfig.builder().host("127.0.0.1").port(port).inVmName(inVm).dataDirectory(data)
                .maxConnections(MAX_CONNECTIONS).maxConnectionsPerAddress(MAX_CONNECTIONS);
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
        SecurityFileRealm realm = users == null ? null : SecurityFileRealm.open(users.file());
        List<Driver> drivers = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        java.util.concurrent.atomic.AtomicBoolean failed = new java.util.concurrent.atomic.AtomicBoolean();
        FlowHost flowHost = new FlowHost(); // with the admin plugin, as in the distribution (the admin command queue)
        HttpPlugin http = new HttpPlugin(metrics == null ? null : HttpSettings.on("127.0.0.1"));
        WharfServer.Starter starter = metrics == null
                ? WharfServer.builder(config).plugins(flowHost, new AdminPlugin(flowHost.adminCommands()))
                : WharfServer.builder(config).plugins(flowHost, new AdminPlugin(flowHost.adminCommands()),
                new MetricsPlugin(http.routes(), flowHost, null), http); // as wharf server starts them
        if (realm != null) {
            starter.authenticator(realm).accessControl(realm.accessControl());
        }
        try (WharfServer server = starter.start()) {
            if (flow != null) {
                flowHost.deploy(flow.factory(), flowInstances);
            }
            out.println(READY_PREFIX + " tcp=" + server.tcpUrl() + " vm=" + server.vmUrl()
                    + (tls == null ? "" : " tls=" + server.tlsUrl() + "?" + tls.clientOptions())
                    + (users == null ? "" : " user=" + BenchmarkSecurity.USER + " password=" + users.password())
                    + (metrics == null ? "" : " metrics=" + http.url() + MetricsPlugin.PATH)
                    + " pid=" + ProcessHandle.current().pid());
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
                printFlowCounts(server, flowHost, flow);
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

    /** The flow's counts once the clients have stopped: the runner checks one invocation per request. */
    private void printFlowCounts(WharfServer server, FlowHost flowHost, BenchmarkFlow flow) {
        FlowStatistics stats = flowHost.flow(flow.id()).running().statistics();
        flowHost.undeploy(flow.id()); // drains: every message read has been processed and its output sent
        out.println(FLOW_PREFIX + " " + flow.id() + " invocations=" + stats.invocations() + " failures=" + stats.failures()
                + " backouts=" + stats.backouts() + " input-depth=" + depth(server, flow.inputQueue())
                + " output-depth=" + depth(server, flow.outputQueue()));
        out.flush();
    }

    private static long depth(WharfServer server, String queue) {
        return queue != null && server.queueManager().exists(queue) ? server.queueManager().depth(queue) : 0;
    }
}
