package org.wharfmq.server.it;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.ServerPlugin;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.admin.AdminPlugin;
import org.wharfmq.server.cli.ConfigurationFile;
import org.wharfmq.server.flow.FlowHost;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.security.Authenticator;

import javax.jms.Connection;
import javax.jms.ConnectionFactory;
import javax.jms.JMSException;
import javax.jms.Session;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

/**
 * One real server per test class (register as a static {@code @RegisterExtension} field). Connections opened
 * through {@link #connect} are closed after each test, so a test that fails half-way leaks nothing into the next;
 * {@link #queueName} gives every test queues of its own, so tests sharing the server never see each other's
 * messages.
 */
final class WharfServerExtension implements BeforeAllCallback, AfterAllCallback, AfterEachCallback {

    /** The system property that, {@code false}, starts the servers without a flow host ({@link #plugins}). */
    static final String FLOW_HOST_PROPERTY = "wharf.it.flowHost";

    private final UnaryOperator<ServerConfig.Builder> customizer;
    private final Authenticator users;
    private final List<Connection> openConnections = new CopyOnWriteArrayList<>();
    private final AtomicInteger queueSequence = new AtomicInteger();
    private TestServer testServer;

    private WharfServerExtension(UnaryOperator<ServerConfig.Builder> customizer, Authenticator users) {
        this.customizer = customizer;
        this.users = users;
    }

    /** A server with the test defaults (auto-created queues, default limits), no users (local clients only). */
    static WharfServerExtension withDefaults() {
        return new WharfServerExtension(UnaryOperator.identity(), Authenticator.localOnly());
    }

    /** A server with the test defaults whose users {@code users} knows ({@link org.wharfmq.server.TestUsers}). */
    static WharfServerExtension withUsers(Authenticator users) {
        return new WharfServerExtension(UnaryOperator.identity(), users);
    }

    /** A server whose config {@code customizer} adjusts (limits, predefined queues, auto-create off). */
    static WharfServerExtension configured(UnaryOperator<ServerConfig.Builder> customizer) {
        return new WharfServerExtension(customizer, Authenticator.localOnly());
    }

    /** A server whose config {@code customizer} adjusts and whose users {@code users} knows. */
    static WharfServerExtension configured(UnaryOperator<ServerConfig.Builder> customizer, Authenticator users) {
        return new WharfServerExtension(customizer, users);
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        testServer = TestServer.start(customizer, config -> WharfServer.builder(config).authenticator(users).plugins(plugins()).start());
    }

    /**
     * A flow host and the admin plugin, as the distribution runs them (wharf admin, wharf flow, wharf topic list),
     * unless the system property {@value #FLOW_HOST_PROPERTY} is {@code false}: jms-client/jakarta-tests runs the
     * JMS-level tests of this package against the jakarta client, whose class path has no javax client for them to
     * run on (they are then never loaded).
     */
    private static ServerPlugin[] plugins() {
        if (!Boolean.parseBoolean(System.getProperty(FLOW_HOST_PROPERTY, "true"))) {
            return new ServerPlugin[0];
        }
        FlowHost flows = new FlowHost();
        return new ServerPlugin[] {flows, new AdminPlugin(ConfigurationFile.BUILT_IN,
                ConfigurationFile.defaults()::componentSettings, flows.adminCommands())};
    }

    @Override
    public void afterEach(ExtensionContext context) {
        List<Connection> toClose = List.copyOf(openConnections);
        openConnections.clear();
        for (Connection connection : toClose) {
            Closing.closeWithin(connection, "connection");
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (testServer != null) {
            Closing.closeWithin(testServer, "server");
        }
    }

    WharfServer server() {
        return testServer.server();
    }

    ConnectionFactory factory(Transport transport) {
        return new WharfConnectionFactory(transport.url(server()));
    }

    /** A started connection, closed after the test. */
    Connection connect(Transport transport) throws JMSException {
        Connection connection = track(factory(transport).createConnection());
        connection.start();
        return connection;
    }

    /**
     * An AUTO_ACKNOWLEDGE session of a started connection to {@code url} (this server's, with options, or a proxy's in
     * front of it), closed after the test.
     */
    Session startedSession(String url) throws JMSException {
        Connection connection = track(new WharfConnectionFactory(url).createConnection());
        connection.start();
        return connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
    }

    /** Registers a connection made some other way (through a proxy, JNDI) to be closed after the test. */
    Connection track(Connection connection) {
        openConnections.add(connection);
        return connection;
    }

    /** A queue name no other test of this server uses. */
    String queueName(String purpose) {
        return purpose.toUpperCase(java.util.Locale.ROOT) + "." + queueSequence.incrementAndGet();
    }

    /** Messages on the named queue, as the queue manager counts them. */
    long depth(String queueName) {
        return server().queueManager().depth(queueName);
    }
}
