package org.wharfmq.server.store;

import org.wharfmq.jms.FailoverEvent;
import org.wharfmq.jms.WharfConnection;
import org.wharfmq.jms.WharfConnectionFactory;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Queue;
import javax.jms.Session;
import javax.jms.TextMessage;
import javax.jms.TransactionRolledBackException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Issue 22's workload for a server that dies under its clients: request/reply clients (two requesters sharing a reply
 * queue, each receiving its replies through a correlation-id selector, and a responder) and a transacted persistent
 * producer/consumer pair, each on a connection of its own, that reconnect on their own and keep working,
 * and the checks that nothing was lost and no persistent message was delivered twice without JMSRedelivered. The tests
 * decide what happens to the servers ({@link ServerRestartReconnectTest}: kill -9 and restart in place;
 * {@link StandbyFailoverTest}: kill -9 and failover to a standby); the workload is the same, so that both promises are
 * checked by one piece of code.
 *
 * <p>Before each kill ({@link #kill}) the transacted consumer holds a batch it has received and not committed, and the
 * producer one it has sent and not committed, so that every kill cuts both transactions: the server that comes next
 * (restarted, or the standby on the dead one's journal) knows nothing of the consumer's deliveries and delivers those
 * messages again as new, and only the client can mark them.
 *
 * <p>The clients reconnect on their own; the only failures they see are the ones a transaction must: a commit of a
 * transaction that was open at the kill throws TransactionRolledBackException (the producer sends its batch again), and
 * a commit whose answer the kill took has an unknown outcome (error code TRANSACTION_OUTCOME_UNKNOWN: the producer
 * sends its batch again, so its messages may arrive twice, as two messages with their own ids, which the check allows
 * for those batches only). Every delivery of every message is recorded by its JMSMessageID; a second one without
 * JMSRedelivered fails the test, whichever side marked it (the server for one it knew it had delivered, the client for
 * one it had handed out, the client for one a producer sent again after losing the answer).
 */
final class ReconnectWorkload {

    /** Operations each client completes between two kills, so that every kill finds all of them at work. */
    private static final int OPERATIONS_PER_ROUND = 20;
    private static final int BATCH = 5;
    /** Two, so that a selector the reconnection lost or mixed up would hand a requester another's reply. */
    private static final int REQUESTERS = 2;
    private static final String REQUESTS = "RESTART.REQUESTS";
    private static final String REPLIES = "RESTART.REPLIES";
    private static final String WORK = "RESTART.WORK";
    /**
     * Reconnect at once, then every 50 ms growing to 500 ms: a restarted server or a standby is found within half a
     * second of listening, which is what the measured times of {@link Outage#awaitWorking} include.
     */
    static final String RECONNECT = "reconnectAttempts=-1&reconnectInterval=50&reconnectMaxInterval=500";
    /** How long a client's first connection is asked again while every member answers that it is not active. */
    private static final long NOT_ACTIVE_WAIT_SECONDS = 90;

    private final Deliveries deliveries = new Deliveries();
    private final List<Requester> requesters = new ArrayList<>();
    private final Responder responder;
    private final TransactedProducer producer;
    private final TransactedConsumer consumer;
    private final List<Client> clients;

    /** The clients of a server (or servers) at {@code addresses}, a broker URL without its options. */
    ReconnectWorkload(String addresses) {
        String url = addresses + "?" + RECONNECT;
        for (int i = 1; i <= REQUESTERS; i++) {
            requesters.add(new Requester("requester-" + i, url, deliveries));
        }
        responder = new Responder(url, deliveries, requesters);
        producer = new TransactedProducer(url);
        consumer = new TransactedConsumer(url, deliveries, producer);
        List<Client> all = new ArrayList<>(List.of(responder, consumer, producer));
        all.addAll(requesters);
        clients = List.copyOf(all);
        for (Client c : clients) {
            c.peers = clients;
        }
    }

    /** Starts the clients and waits until each is connected and at work. */
    void start() throws InterruptedException {
        for (Client c : clients) {
            c.start();
            c.awaitReady();
        }
    }

    /** Waits until each client has done a round of operations more than now; {@code server} is for diagnostics. */
    void awaitRound(ServerProcess server) throws Exception {
        for (Client c : clients) {
            c.awaitProgress(OPERATIONS_PER_ROUND, server);
        }
    }

    /** The connections the clients have lost so far, all together (each one's FailoverListener's DISCONNECTED). */
    long disconnections() {
        return clients.stream().mapToLong(Client::disconnections).sum();
    }

    /**
     * Holds both transacted clients in the middle of a transaction, notes the time, kills {@code server} with SIGKILL
     * and waits until every client has heard its connection was lost (its FailoverListener's DISCONNECTED, within
     * milliseconds of the kill). Only then may the caller release the held clients (before or after the next server is
     * up: a commit waits for the link): released earlier, a commit could go out on the dead link before the client
     * knew, and come back of unknown outcome instead of rolled back, which is not what the kill is meant to test.
     */
    Outage kill(ServerProcess server) throws Exception {
        return end(server::kill);
    }

    /** How a server process is ended: returns once it has ended, or (a replicated member) stopped serving clients. */
    @FunctionalInterface
    interface Ending {
        void end() throws Exception;
    }

    /**
     * As {@link #kill}, the server ended by {@code ending} instead (a planned switchover, a pause, a partition: the
     * member stops serving by itself), which returns once the process has ended or stopped serving clients.
     */
    Outage end(Ending ending) throws Exception {
        Hold consuming = consumer.hold(); // first: it needs the producer's messages to have some in hand
        Hold producing = producer.hold();
        long[] lost = clients.stream().mapToLong(Client::disconnections).toArray();
        long killed = System.nanoTime();
        ending.end();
        long dead = System.nanoTime(); // waited for: nothing the old process sends can arrive from here on
        for (Client c : clients) {
            c.watchFrom(dead);
        }
        for (int i = 0; i < lost.length; i++) {
            clients.get(i).awaitDisconnectionAfter(lost[i]);
        }
        return new Outage(killed, consuming, producing);
    }

    /** A kill in progress: the held transacted clients, and the time of the kill. */
    final class Outage {
        private final long killed;
        private final Hold consuming;
        private final Hold producing;

        private Outage(long killed, Hold consuming, Hold producing) {
            this.killed = killed;
            this.consuming = consuming;
            this.producing = producing;
        }

        /** When SIGKILL was sent ({@link System#nanoTime}). */
        long killedAt() {
            return killed;
        }

        /** Lets the held transacted clients go on: their commits meet the kill. */
        void release() {
            consuming.release();
            producing.release();
        }

        /**
         * Waits until every client has completed an operation it began after the killed process was gone (one that
         * needed the next server: every operation includes a synchronous exchange with it), and returns the times from
         * the kill; {@code server} is for diagnostics.
         */
        Recovery awaitWorking(ServerProcess server) throws Exception {
            long requestReply = Long.MAX_VALUE;
            for (Requester r : requesters) {
                requestReply = Math.min(requestReply, r.awaitWorking(server) - killed);
            }
            long all = 0;
            for (Client c : clients) {
                all = Math.max(all, c.awaitWorking(server) - killed);
            }
            return new Recovery(requestReply, all);
        }
    }

    /**
     * Times from a kill -9 to the clients working again: the first request/reply round trip begun after it (of either
     * requester), and the slowest of the clients' first operations begun after it (the transacted ones' first commit).
     */
    record Recovery(long requestReplyNanos, long allClientsNanos) {
        @Override
        public String toString() {
            return String.format("first request/reply round trip after %.0f ms, every client working after %.0f ms",
                    requestReplyNanos / 1e6, allClientsNanos / 1e6);
        }
    }

    /** Median and max of the recoveries, for a test's summary line. */
    static String summary(List<Recovery> recoveries) {
        return "kill -9 to first request/reply round trip " + medianAndMax(recoveries.stream()
                .map(Recovery::requestReplyNanos).toList()) + ", to every client working " + medianAndMax(
                recoveries.stream().map(Recovery::allClientsNanos).toList()) + " (" + recoveries.size() + " kills)";
    }

    /** "median M ms, max X ms" of {@code nanos}. */
    static String medianAndMax(List<Long> nanos) {
        if (nanos.isEmpty()) {
            return "(none)";
        }
        long[] sorted = nanos.stream().mapToLong(Long::longValue).sorted().toArray();
        int n = sorted.length;
        double median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;
        return String.format("median %.0f ms, max %.0f ms", median / 1e6, sorted[n - 1] / 1e6);
    }

    /** Lets each client finish its work in order (requests answered, the work queue drained), and waits for it. */
    void finish() throws InterruptedException {
        for (Requester r : requesters) {
            r.finish();
        }
        producer.finish();
        responder.finish();
        consumer.finish();
    }

    /** Stops every client that is still running: for a test's finally. */
    void stopNow() throws InterruptedException {
        for (Client c : clients) {
            c.stopNow();
        }
    }

    /** The checks, once finished: nothing lost, nothing delivered twice unmarked. */
    void verify() {
        deliveries.verifyMarked();
        for (Requester r : requesters) {
            r.verify(responder);
        }
        consumer.verify(producer);
    }

    /** What the clients did, for a test's summary line. */
    String report() {
        return requesters.stream().mapToInt(Requester::rounds).sum() + " request/reply round trips (" + requesters
                .stream().mapToInt(r -> r.staleReplies.size()).sum() + " extra replies to requests delivered again); " + producer.committed.size() + " batches committed, "
                + producer.rolledBack + " rolled back at commit, " + producer.inDoubt.size() + " in doubt; "
                + deliveries.redelivered() + " deliveries marked redelivered";
    }

    /** Every delivery of every message, by JMSMessageID, to check that only the first is ever unmarked. */
    private static final class Deliveries {
        private final Map<String, List<Boolean>> marks = new HashMap<>();

        synchronized void delivered(Message m) throws JMSException {
            marks.computeIfAbsent(m.getJMSMessageID(), id -> new ArrayList<>()).add(m.getJMSRedelivered());
        }

        synchronized long redelivered() {
            return marks.values().stream().flatMap(List::stream).filter(b -> b).count();
        }

        synchronized void verifyMarked() {
            marks.forEach((id, seen) -> {
                for (int i = 1; i < seen.size(); i++) {
                    assertTrue(seen.get(i), "message " + id + " was delivered " + seen.size() + " times, delivery "
                            + (i + 1) + " without JMSRedelivered: " + seen);
                }
            });
        }
    }

    /** What a commit across a kill can come to. */
    private enum Outcome { COMMITTED, ROLLED_BACK, IN_DOUBT }

    /**
     * Commits: TransactionRolledBackException for a transaction open at the kill, error code
     * TRANSACTION_OUTCOME_UNKNOWN when the kill took the commit's answer; any other failure fails the test.
     */
    private static Outcome commit(Session session) throws JMSException {
        try {
            session.commit();
            return Outcome.COMMITTED;
        } catch (TransactionRolledBackException e) {
            return Outcome.ROLLED_BACK;
        } catch (JMSException e) {
            if (!"TRANSACTION_OUTCOME_UNKNOWN".equals(e.getErrorCode())) {
                throw e;
            }
            return Outcome.IN_DOUBT;
        }
    }

    /** A client stopped in the middle of a transaction, until the test releases it. */
    private static final class Hold {
        private final CountDownLatch holding = new CountDownLatch(1);
        private final CountDownLatch released = new CountDownLatch(1);

        void release() {
            released.countDown();
        }
    }

    /**
     * A client on a connection of its own that works until told to stop; it must never fail but as a transaction
     * may. Counts its operations so the test can wait for progress (an event, with a time limit), and notes the first
     * one completed of those begun after a kill.
     */
    private abstract static class Client extends Thread {
        final String url;
        private final Object progress = new Object();
        private long operations;
        private boolean ready;
        /** When the step in progress began; only this client's thread writes and reads it. */
        private long stepBegan;
        /** The kill being watched ({@link #watchFrom}) and when the first operation begun after it was done (or 0). */
        private long watchingFrom = Long.MAX_VALUE;
        private long workingAt;
        /** DISCONNECTED events heard: each kill makes one. */
        private long disconnections;
        volatile boolean finishing;
        private volatile Throwable failure;
        private volatile Hold hold;
        private volatile Connection connection;
        /**
         * The workload's clients, this one among them: a wait for this one gives up within a second when another has
         * failed (a requester that failed leaves the responder without requests), rather than at its time limit.
         */
        private List<Client> peers = List.of();

        Client(String name, String url) {
            super(name);
            this.url = url;
            setDaemon(true);
        }

        /**
         * The first connection. A replicated queue manager's members all refuse it ({@code NOT_ACTIVE}) while the one
         * that was elected lost the role again and the next is not yet elected (the first elections on a loaded
         * machine): it asks again, each answer a barrier, until one takes it, for {@link #NOT_ACTIVE_WAIT_SECONDS}.
         */
        private Connection connect() throws JMSException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(NOT_ACTIVE_WAIT_SECONDS);
            while (true) {
                try {
                    return new WharfConnectionFactory(url).createConnection();
                } catch (JMSException e) {
                    if (!"NOT_ACTIVE".equals(e.getErrorCode()) || System.nanoTime() - deadline >= 0) {
                        throw e;
                    }
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
                }
            }
        }

        @Override
        public void run() {
            try {
                connection = connect();
                connection.setExceptionListener(e -> failure = e); // reconnecting never gives up here: never called
                ((WharfConnection) connection).setFailoverListener(e -> {
                    if (e.kind() == FailoverEvent.Kind.DISCONNECTED) {
                        synchronized (progress) {
                            disconnections++;
                            progress.notifyAll();
                        }
                    }
                });
                Session session = open(connection);
                connection.start();
                synchronized (progress) {
                    ready = true;
                    progress.notifyAll();
                }
                while (true) {
                    stepBegan = System.nanoTime();
                    if (!step(session)) {
                        break;
                    }
                }
            } catch (Throwable t) {
                failure = t;
                synchronized (progress) {
                    progress.notifyAll();
                }
            } finally {
                if (connection != null) {
                    try {
                        connection.close();
                    } catch (JMSException ignored) {
                        // reported through failure if it matters
                    }
                }
            }
        }

        abstract Session open(Connection connection) throws JMSException;

        /** One operation (then {@link #worked}), or a poll that found nothing; false when done. */
        abstract boolean step(Session session) throws JMSException;

        /**
         * Counts an operation done: a round trip, a request answered, a transaction committed. Not a poll that found
         * nothing: a consumer that polls an empty queue is not working, and must not count as progress.
         */
        void worked() {
            synchronized (progress) {
                operations++;
                if (workingAt == 0 && stepBegan >= watchingFrom) {
                    workingAt = System.nanoTime();
                }
                progress.notifyAll();
            }
        }

        /**
         * From now on, notes when the first operation begun at or after {@code dead} (the killed server gone) is done:
         * one begun before may have been answered by the dead server, one begun after needed the next.
         */
        void watchFrom(long dead) {
            synchronized (progress) {
                watchingFrom = dead;
                workingAt = 0;
            }
        }

        long disconnections() {
            synchronized (progress) {
                return disconnections;
            }
        }

        /** Waits until this client has heard of more lost connections than {@code before}. */
        void awaitDisconnectionAfter(long before) throws InterruptedException {
            synchronized (progress) {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (disconnections <= before && !failed() && System.nanoTime() < deadline) {
                    progress.wait(1000);
                }
                assertTrue(disconnections > before || failed(), getName() + " did not hear within 30 s that"
                        + " its server was killed");
            }
            checkHealthy("at the kill");
        }

        /** Waits for the operation {@link #watchFrom} watches for, and returns when it was done. */
        long awaitWorking(ServerProcess server) throws Exception {
            long at;
            synchronized (progress) {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
                while (workingAt == 0 && !failed() && isAlive() && System.nanoTime() < deadline) {
                    progress.wait(1000);
                }
                if (workingAt == 0 && !failed()) {
                    fail(getName() + " did not work again after the kill within 120 s:\n"
                            + Arrays.toString(getStackTrace()) + "\nserver:\n" + server.threadDump());
                }
                at = workingAt;
            }
            checkHealthy("after the kill");
            return at;
        }

        void awaitReady() throws InterruptedException {
            synchronized (progress) {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(NOT_ACTIVE_WAIT_SECONDS);
                while (!ready && !failed() && System.nanoTime() < deadline) {
                    progress.wait(1000);
                }
            }
            checkHealthy(null);
        }

        /** Waits until this client has done {@code more} operations more than now. */
        void awaitProgress(int more, ServerProcess server) throws Exception {
            synchronized (progress) {
                long target = operations + more;
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
                while (operations < target && !failed() && isAlive() && System.nanoTime() < deadline) {
                    progress.wait(1000);
                }
                if (operations < target && !failed()) {
                    fail(getName() + " made no progress (" + operations + " of " + target + " operations):\n"
                            + Arrays.toString(getStackTrace()) + "\nserver:\n" + server.threadDump());
                }
            }
            checkHealthy(null);
        }

        /** Lets the client finish its work in order, and waits for it. */
        void finish() throws InterruptedException {
            finishing = true;
            join(TimeUnit.SECONDS.toMillis(120));
            assertFalse(isAlive(), getName() + " did not finish");
            checkHealthy(null);
        }

        /**
         * Stops the client: for a test's finally, where after a failure it may be waiting for what will not come (a
         * reply that went to another requester, requests from a requester that failed); closing its connection ends
         * the wait.
         */
        void stopNow() throws InterruptedException {
            finishing = true;
            join(1000);
            Connection c = connection;
            if (isAlive() && c != null) {
                try {
                    c.close();
                } catch (JMSException ignored) {
                    // stopping anyway; the test has failed or finished
                }
            }
            join(TimeUnit.SECONDS.toMillis(30));
        }

        /** Whether this client or another of the workload has failed. */
        private boolean failed() {
            return failure != null || peers.stream().anyMatch(p -> p.failure != null);
        }

        /** Fails the test with the failure of this client, or else of the first other one that failed. */
        void checkHealthy(String what) {
            List<Client> all = new ArrayList<>(List.of(this));
            all.addAll(peers);
            for (Client c : all) {
                Throwable t = c.failure;
                if (t != null) {
                    fail(c.getName() + " failed" + (what == null ? "" : " " + what), t);
                }
            }
        }

        /** Asks the client to stop at its next {@link #holdHereIfAsked}, and returns once it has. */
        Hold hold() throws InterruptedException {
            Hold h = new Hold();
            hold = h;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!h.holding.await(100, TimeUnit.MILLISECONDS)) {
                checkHealthy("before holding");
                assertTrue(System.nanoTime() < deadline, getName() + " did not stop in a transaction within 60 s");
            }
            return h;
        }

        /** Stops here, in the middle of a transaction, while the test asked for it; until released. */
        void holdHereIfAsked() {
            Hold h = hold;
            if (h == null) {
                return;
            }
            hold = null;
            h.holding.countDown();
            try {
                assertTrue(h.released.await(120, TimeUnit.SECONDS), getName() + " held for 120 s");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(getName() + " interrupted while held", e);
            }
        }
    }

    /**
     * Sends numbered persistent requests, its name their JMSCorrelationID, and waits for each one's reply on the shared
     * reply queue through a selector on that id; a reply is never lost, and never another requester's.
     */
    private static final class Requester extends Client {
        private final Deliveries deliveries;
        private MessageProducer producer;
        private MessageConsumer replies;
        private Queue replyQueue;
        private int next = 1;
        /** Unmarked replies to a request answered before: the request was delivered again, and answered again. */
        final List<Integer> staleReplies = new ArrayList<>();
        volatile boolean done;

        Requester(String name, String url, Deliveries deliveries) {
            super(name, url);
            this.deliveries = deliveries;
        }

        @Override
        Session open(Connection connection) throws JMSException {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            producer = session.createProducer(session.createQueue(REQUESTS));
            producer.setDeliveryMode(DeliveryMode.PERSISTENT);
            replyQueue = session.createQueue(REPLIES);
            replies = session.createConsumer(replyQueue, "JMSCorrelationID = '" + getName() + "'");
            return session;
        }

        @Override
        boolean step(Session session) throws JMSException {
            if (finishing) {
                done = true;
                return false;
            }
            TextMessage request = session.createTextMessage(String.valueOf(next));
            request.setJMSCorrelationID(getName());
            request.setJMSReplyTo(replyQueue);
            producer.send(request);
            while (true) {
                Message reply = replies.receive(TimeUnit.SECONDS.toMillis(120));
                if (reply == null) {
                    throw new AssertionError("no reply to request " + next + " within 120 s: lost");
                }
                deliveries.delivered(reply);
                assertTrue(getName().equals(reply.getJMSCorrelationID()), "a reply for " + reply.getJMSCorrelationID()
                        + " came through the selector of " + getName());
                int answered = Integer.parseInt(((TextMessage) reply).getText());
                if (answered == next) {
                    next++;
                    worked();
                    return true;
                }
                assertTrue(answered < next, "a reply to request " + answered + " before it was sent");
                if (!reply.getJMSRedelivered()) {
                    // a second answer, to a request delivered again (a marked one is a redelivery)
                    staleReplies.add(answered);
                }
            }
        }

        int rounds() {
            return next - 1;
        }

        void verify(Responder responder) {
            for (int stale : staleReplies) {
                assertTrue(responder.answeredAgain.contains(getName() + ":" + stale), "an extra reply to " + getName()
                        + "'s request " + stale + ", which the responder did not get marked redelivered: "
                        + responder.answeredAgain);
            }
        }
    }

    /** Answers each request with a persistent reply carrying the request's number and correlation id. */
    private static final class Responder extends Client {
        private final Deliveries deliveries;
        private final List<Requester> requesters;
        private MessageConsumer requests;
        private MessageProducer replier;
        /** Requests that came marked redelivered (and were answered again), as "requester:number". */
        final Set<String> answeredAgain = new HashSet<>();

        Responder(String url, Deliveries deliveries, List<Requester> requesters) {
            super("responder", url);
            this.deliveries = deliveries;
            this.requesters = requesters;
        }

        @Override
        Session open(Connection connection) throws JMSException {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            requests = session.createConsumer(session.createQueue(REQUESTS));
            replier = session.createProducer(null);
            replier.setDeliveryMode(DeliveryMode.PERSISTENT);
            return session;
        }

        @Override
        boolean step(Session session) throws JMSException {
            boolean draining = finishing && requesters.stream().allMatch(r -> r.done);
            Message request = draining ? requests.receiveNoWait() : requests.receive(100);
            if (request == null) {
                return !draining;
            }
            deliveries.delivered(request);
            String number = ((TextMessage) request).getText();
            if (request.getJMSRedelivered()) {
                answeredAgain.add(request.getJMSCorrelationID() + ":" + number);
            }
            TextMessage reply = session.createTextMessage(number);
            reply.setJMSCorrelationID(request.getJMSCorrelationID());
            replier.send(request.getJMSReplyTo(), reply);
            worked();
            return true;
        }
    }

    /** Sends batches of numbered persistent messages in transactions, again when a commit says it was rolled back. */
    private static final class TransactedProducer extends Client {
        private MessageProducer producer;
        private int batch;
        final List<List<String>> committed = new ArrayList<>();
        final List<List<String>> inDoubt = new ArrayList<>();
        int rolledBack;
        volatile boolean done;

        TransactedProducer(String url) {
            super("transacted-producer", url);
        }

        @Override
        Session open(Connection connection) throws JMSException {
            Session session = connection.createSession(Session.SESSION_TRANSACTED);
            producer = session.createProducer(session.createQueue(WORK));
            return session;
        }

        @Override
        boolean step(Session session) throws JMSException {
            if (finishing) {
                done = true;
                return false;
            }
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < BATCH; i++) {
                ids.add("work-" + batch + "-" + i);
            }
            while (true) {
                for (String id : ids) {
                    producer.send(session.createTextMessage(id));
                }
                holdHereIfAsked();
                switch (commit(session)) {
                    case COMMITTED -> {
                        committed.add(ids);
                        batch++;
                        worked();
                        return true;
                    }
                    case ROLLED_BACK -> rolledBack++; // open at the kill: nothing of it is stored; sent again
                    case IN_DOUBT -> inDoubt.add(ids); // stored or not: sent again, so it may arrive twice
                }
            }
        }
    }

    /** Receives in transactions of up to a batch, and records what its commits settled. */
    private static final class TransactedConsumer extends Client {
        private final Deliveries deliveries;
        private final TransactedProducer producer;
        private MessageConsumer consumer;
        private final List<String> consumed = new ArrayList<>();
        private final Set<String> consumeInDoubt = new HashSet<>();

        TransactedConsumer(String url, Deliveries deliveries, TransactedProducer producer) {
            super("transacted-consumer", url);
            this.deliveries = deliveries;
            this.producer = producer;
        }

        @Override
        Session open(Connection connection) throws JMSException {
            Session session = connection.createSession(Session.SESSION_TRANSACTED);
            consumer = session.createConsumer(session.createQueue(WORK));
            return session;
        }

        @Override
        boolean step(Session session) throws JMSException {
            boolean draining = finishing && producer.done;
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < BATCH; i++) {
                Message m = draining ? consumer.receiveNoWait() : consumer.receive(100);
                if (m == null) {
                    break;
                }
                deliveries.delivered(m);
                ids.add(((TextMessage) m).getText());
            }
            if (ids.isEmpty()) {
                return !draining;
            }
            holdHereIfAsked();
            switch (commit(session)) {
                case COMMITTED -> {
                    consumed.addAll(ids);
                    worked();
                }
                case ROLLED_BACK -> {
                    // open at the kill: the messages come again, marked
                }
                case IN_DOUBT -> consumeInDoubt.addAll(ids); // consumed, or coming again marked
            }
            return true;
        }

        void verify(TransactedProducer producer) {
            assertFalse(producer.committed.isEmpty(), "the producer committed nothing: the test proves nothing");
            Set<String> settled = new HashSet<>(consumed);
            settled.addAll(consumeInDoubt);
            Set<String> maybeTwice = new HashSet<>();
            producer.inDoubt.forEach(maybeTwice::addAll);
            List<List<String>> sent = new ArrayList<>(producer.committed);
            sent.addAll(producer.inDoubt);
            for (List<String> batch : sent) {
                for (String id : batch) {
                    assertTrue(settled.contains(id), "message " + id + " was committed by its producer and never"
                            + " consumed: lost");
                }
            }
            Map<String, Integer> copies = new HashMap<>();
            consumed.forEach(id -> copies.merge(id, 1, Integer::sum));
            copies.forEach((id, n) -> assertTrue(n == 1 || maybeTwice.contains(id), "message " + id + " was consumed "
                    + n + " times, but its producer's commit was not in doubt"));
        }
    }
}
