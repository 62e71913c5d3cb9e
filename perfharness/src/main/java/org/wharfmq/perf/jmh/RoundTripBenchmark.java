package org.wharfmq.perf.jmh;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.WharfServer;
import org.wharfmq.protocol.auth.ScramCredential;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.security.AccessControl;
import org.wharfmq.server.security.Authenticator;
import org.wharfmq.server.security.Identity;
import org.wharfmq.server.security.Permission;
import org.wharfmq.server.security.PermissionRules;

import javax.jms.BytesMessage;
import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Queue;
import javax.jms.Session;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * One request/reply round trip of a 2 KB message over TCP, RR-4's shape with one requester and one responder: the
 * requester sends to a request queue and receives its reply from a shared reply queue by correlation id (JMSPerfHarness
 * {@code -co true}); the responder receives the request and sends the reply. Server, requester and responder run in
 * this JVM over the loopback, so the time is the client's send and receive paths on both ends plus the server's,
 * without the run-to-run swings of the multi-process RR-4 (whose two modes on this 2-core machine hide a difference of
 * 10-15 %). The place to look for a thread hand-off added on the client: it doubles the time.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 4, time = 2)
@Measurement(iterations = 6, time = 2)
@Fork(1)
public class RoundTripBenchmark {

    private static final int BODY = 2048;
    private static final String USER = "bench";
    private static final String PASSWORD = "bench-pw";

    /**
     * "none": no users, every client may do everything (the defaults); "rules": both clients log in as a user of
     * their own by SCRAM-SHA-256 and every producer and consumer is checked against permission rules (issue 21's
     * "authorisation costs nothing measurable").
     */
    @Param({"none", "rules"})
    public String security;

    private Path data;
    private WharfServer server;
    private Connection requesterConnection;
    private Connection responderConnection;
    private Session session;
    private MessageProducer requests;
    private MessageConsumer replies;
    private BytesMessage request;
    private Thread responder;
    private volatile boolean stopping;

    @Setup(Level.Trial)
    public void start() throws Exception {
        data = Files.createTempDirectory("wharf-roundtrip-");
        WharfServer.Starter starter = WharfServer.builder(ServerConfig.builder().host("127.0.0.1").port(0)
                .inVmName("roundtrip").dataDirectory(data).build());
        boolean rules = security.equals("rules");
        if (rules) {
            starter.authenticator(oneUser()).accessControl(new AccessControl(PermissionRules.builder()
                    .queue("PAYROLL.**", Permission.RECEIVE, "user:payroll") // rules before the one that decides
                    .queue("AUDIT", Permission.SEND, "group:auditors")
                    .queue("RT.*", Permission.SEND, "group:bench")
                    .queue("RT.*", Permission.RECEIVE, "group:bench")
                    .queue("RT.*", Permission.CREATE, "group:bench")
                    .connect("group:bench")
                    .build(), "RoundTripBenchmark's rules"));
        }
        server = starter.start();
        WharfConnectionFactory factory = new WharfConnectionFactory(server.tcpUrl());
        if (rules) {
            factory.setUserName(USER);
            factory.setPassword(PASSWORD);
        }
        responderConnection = factory.createConnection();
        Session responderSession = responderConnection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer requestConsumer = responderSession.createConsumer(responderSession.createQueue("RT.REQUEST"));
        MessageProducer replier = responderSession.createProducer(null);
        replier.setDeliveryMode(DeliveryMode.NON_PERSISTENT);
        responderConnection.start();
        responder = new Thread(() -> respond(requestConsumer, replier, responderSession), "responder");
        responder.start();

        requesterConnection = factory.createConnection();
        session = requesterConnection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue replyQueue = session.createQueue("RT.REPLY");
        requests = session.createProducer(session.createQueue("RT.REQUEST"));
        requests.setDeliveryMode(DeliveryMode.NON_PERSISTENT);
        replies = session.createConsumer(replyQueue, "JMSCorrelationID = 'requester-1'");
        requesterConnection.start();
        request = session.createBytesMessage();
        request.writeBytes(new byte[BODY]);
        request.setJMSReplyTo(replyQueue);
        request.setJMSCorrelationID("requester-1");
    }

    /** One user, {@value #USER} in group bench, known by its SCRAM-SHA-256 verifier as a security file would. */
    private static Authenticator oneUser() {
        Authenticator.User user = new Authenticator.User(ScramCredential.create(PASSWORD.toCharArray(),
                ScramCredential.MIN_ITERATIONS, new SecureRandom()), Set.of("bench"));
        return new Authenticator() {
            @Override
            public User user(String name) {
                return USER.equals(name) ? user : null;
            }

            @Override
            public boolean hasUsers() {
                return true;
            }

            @Override
            public boolean plainAvailable() {
                return false;
            }

            @Override
            public CompletionStage<Identity> verifyPlain(String name, char[] password) {
                return CompletableFuture.completedFuture(null);
            }

            @Override
            public AnonymousAccess anonymousAccess() {
                return AnonymousAccess.NOWHERE;
            }
        };
    }

    private void respond(MessageConsumer consumer, MessageProducer replier, Session session) {
        try {
            while (!stopping) {
                Message in = consumer.receive(100);
                if (in == null) {
                    continue;
                }
                BytesMessage reply = session.createBytesMessage();
                reply.writeBytes(new byte[BODY]);
                reply.setJMSCorrelationID(in.getJMSCorrelationID());
                replier.send(in.getJMSReplyTo(), reply);
            }
        } catch (JMSException e) {
            if (!stopping) {
                throw new IllegalStateException(e);
            }
        }
    }

    @Benchmark
    public Message roundTrip() throws JMSException {
        requests.send(request);
        Message reply = replies.receive(10_000);
        if (reply == null) {
            throw new IllegalStateException("no reply within 10 s");
        }
        return reply;
    }

    @TearDown(Level.Trial)
    public void stop() throws Exception {
        stopping = true;
        responder.join(5_000);
        requesterConnection.close();
        responderConnection.close();
        server.close();
        try (var paths = Files.walk(data)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
