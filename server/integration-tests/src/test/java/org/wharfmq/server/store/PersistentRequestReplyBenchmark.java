package org.wharfmq.server.store;

import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.config.ServerConfig;

import javax.jms.BytesMessage;
import javax.jms.Connection;
import javax.jms.ConnectionFactory;
import javax.jms.DeliveryMode;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Persistent request/reply through the journal: each requester sends a persistent 2 KiB request (the send returns
 * once its record is synced) and waits for the reply with a {@code JMSCorrelationID} selector; each responder
 * receives a request and sends the persistent reply in one transaction (the commit returns once the consume
 * record, the reply and the commit marker are synced). Every round trip therefore waits for two synced batches;
 * with group commit many round trips share each one. The JVM's JIT needs 20-30 s on a 2-core machine before the
 * rate settles: give WARMUP_SECONDS for a peak, the default 2 s for a quick comparison. Prints round trips per second and the journal's syncs per second.
 *
 * <pre>java -cp ... org.wharfmq.server.store.PersistentRequestReplyBenchmark DATA_DIR REQUESTERS [RESPONDERS] [SECONDS]
 *     [fsync|os] [MAX_MESSAGE_LENGTH] [WARMUP_SECONDS]</pre>
 */
public final class PersistentRequestReplyBenchmark {

    private static final int SIZE = 2048;

    private PersistentRequestReplyBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        Path data = Path.of(args[0]);
        int requesters = Integer.parseInt(args[1]);
        int responders = args.length > 2 ? Integer.parseInt(args[2]) : Math.max(1, Math.min(requesters, 16));
        int seconds = args.length > 3 ? Integer.parseInt(args[3]) : 10;
        Durability durability = Durability.parse(args.length > 4 ? args[4] : "fsync");
        int maxMessageLength = args.length > 5 ? Integer.parseInt(args[5]) : ServerConfig.defaults().maxMessageLength();
        int warmupSeconds = args.length > 6 ? Integer.parseInt(args[6]) : 2;
        Files.createDirectories(data);
        ServerConfig config = ServerConfig.builder().port(0).host("127.0.0.1").inVmName("bench")
                .dataDirectory(Files.createTempDirectory(data, "bench-")).durability(durability).maxMessageLength(maxMessageLength).build();
        JournalMessageStore store = JournalMessageStore.open(config);
        try (WharfServer server = WharfServer.builder(config).store(store).start()) {
            ConnectionFactory cf = new WharfConnectionFactory(server.tcpUrl());
            AtomicBoolean running = new AtomicBoolean(true);
            AtomicBoolean responding = new AtomicBoolean(true);
            AtomicLong failures = new AtomicLong();
            LongAdder roundTrips = new LongAdder();
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < responders; i++) {
                threads.add(new Thread(() -> respond(cf, responding, failures), "responder-" + i));
            }
            CountDownLatch requestersDone = new CountDownLatch(requesters);
            for (int i = 0; i < requesters; i++) {
                threads.add(new Thread(() -> {
                    try {
                        request(cf, running, roundTrips, failures);
                    } finally {
                        requestersDone.countDown();
                    }
                }, "requester-" + i));
            }
            threads.forEach(Thread::start);
            // warm-up, then the measured interval
            TimeUnit.SECONDS.sleep(warmupSeconds);
            long trips0 = roundTrips.sum();
            long syncs0 = store.syncs();
            long syncNanos0 = store.syncNanos();
            long start = System.nanoTime();
            TimeUnit.SECONDS.sleep(seconds);
            double elapsed = (System.nanoTime() - start) / 1e9;
            long trips = roundTrips.sum() - trips0;
            long syncs = store.syncs() - syncs0;
            long syncNanos = store.syncNanos() - syncNanos0;
            running.set(false);
            requestersDone.await(60, TimeUnit.SECONDS); // requesters first: each still gets its last reply
            responding.set(false);
            for (Thread thread : threads) {
                thread.join(10_000); // every client closed before the server stops: no SERVER_CLOSING warnings
            }
            System.out.printf("durability=%s requesters=%d responders=%d size=%d roundTripsPerSecond=%.0f "
                            + "syncsPerSecond=%.0f roundTripsPerSync=%.2f meanSyncMicros=%.0f failures=%d%n", durability,
                    requesters, responders, SIZE, trips / elapsed, syncs / elapsed,
                    syncs == 0 ? 0 : (double) trips / syncs, syncs == 0 ? 0 : syncNanos / 1e3 / syncs, failures.get());
        }
        System.exit(0);
    }

    private static void request(ConnectionFactory cf, AtomicBoolean running, LongAdder roundTrips, AtomicLong failures) {
        try (Connection connection = cf.createConnection()) {
            connection.start();
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            javax.jms.Queue requests = session.createQueue("REQUEST");
            javax.jms.Queue replies = session.createQueue("REPLY");
            MessageProducer producer = session.createProducer(requests);
            producer.setDeliveryMode(DeliveryMode.PERSISTENT);
            byte[] body = new byte[SIZE];
            while (running.get()) {
                BytesMessage request = session.createBytesMessage();
                request.writeBytes(body);
                request.setJMSReplyTo(replies);
                producer.send(request);
                String id = request.getJMSMessageID();
                try (MessageConsumer consumer = session.createConsumer(replies, "JMSCorrelationID = '" + id + "'")) {
                    Message reply = consumer.receive(30_000);
                    if (reply == null || !id.equals(reply.getJMSCorrelationID())) {
                        failures.incrementAndGet();
                    } else {
                        roundTrips.increment();
                    }
                }
            }
        } catch (JMSException e) {
            if (running.get()) {
                failures.incrementAndGet();
                e.printStackTrace();
            }
        }
    }

    private static void respond(ConnectionFactory cf, AtomicBoolean running, AtomicLong failures) {
        try (Connection connection = cf.createConnection()) {
            connection.start();
            Session session = connection.createSession(true, Session.SESSION_TRANSACTED);
            MessageConsumer consumer = session.createConsumer(session.createQueue("REQUEST"));
            MessageProducer producer = session.createProducer(null);
            producer.setDeliveryMode(DeliveryMode.PERSISTENT);
            byte[] buffer = new byte[SIZE];
            while (running.get()) {
                BytesMessage request = (BytesMessage) consumer.receive(200);
                if (request == null) {
                    continue;
                }
                request.readBytes(buffer);
                BytesMessage reply = session.createBytesMessage();
                reply.writeBytes(buffer);
                reply.setJMSCorrelationID(request.getJMSMessageID());
                producer.send(request.getJMSReplyTo(), reply);
                session.commit();
            }
        } catch (JMSException e) {
            if (running.get()) {
                failures.incrementAndGet();
                e.printStackTrace();
            }
        }
    }
}
