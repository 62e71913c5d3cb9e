package org.wharfmq.server.it;

import org.wharfmq.jms.WharfConnectionFactory;

import javax.jms.BytesMessage;
import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Queue;
import javax.jms.Session;
import java.lang.management.ManagementFactory;
import java.util.Enumeration;

/**
 * What a consumer that joins a backlog of large messages holds in its application's heap: COUNT non-persistent
 * messages of SIZE bytes are put on a fresh queue of the server at URL, then a consumer with the client's defaults
 * joins and receives the first; a barrier (an anonymous producer, answered after every DELIVER the server wrote when
 * the consumer joined) makes sure everything pushed to it has been read, and the heap in use after a full GC, less the
 * same before the consumer joined, is what the consumer's buffer holds. Then it receives the rest. The client JVM only:
 * start the server apart ({@code bin/wharf server}) so that its memory is not counted. Runs against any client build
 * (it sets no option), so the same source measures two builds. With {@code browse} last, a QueueBrowser's enumeration
 * takes the consumer's place: it reads the first message, the barrier, the heap, then browses the rest.
 *
 * <pre>java -Xmx1g -cp "/tmp/probe:perfharness/target/lib/*" org.wharfmq.server.it.ConsumerHeapProbe \
 *     URL [COUNT] [SIZE] [browse]</pre>
 */
public final class ConsumerHeapProbe {

    private ConsumerHeapProbe() {
    }

    public static void main(String[] args) throws Exception {
        String url = args.length > 0 ? args[0] : "tcp://127.0.0.1:7414";
        int count = args.length > 1 ? Integer.parseInt(args[1]) : 100;
        int size = args.length > 2 ? Integer.parseInt(args[2]) : 2_000_000;
        boolean browse = args.length > 3 && args[3].equals("browse");
        WharfConnectionFactory factory = new WharfConnectionFactory(url);
        String name = "HEAP.PROBE." + System.currentTimeMillis();
        try (Connection producing = factory.createConnection(); Connection consuming = factory.createConnection()) {
            Session session = producing.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageProducer producer = session.createProducer(session.createQueue(name));
            producer.setDeliveryMode(DeliveryMode.NON_PERSISTENT);
            byte[] body = new byte[size];
            for (int i = 0; i < count; i++) {
                BytesMessage m = session.createBytesMessage();
                m.writeBytes(body);
                producer.send(m);
            }
            session.createProducer(null).close(); // every send handled
            long before = usedAfterGc();

            consuming.start();
            Session consumerSession = consuming.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Queue queue = consumerSession.createQueue(name);
            MessageConsumer consumer = browse ? null : consumerSession.createConsumer(queue);
            Enumeration<?> browsed = browse ? consumerSession.createBrowser(queue).getEnumeration() : null;
            Message first = browse ? (Message) browsed.nextElement() : consumer.receive(120_000);
            if (first == null) {
                throw new IllegalStateException("no message in 120 s");
            }
            consumerSession.createProducer(null).close(); // what the server pushed on joining has been read
            long held = usedAfterGc() - before;
            System.out.printf("%s joined %d messages of %d bytes: client heap held %.1f MB (%.1f messages)%n",
                    browse ? "browser" : "consumer", count, size, held / 1e6, (double) held / size);
            int received = 1;
            while (received < count && (browse ? browsed.hasMoreElements() && browsed.nextElement() != null
                    : consumer.receive(120_000) != null)) {
                received++;
            }
            System.out.println((browse ? "browsed " : "received ") + received + " of " + count);
        }
    }

    private static long usedAfterGc() {
        System.gc();
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
