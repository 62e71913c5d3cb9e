package org.wharfmq.server.load;

import org.wharfmq.jms.WharfConnectionFactory;

import javax.jms.BytesMessage;
import javax.jms.Connection;
import javax.jms.ConnectionFactory;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Queue;
import javax.jms.Session;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * A request/reply load written against plain {@code javax.jms}: the IBM MQ requester/responder pattern (RR-4 of
 * {@code shared/specs/benchmarks.md}) until the perf harness lands. Requesters send a BytesMessage to REQUEST with
 * JMSReplyTo = REPLY, then open a consumer on REPLY with the selector {@code JMSCorrelationID = '<request id>'},
 * receive once and close it. Responders reply with the request's message id as correlation id. Every reply is
 * checked against its request; a missing, wrong or duplicate reply fails the run.
 *
 * <pre>
 * java -cp ... org.wharfmq.server.load.RequestReplyLoad URL ROLE THREADS SIZE SECONDS
 *   ROLE = requester | responder | both   (run responders and requesters in separate JVMs for RR-4)
 * </pre>
 */
public final class RequestReplyLoad {

    private RequestReplyLoad() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 5) {
            System.err.println("usage: RequestReplyLoad URL requester|responder|both THREADS SIZE SECONDS [RESPONDERS]");
            System.exit(2);
        }
        String url = args[0];
        String role = args[1];
        int threads = Integer.parseInt(args[2]);
        int size = Integer.parseInt(args[3]);
        int seconds = Integer.parseInt(args[4]);
        int responders = args.length > 5 ? Integer.parseInt(args[5]) : Math.max(1, threads / 2);
        ConnectionFactory cf = new WharfConnectionFactory(url);
        AtomicBoolean running = new AtomicBoolean(true);
        if (!role.equals("requester")) {
            for (int i = 0; i < (role.equals("both") ? responders : threads); i++) {
                Thread t = new Thread(() -> respond(cf, running), "responder-" + i);
                t.setDaemon(true);
                t.start();
            }
            if (role.equals("responder")) {
                System.out.println("responders running; Ctrl-C to stop");
                Thread.currentThread().join();
            }
        }
        LongAdder roundTrips = new LongAdder();
        AtomicLong failures = new AtomicLong();
        CountDownLatch done = new CountDownLatch(threads);
        for (int i = 0; i < threads; i++) {
            Thread t = new Thread(() -> {
                try {
                    request(cf, size, running, roundTrips, failures);
                } finally {
                    done.countDown();
                }
            }, "requester-" + i);
            t.start();
        }
        long[] perSecond = new long[seconds];
        long last = 0;
        for (int s = 0; s < seconds; s++) {
            Thread.sleep(1000);
            long now = roundTrips.sum();
            perSecond[s] = now - last;
            last = now;
            System.out.printf("t=%ds rate=%d%n", s + 1, perSecond[s]);
        }
        running.set(false);
        done.await();
        // the first two seconds are warm-up
        long[] measured = Arrays.copyOfRange(perSecond, Math.min(2, seconds - 1), seconds);
        Arrays.sort(measured);
        System.out.printf("requesters=%d size=%d totalIterations=%d medianRate=%d failures=%d%n",
                threads, size, roundTrips.sum(), measured[measured.length / 2], failures.get());
        System.exit(failures.get() == 0 ? 0 : 1);
    }

    private static void request(ConnectionFactory cf, int size, AtomicBoolean running, LongAdder roundTrips, AtomicLong failures) {
        try (Connection connection = cf.createConnection()) {
            connection.start();
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Queue requests = session.createQueue("REQUEST");
            Queue replies = session.createQueue("REPLY");
            MessageProducer producer = session.createProducer(requests);
            producer.setDeliveryMode(javax.jms.DeliveryMode.NON_PERSISTENT);
            byte[] body = new byte[size];
            while (running.get()) {
                BytesMessage request = session.createBytesMessage();
                request.writeBytes(body);
                request.setJMSReplyTo(replies);
                producer.send(request);
                String id = request.getJMSMessageID();
                try (MessageConsumer consumer = session.createConsumer(replies, "JMSCorrelationID = '" + id + "'")) {
                    Message reply = consumer.receive(30_000);
                    if (reply == null || !id.equals(reply.getJMSCorrelationID()) || ((BytesMessage) reply).getBodyLength() != size) {
                        failures.incrementAndGet();
                        System.err.println("bad or missing reply for " + id + ": " + reply);
                    } else {
                        roundTrips.increment();
                    }
                }
            }
        } catch (JMSException e) {
            failures.incrementAndGet();
            e.printStackTrace();
        }
    }

    private static void respond(ConnectionFactory cf, AtomicBoolean running) {
        try (Connection connection = cf.createConnection()) {
            connection.start();
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer consumer = session.createConsumer(session.createQueue("REQUEST"));
            MessageProducer producer = session.createProducer(null);
            producer.setDeliveryMode(javax.jms.DeliveryMode.NON_PERSISTENT);
            byte[] buffer = new byte[0];
            while (running.get()) {
                BytesMessage request = (BytesMessage) consumer.receive(1000);
                if (request == null) {
                    continue;
                }
                int length = (int) request.getBodyLength();
                if (buffer.length != length) {
                    buffer = new byte[length];
                }
                request.readBytes(buffer);
                BytesMessage reply = session.createBytesMessage();
                reply.writeBytes(buffer);
                reply.setJMSCorrelationID(request.getJMSMessageID());
                producer.send(request.getJMSReplyTo(), reply);
            }
        } catch (JMSException e) {
            e.printStackTrace();
        }
    }
}
