package org.wharfmq.perf.workload;

import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.perf.driver.Provider;

import javax.jms.Connection;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;

/**
 * OW-5 on Wharf: one probe message across each channel from QM1 to QM2, received on QM2, before the consumers and
 * producers start. A sender channel connects when its transmission queue gets its first message, which without the
 * probe is the producers' first, so the connection (and its retries while the partner was still starting) fell in
 * the producers' measured period: a 3 s one counted no message at the consumers. After the probes the channels are
 * running, which QM2 has said by delivering them. The probes cross the channels, so the channel check counts them
 * ({@link #probes}).
 */
final class ChannelProbe {

    private ChannelProbe() {
    }

    /** The queues the probes go to: the first of the {@code forward} queues on each of {@code channels} channels. */
    static List<String> probes(List<String> forward, int channels) {
        // queue k (from 1) travels on channel ((k - 1) mod N) + 1: queues 1..N are on channels 1..N
        return List.copyOf(forward.subList(0, Math.min(channels, forward.size())));
    }

    /**
     * Sends a probe to each of {@code queues} on QM1 and receives it on QM2, as {@code user} (null: anonymous).
     *
     * @throws TimeoutException naming the channel's queue when QM2 did not deliver its probe within {@code timeout}
     */
    static void cross(String qm1Url, String qm2Url, String user, String password, List<String> queues, Duration timeout)
            throws TimeoutException {
        try {
            crossEach(qm1Url, qm2Url, user, password, queues, timeout);
        } catch (JMSException e) {
            throw new TimeoutException("the channels from " + QueueManagerPair.QM1 + " could not be probed: " + e);
        }
    }

    private static void crossEach(String qm1Url, String qm2Url, String user, String password, List<String> queues,
                                  Duration timeout) throws JMSException, TimeoutException {
        try (Connection qm1 = connect(qm1Url, user, password); Connection qm2 = connect(qm2Url, user, password)) {
            Session send = qm1.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Session receive = qm2.createSession(false, Session.AUTO_ACKNOWLEDGE);
            List<MessageConsumer> consumers = new ArrayList<>();
            for (String queue : queues) {
                consumers.add(receive.createConsumer(receive.createQueue(queue)));
            }
            qm2.start();
            try (MessageProducer producer = send.createProducer(null)) {
                for (String queue : queues) {
                    producer.send(send.createQueue(queue), send.createTextMessage("wharf-perf channel probe"));
                }
            }
            long deadline = System.nanoTime() + timeout.toNanos();
            for (int i = 0; i < queues.size(); i++) {
                Message probe = consumers.get(i).receive(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
                if (probe == null) {
                    throw new TimeoutException("the channel that carries " + queues.get(i) + " from " + QueueManagerPair.QM1
                            + " to " + QueueManagerPair.QM2 + " did not deliver a probe within " + timeout.toSeconds()
                            + " s: it is not running (the queue managers' lines say why)");
                }
            }
        }
    }

    private static Connection connect(String url, String user, String password) throws JMSException {
        WharfConnectionFactory factory = new WharfConnectionFactory(Provider.withConnectTimeout(url));
        return user == null ? factory.createConnection() : factory.createConnection(user, password);
    }
}
