package org.wharfmq.server.cli;

import org.wharfmq.server.WharfServer;
import org.wharfmq.server.channels.ChannelsPlugin;
import org.wharfmq.server.admin.AdminPlugin;
import org.wharfmq.server.config.ConfigurationException;
import org.wharfmq.server.console.ConsolePlugin;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.flow.FlowHost;
import org.wharfmq.server.http.HttpPlugin;
import org.wharfmq.server.metrics.MetricsPlugin;
import org.wharfmq.server.security.file.SecurityFileRealm;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.net.BindException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/**
 * {@code wharf server}: loads the configuration (the file given, else the built-in defaults), applies the command
 * line overrides, reads the security file it names (watched for changes; none: local anonymous clients only), starts
 * the queue manager with its flow host (the configured flows), its admin plugin (the admin command queue), the web
 * console and the HTTP listener (when the configuration has an {@code http:} block) and
 * stays in the foreground until Ctrl-C or SIGTERM, when it shuts down in order. As a standby ({@code --standby}) it
 * first waits for the queue manager that holds its data directory to stop or die. Prints exactly one line containing
 * {@code ready} on stdout once clients can connect, so scripts can wait for it; logs go to stderr.
 */
@Command(name = "server", mixinStandardHelpOptions = true,
        description = "Runs a queue manager in the foreground until Ctrl-C or SIGTERM.")
final class ServerCommand implements Callable<Integer> {

    /** Exit status for a configuration that cannot be used. */
    static final int BAD_CONFIGURATION = 2;
    /** Exit status for a listener that cannot be opened (port in use). */
    static final int CANNOT_LISTEN = 1;

    @Option(names = "--config", paramLabel = "FILE", description = "YAML configuration file (default: built-in defaults).")
    private Path configFile;

    @Option(names = "--port", paramLabel = "N", description = "TCP port; overrides the configuration (0 = any free port).")
    private Integer port;

    @Option(names = "--data", paramLabel = "DIR", description = "Data directory; overrides the configuration.")
    private Path dataDirectory;

    @Option(names = "--standby", description = "When another queue manager uses the data directory, wait as its standby "
            + "and take over when it stops or dies (setting standby: true).")
    private boolean standby;

    @Override
    public Integer call() throws Exception {
        ConfigurationFile file;
        ServerConfig config;
        try {
            file = configFile == null ? ConfigurationFile.defaults() : ConfigurationFile.load(configFile);
            ServerConfig.Builder settings = file.server().toBuilder();
            if (port != null) {
                settings.port(port);
            }
            if (dataDirectory != null) {
                settings.dataDirectory(dataDirectory);
            }
            if (standby) {
                settings.standby(true);
            }
            config = settings.build();
        } catch (ConfigurationException e) {
            System.err.println("wharf: " + e.getMessage());
            return BAD_CONFIGURATION;
        }
        SecurityFileRealm users;
        try {
            users = file.security() == null ? null : SecurityFileRealm.open(file.security().file());
        } catch (ConfigurationException e) {
            System.err.println("wharf: " + e.getMessage());
            return BAD_CONFIGURATION;
        }
        WharfServer server;
        try {
            HttpPlugin http = new HttpPlugin(file.http());
            FlowHost flows = new FlowHost(file.flowHost(), http);
            ChannelsPlugin channels = new ChannelsPlugin(file.channels());
            AdminPlugin admin = new AdminPlugin(flows.adminCommands(), channels.adminCommands());
            // the channels first (they move messages whatever else runs), the admin plugin after the flows (its
            // command queue opens once they run), the console after the admin plugin (it runs its commands); HTTP last
            // (it listens once every route is registered)
            WharfServer.Starter starter = WharfServer.builder(config).plugins(channels,
                    flows, admin,
                    new ConsolePlugin(http, admin), new MetricsPlugin(http.routes(), flows), http);
            if (users != null) {
                starter.authenticator(users).accessControl(users.accessControl());
            }
            server = starter.start();
        } catch (BindException | IllegalStateException | ConfigurationException e) {
            // ConfigurationException: a file a setting names cannot be used (the TLS keys)
            System.err.println("wharf: " + e.getMessage());
            if (users != null) {
                users.close();
            }
            return e instanceof ConfigurationException ? BAD_CONFIGURATION : CANNOT_LISTEN;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            if (users != null) {
                users.close();
            }
            System.out.println("Wharf queue manager " + config.name() + " stopped");
            System.out.flush();
            stopped.countDown();
        }, "wharf-shutdown"));
        System.out.println("Wharf queue manager " + config.name() + " ready on " + String.join(", ", server.networkUrls()) + " and "
                + server.vmUrl() + " (config " + (configFile == null ? "built-in defaults" : configFile) + ")");
        System.out.flush();
        stopped.await();
        return 0;
    }
}
