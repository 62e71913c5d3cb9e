package org.wharfmq.perf.driver;

import javax.jms.Destination;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Queue;
import javax.jms.Session;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Sends a request and waits for its reply (JMSPerfHarness {@code jms.r11.Requestor}). Three ways to find the
 * reply:
 * <ul>
 *   <li>default: the IBM MQ convention, a consumer per request selecting
 *       {@code JMSCorrelationID = '<the request's JMSMessageID>'} on the shared reply queue ({@code -oq});</li>
 *   <li>{@code -co true}: one correlation id per thread and one long-lived consumer selecting it;</li>
 *   <li>{@code -oq ""}: a temporary reply queue per requester (RR-4b).</li>
 * </ul>
 * With {@code -rm} the request's JMSReplyTo names the reply queue by a queue manager ({@code QM1.R2/REPLY2}), so
 * that the responders' queue manager sends the reply back by that name's route (RR-5); the reply is still read
 * from the reply queue itself.
 * A round trip is timed from when the request was due: under {@code -rt} its place in the requester's schedule
 * ({@link Pacer}), so a requester that fell behind and catches up counts the wait; unrated, from its send.
 * Every request carries a sequence number that the responder copies: a reply is accepted only if it answers the
 * request just sent, a reply to a request already answered is a duplicate. A request without its reply within
 * {@code -to} is overdue: the requester goes on with the next, and when the overdue reply comes after all it is late
 * (counted, its round trip recorded, not a failure: a cold first invocation of a flow under load takes longer than
 * the timeout, and the flow did answer). A request still without its reply at the end of the run, after waiting up to
 * {@code -to} more for it, is a loss.
 */
class Requestor extends Worker {

    private final Bodies bodies;
    private final String processId;
    private final String runId;
    private MessageProducer producer;
    private MessageConsumer longLivedConsumer;
    private Queue sharedReplyQueue;
    private Message request;
    protected long sequence;
    /**
     * This requester's overdue requests (no reply within {@code -to}) whose replies have not come, by sequence, with
     * the {@link System#nanoTime()} they were due at ({@link #dueNanos}); empty while none is overdue. Concurrent
     * because the driver looks at it after a join that may have timed out.
     */
    private final Map<Long, Long> overdue = new ConcurrentHashMap<>();
    /** Overdue requests found still on the request queue ({@link #stillQueued}), whose late replies may yet come. */
    private final Set<Long> queued = ConcurrentHashMap.newKeySet();

    Requestor(WorkerSetup setup) {
        super(setup);
        this.bodies = setup.bodies();
        this.processId = setup.processId();
        this.runId = setup.runId();
    }

    @Override
    void open() throws JMSException {
        int number = options.destinations().numberFor(index);
        String suffix = number < 0 ? "" : String.valueOf(number);
        producer = session.createProducer(provider.queue(session, options.requestQueue() + suffix));
        producer.setDeliveryMode(deliveryMode);
        request = newRequest(session);
        Destination replyTo;
        if (options.replyQueue().isEmpty()) {
            replyTo = session.createTemporaryQueue();
            longLivedConsumer = session.createConsumer(replyTo);
        } else {
            sharedReplyQueue = provider.queue(session, options.replyQueue() + suffix);
            // RR-5: named through a queue-manager alias of the pair, which the responders' queue manager routes by
            replyTo = options.replyQueueManager().isEmpty() ? sharedReplyQueue
                    : provider.queue(session, options.replyQueueManager() + suffix + "/" + options.replyQueue() + suffix);
            if (options.correlationIdPerThread()) {
                String correlationId = "perf-" + runId + "-" + processId + "-" + index;
                request.setJMSCorrelationID(correlationId);
                longLivedConsumer = session.createConsumer(sharedReplyQueue, "JMSCorrelationID = '" + correlationId + "'");
            }
        }
        request.setJMSReplyTo(replyTo);
    }

    @Override
    void iterate() throws JMSException {
        request.setLongProperty(Tags.SEQUENCE, sequence);
        roundTripDone(exchange(session, producer, request, sharedReplyQueue));
    }

    /** A request on {@code s} with this run's and this requester's tags; its sequence and reply queue still to set. */
    protected final Message newRequest(Session s) throws JMSException {
        Message m = bodies.create(s);
        m.setStringProperty(Tags.RUN, runId);
        m.setStringProperty(Tags.SOURCE, name);
        return m;
    }

    /**
     * Sends {@code request} with {@code producer} of {@code s} and takes its reply: from the long-lived consumer, else
     * by a consumer of {@code replyQueue} selecting the request's JMSMessageID (the IBM MQ convention). The send and
     * the receive are each committed when {@code -tx}.
     *
     * @return the reply, or null when none came within {@code -to}
     */
    protected final Message exchange(Session s, MessageProducer producer, Message request, Queue replyQueue)
            throws JMSException {
        producer.send(request);
        if (options.transacted()) {
            s.commit();
        }
        Message reply;
        if (longLivedConsumer != null) {
            reply = receiveAnswer(longLivedConsumer);
        } else {
            String id = request.getJMSMessageID();
            try (MessageConsumer consumer = s.createConsumer(replyQueue, "JMSCorrelationID = '" + id + "'")) {
                reply = receiveAnswer(consumer);
            }
        }
        if (options.transacted()) {
            s.commit();
        }
        return reply;
    }

    /**
     * Counts the round trip of the request just sent, timed from when it was due ({@link #dueNanos}): overdue without
     * its reply.
     */
    protected final void roundTripDone(Message reply) {
        if (reply == null) {
            overdue.put(sequence, dueNanos);
        } else {
            recordLatency(dueNanos);
            control.iterationDone();
        }
        sequence++;
    }

    /** The reply to the request just sent; older replies met on the way are duplicates. */
    protected final Message receiveAnswer(MessageConsumer consumer) throws JMSException {
        while (true) {
            Message reply = consumer.receive(receiveTimeoutMillis);
            if (reply == null) {
                return null;
            }
            Object replySequence = reply.getObjectProperty(Tags.SEQUENCE);
            if (replySequence == null) {
                return reply;   // a responder that does not copy properties: nothing more to check
            }
            long n = ((Number) replySequence).longValue();
            if (n == sequence) {
                checkLength(reply);
                return reply;
            }
            if (n < sequence && lateReplyOf(n, reply)) {
                continue;   // the late reply to an overdue request
            }
            if (n < sequence) {
                control.duplicate("reply to request " + n + " of " + name + " arrived again (while waiting for " + sequence + ")");
            } else {
                control.unexpected("reply to request " + n + " of " + name + " before that request was sent");
            }
        }
    }

    /**
     * A reply to a request of {@code -ms} bytes, which the responders answer with the request's body, must be as long:
     * a large message cut short on its way fails the run. (A flow's output, from a message file, has a length of its
     * own.) Its length only: reading every byte would make the client's cost grow with the size.
     */
    private void checkLength(Message reply) throws JMSException {
        if (options.messageFile().isEmpty() && reply instanceof javax.jms.BytesMessage b && b.getBodyLength() != bodies.size()) {
            control.unexpected("reply to request " + sequence + " of " + name + " carries " + b.getBodyLength()
                    + " bytes, the request " + bodies.size());
        }
    }

    /**
     * Whether {@code reply}, to request {@code n}, is the late reply of an overdue request (once per request: a second
     * reply to it is a duplicate), which it then counts as late, and as answered after the end ({@link RunControl#replyAfterEnd}) when sent after the
     * run ended. Called by this requester's thread, then by the driver once it has ended.
     */
    final boolean lateReplyOf(long n, Message reply) throws JMSException {
        Long dueAt = overdue.remove(n);
        if (dueAt == null) {
            return queued.remove(n);   // the late reply of a request found still queued: expected, once
        }
        recordLatency(dueAt);
        control.lateReply();
        if (control.endedBefore(reply.getJMSTimestamp())) {
            control.replyAfterEnd();   // its request was still queued when the run ended
        }
        return true;
    }

    /**
     * Request {@code n}, overdue, was found still on the request queue after the run: not lost, the server had not
     * reached it. It leaves the overdue requests (a reply to it that comes after all is no duplicate). Whether it was.
     */
    final boolean stillQueued(long n) {
        if (overdue.remove(n) == null) {
            return false;
        }
        queued.add(n);
        control.requestStillQueued();
        return true;
    }

    /** Whether a request of this requester is still waiting for its reply past {@code -to}. */
    final boolean hasOverdue() {
        return !overdue.isEmpty();
    }

    /**
     * Counts every request still overdue as a loss: its reply did not come, neither within {@code -to} nor by the end
     * of the run. Called by the driver once this requester has ended and the late replies have been looked for.
     */
    final void countUnanswered() {
        for (Long n : overdue.keySet()) {
            if (overdue.remove(n) != null) {
                control.loss("no reply within " + options.timeoutSeconds() + " s to request " + n + " of " + name
                        + ", nor later by the end of the run");
            }
        }
    }

    @Override
    void finish() throws JMSException {
        if (longLivedConsumer == null) {
            return;    // strays on the shared reply queue are looked for once per run, by the driver
        }
        // the overdue replies get up to -to more (the run's last request may be one), then strays a moment
        long deadline = System.nanoTime() + receiveTimeoutMillis * 1_000_000;
        Message stray;
        while ((stray = longLivedConsumer.receive(hasOverdue() ? Math.max(Driver.STRAY_GRACE_MILLIS,
                (deadline - System.nanoTime()) / 1_000_000) : Driver.STRAY_GRACE_MILLIS)) != null) {
            if (stray.getObjectProperty(Tags.SEQUENCE) instanceof Number n && lateReplyOf(n.longValue(), stray)) {
                continue;
            }
            control.duplicate("reply to request " + stray.getObjectProperty(Tags.SEQUENCE) + " of " + name
                    + " arrived after its request was answered");
        }
        if (options.transacted()) {
            session.commit();
        }
    }
}
