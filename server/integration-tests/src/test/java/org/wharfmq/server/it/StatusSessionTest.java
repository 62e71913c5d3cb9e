package org.wharfmq.server.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.client.core.ClientException;
import org.wharfmq.client.core.ConnectionListener;
import org.wharfmq.client.core.ConnectionSettings;
import org.wharfmq.client.core.CoreConnection;
import org.wharfmq.client.core.transport.BrokerAddress;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.jms.WharfStatusSession;
import org.wharfmq.protocol.auth.ScramCredential;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.security.Logins;
import org.wharfmq.server.security.file.SecurityFileRealm;
import org.wharfmq.server.transport.ReplicaStatus;
import org.wharfmq.server.transport.StatusListener;

import javax.jms.Connection;
import javax.jms.JMSException;
import javax.jms.JMSSecurityException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Status sessions (docs/protocol.md) between the real client and the real handshake, in one JVM: a replica's client
 * listener ({@link StatusListener}, its status a fixed answer here: the replication itself is
 * {@code ReplicatedMembersTest}'s) refuses an application before it logs in and reveals nothing; gives a user with the
 * monitor permission the read-only command and refuses any other naming the active member; refuses a user without
 * monitor at the login. The active queue manager (a {@link WharfServer}) takes the flag as a normal connection.
 */
@Timeout(60)
class StatusSessionTest {

    /** What the replica says of the active member: only ever told to a logged-in monitor. */
    private static final String ACTIVE = "Member c (FOLLOWER) follows the active member b (replication address x:1).";
    private static final String STATUS = "{\"name\":\"WHARF\",\"replication\":{\"member\":\"c\",\"role\":\"FOLLOWER\"}}";

    @TempDir
    static Path dir;
    private static SecurityFileRealm realm;
    private static StatusListener replica;
    private static TestServer active;
    private static String replicaUrl;

    @BeforeAll
    static void start() throws Exception {
        Path file = Files.writeString(dir.resolve("security.yaml"), "users:\n"
                + "  app:\n    password: \"" + verifier("app-pw") + "\"\n    groups: [apps]\n"
                + "  mon:\n    password: \"" + verifier("mon-pw") + "\"\n    groups: [apps]\n"
                + "  ops:\n    password: \"" + verifier("ops-pw") + "\"\n    groups: [admins]\n"
                + "permissions:\n"
                + "  - connect: [group:apps, group:admins]\n"
                + "  - admin: [group:admins]\n"
                + "  - monitor: [user:mon]\n");
        realm = SecurityFileRealm.open(file);
        ServerConfig config = ServerConfig.builder().host("127.0.0.1").port(0).dataDirectory(dir.resolve("replica"))
                .build();
        replica = StatusListener.open(config, new Logins(realm), realm.accessControl(), new ReplicaStatus() {
            @Override
            public String displayServer() {
                return STATUS;
            }

            @Override
            public String activeMember() {
                return ACTIVE;
            }
        });
        replicaUrl = "tcp://127.0.0.1:" + replica.port();
        active = TestServer.start(c -> c, c -> WharfServer.builder(c).authenticator(realm)
                .accessControl(realm.accessControl()).start());
    }

    @AfterAll
    static void stop() {
        if (active != null) {
            active.close();
        }
        if (replica != null) {
            replica.close();
        }
        if (realm != null) {
            realm.close();
        }
    }

    private static String verifier(String password) {
        return ScramCredential.create(password.toCharArray(), 4096, new SecureRandom()).verifier();
    }

    @Test
    void anApplicationIsRefusedBeforeItLogsInAndItsAddressListGoesOn() throws Exception {
        // a wrong password: refused as an application, not as a login, so nothing was checked or revealed
        JMSException refused = assertThrows(JMSException.class,
                () -> new WharfConnectionFactory(replicaUrl).createConnection("app", "not-the-password"));
        assertFalse(refused instanceof JMSSecurityException, refused.toString());
        assertEquals(ErrorCode.NOT_ACTIVE.name(), refused.getErrorCode());
        assertTrue(refused.getMessage().contains("is a replica of a replicated queue manager")
                && refused.getMessage().contains("every member's address"), refused.getMessage());
        assertFalse(refused.getMessage().contains("active member b"), refused.getMessage());
        try (Connection c = new WharfConnectionFactory(replicaUrl + "," + active.server().tcpUrl())
                .createConnection("app", "app-pw")) {
            c.start(); // the next address, the active queue manager, took it
        }
    }

    @Test
    void aMonitorGetsTheReplicasStatusAndNothingElse() throws Exception {
        WharfConnectionFactory factory = new WharfConnectionFactory(replicaUrl);
        factory.setUserName("mon");
        factory.setPassword("mon-pw");
        try (WharfStatusSession session = factory.createStatusSession()) {
            assertEquals("{\"command\":\"display-server\",\"ok\":true,\"result\":" + STATUS + "}",
                    session.request("display-server"));
            JMSException other = assertThrows(JMSException.class, () -> session.request("clear-queue"));
            assertEquals(ErrorCode.NOT_ACTIVE.name(), other.getErrorCode());
            assertTrue(other.getMessage().contains("'clear-queue' is not run here") && other.getMessage()
                    .contains(ACTIVE), other.getMessage());
            assertEquals("{\"command\":\"display-server\",\"ok\":true,\"result\":" + STATUS + "}",
                    session.request("display-server"), "the session goes on after a refused command");
        }
    }

    @Test
    void aStatusSessionCannotOpenAJmsSession() throws Exception {
        CoreConnection core = CoreConnection.connect(ConnectionSettings.of(BrokerAddress.tcp("127.0.0.1",
                replica.port()), "ops", "ops-pw", "test").withHelloFlags(Frame.Hello.STATUS_SESSION),
                ConnectionListener.NONE);
        try {
            assertTrue(core.statusSession());
            assertThrows(ClientException.class, () -> core.requestOk(id -> new Frame.CreateSession(id, 1, false, 1),
                    "CREATE_SESSION"));
            assertThrows(ClientException.class, () -> core.status("display-server"), "the connection was closed");
        } finally {
            core.close();
        }
    }

    @Test
    void aUserWithoutMonitorIsRefusedAtTheLogin() {
        WharfConnectionFactory factory = new WharfConnectionFactory(replicaUrl);
        factory.setUserName("app");
        factory.setPassword("app-pw");
        JMSSecurityException denied = assertThrows(JMSSecurityException.class, factory::createStatusSession);
        assertEquals(ErrorCode.NOT_AUTHORISED.name(), denied.getErrorCode());
        assertTrue(denied.getMessage().contains("'app'") && denied.getMessage().contains("'monitor'"),
                denied.getMessage());
    }

    @Test
    void theActiveQueueManagerTakesTheFlagAsANormalConnection() throws Exception {
        URI url = URI.create(active.server().tcpUrl());
        CoreConnection core = CoreConnection.connect(ConnectionSettings.of(BrokerAddress.tcp(url.getHost(),
                url.getPort()), "ops", "ops-pw", "test").withHelloFlags(Frame.Hello.STATUS_SESSION),
                ConnectionListener.NONE);
        try {
            assertFalse(core.statusSession());
            ClientException e = assertThrows(ClientException.class, () -> core.status("display-server"));
            assertEquals(ErrorCode.ILLEGAL_STATE, e.code());
            assertTrue(e.getMessage().contains("admin command queue"), e.getMessage());
        } finally {
            core.close();
        }
        WharfConnectionFactory factory = new WharfConnectionFactory(active.server().tcpUrl());
        factory.setUserName("ops");
        factory.setPassword("ops-pw");
        JMSException notReplica = assertThrows(JMSException.class, factory::createStatusSession);
        assertInstanceOf(javax.jms.IllegalStateException.class, notReplica);
        assertTrue(notReplica.getMessage().contains("is the active instance"), notReplica.getMessage());
    }
}
