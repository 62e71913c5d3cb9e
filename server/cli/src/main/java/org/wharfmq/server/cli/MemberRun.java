package org.wharfmq.server.cli;

import org.wharfmq.server.WharfServer;
import org.wharfmq.server.config.ConfigurationException;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.replication.Member;
import org.wharfmq.server.replication.ReplicationConfiguration;
import org.wharfmq.server.replication.ReplicationMember;
import org.wharfmq.server.replication.ReplicationSettings;
import org.wharfmq.server.security.AccessControl;
import org.wharfmq.server.security.Authenticator;
import org.wharfmq.server.security.Logins;
import org.wharfmq.server.security.file.SecurityFileRealm;
import org.wharfmq.server.transport.StatusListener;

import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code wharf server} as a member of a replicated queue manager, for the life of its process: it follows as a replica
 * until it is elected active, runs the queue manager while it is active, and when it stops being active (fenced: cut
 * off from both others, paused past the election timeout, a switchover) it closes the queue manager and follows as a
 * replica again, in the same process, its journal rebuilt from the log as at a start. So a lost leadership costs a
 * failover, never a member: the group keeps its three members whatever the elections, and a process ends only when
 * it is stopped (Ctrl-C, SIGTERM) or its start is refused.
 *
 * <p>Threads: {@link #run} on the command's thread, the one owner of the member and queue manager it starts; the
 * shutdown hook stops the current ones ({@link #stop}) and waits for {@link #run} to end, at most
 * {@link #STOP_WAIT_SECONDS}.
 */
final class MemberRun {

    /** How long the shutdown hook waits for the member's loop to end once it closed what runs. */
    private static final long STOP_WAIT_SECONDS = 30;
    /**
     * How long a member rejoining in its process waits for its replication port to be free (its closed log's listener
     * may still be closing: Ratis ends the JVM when its listener cannot bind).
     */
    private static final Duration PORT_WAIT = Duration.ofSeconds(30);

    /**
     * Makes the queue manager a member will run once elected active, with its store, its plugins and its users: made
     * and {@link QueueManagerStart#prepare prepared} while the member follows as a replica, started at its takeover.
     */
    @FunctionalInterface
    interface QueueManagers {
        QueueManagerStart make(ReplicationMember member);
    }

    private final ConfigurationFile file;
    private final ServerConfig config;
    private final SecurityFileRealm users;
    private final String id;
    private final QueueManagers queueManagers;
    private final String configName;
    /** Completed by the shutdown hook. */
    private final CompletableFuture<Void> stop = new CompletableFuture<>();
    private final CountDownLatch ended = new CountDownLatch(1);
    private final Object lock = new Object();
    /** The member and queue manager now running, for the shutdown hook; guarded by {@link #lock}. */
    private ReplicationMember member;
    private WharfServer server;
    /** The queue manager made and prepared while the member follows ({@link #follow}), started at its takeover. */
    private QueueManagerStart prepared;

    MemberRun(ConfigurationFile file, ServerConfig config, SecurityFileRealm users, String id,
              QueueManagers queueManagers, String configName) {
        this.file = file;
        this.config = config;
        this.users = users;
        this.id = id;
        this.queueManagers = queueManagers;
        this.configName = configName;
    }

    /**
     * Runs the member until the process is stopped.
     *
     * @return the process's exit status: 0 when stopped, {@link ServerCommand#BAD_CONFIGURATION} for a start refused
     * (its settings differ from the group's), {@link ServerCommand#CANNOT_LISTEN} for a port it cannot listen on,
     * {@link ServerCommand#LOG_STOPPED} for a replica whose log stopped by itself
     */
    int run() throws Exception {
        Thread hook = new Thread(this::stop, "wharf-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            StandDown standingDown = null; // after a fence, until the member follows again
            while (!stop.isDone()) {
                ReplicationMember replica;
                try {
                    replica = follow(standingDown);
                    standingDown = null;
                } catch (LogStoppedException e) {
                    System.err.println("wharf: " + e.getMessage());
                    return ServerCommand.LOG_STOPPED;
                } catch (ConfigurationException | IllegalArgumentException | BindException | IllegalStateException e) {
                    // BindException, IllegalStateException: the replica's client or HTTP listener cannot listen
                    System.err.println("wharf: " + e.getMessage());
                    return ServerCommand.refusedStartStatus(e);
                }
                if (replica == null) {
                    return 0; // stopped meanwhile
                }
                long listenersClosedAt = System.nanoTime();
                WharfServer active;
                try {
                    active = prepared.start();
                } catch (BindException | IllegalStateException | ConfigurationException | IllegalArgumentException e) {
                    System.err.println("wharf: " + e.getMessage());
                    forget(replica, null);
                    ServerCommand.closeQuietly(replica);
                    if (replica.fenced().isDone()) {
                        // it lost the leadership while it started (what failed may be a plugin's change refused for it)
                        System.err.println("wharf: " + replica.fenced().join());
                        sayStandingDown(null);
                        standingDown = new StandDown(config.name(), id);
                        continue;
                    }
                    return ServerCommand.refusedStartStatus(e);
                }
                if (!adopt(replica, active)) {
                    return 0;
                }
                if (!replica.fenced().isDone()) { // fenced at its takeover: it stands down at once, below
                    ServerCommand.printReady(config, active, configName, prepared.http());
                    sayTookOver(replica, listenersClosedAt, active);
                }
                CompletableFuture.anyOf(replica.fenced(), stop).join();
                if (stop.isDone()) {
                    return 0; // the hook closes them
                }
                standingDown = standDown(replica, active);
            }
            return 0;
        } finally {
            ended.countDown();
        }
    }

    /**
     * After the fence: the other members elect a new active instance, so this one stops taking work at once. Its
     * clients lose their connections before the failed batches' waiters hear of it (the member fails them only once
     * told, {@link ReplicationMember#stoppedServing}), then the queue manager closes (which waits for those waiters).
     * The member stays in the group until another member leads (its vote may elect it: a switchover's), then closes.
     * Each step is timed ({@link StandDown}): the rejoin line names them, and a stand-down that takes longer than
     * {@link StandDown#STUCK_AFTER} prints the step it is in and the process's threads.
     */
    private StandDown standDown(ReplicationMember fenced, WharfServer active) {
        StandDown steps = new StandDown(config.name(), id);
        active.disconnectClients();
        fenced.stoppedServing();
        steps.done("clients disconnected");
        System.out.println("Wharf queue manager " + config.name() + ": member " + id + " serves no clients any more: "
                + fenced.fenced().join());
        System.out.flush();
        active.close();
        steps.done("queue manager closed");
        String next = fenced.awaitSuccessor(ReplicationConfiguration.SUCCESSOR_WAIT);
        steps.done(next == null ? "no successor known" : "successor " + next + " known");
        forget(fenced, active);
        ServerCommand.closeQuietly(fenced);
        steps.done("log closed");
        sayStandingDown(next);
        return steps;
    }

    /**
     * Where a takeover's time went, after the ready line: from the member's election (Raft's, its role's age now) to
     * this member hearing of it (its term's first entry committed and applied), and from there to its queue manager
     * serving: the replica's listeners closed, the store opened from the replica's state, then, since, the queues
     * recovered, the listeners bound and each plugin started ({@link WharfServer#startSteps}).
     */
    private void sayTookOver(ReplicationMember elected, long listenersClosedAt, WharfServer active) {
        long now = System.nanoTime();
        long heardAt = elected.electedAt();
        long leaderFor = elected.log().roleMillis();
        System.out.println("Wharf queue manager " + config.name() + ": member " + id + " took over in "
                + millis(heardAt, now) + " ms: Raft leader for " + leaderFor + " ms at its ready line (it heard it won "
                + (leaderFor - millis(heardAt, now)) + " ms after its election; since: its replica's listeners closed "
                + millis(heardAt, listenersClosedAt) + " ms, its store open " + millis(heardAt, elected.storeOpenedAt())
                + " ms; since: " + active.startSteps() + ")");
        System.out.flush();
    }

    private static long millis(long fromNanos, long toNanos) {
        return TimeUnit.NANOSECONDS.toMillis(toNanos - fromNanos);
    }

    private void sayStandingDown(String next) {
        System.out.println("Wharf queue manager " + config.name() + ": member " + id + " stands down ("
                + (next == null ? "no other member became active within " + ReplicationConfiguration.SUCCESSOR_WAIT
                : "member " + next + " is active") + ") and starts again as a replica");
        System.out.flush();
    }

    /**
     * Starts this instance's member and waits, as a replica, until it is elected active: only the active instance
     * serves applications, so clients' address lists find it. Meanwhile its client ports take status sessions alone
     * ({@link StatusListener}: wharf admin's read-only commands; applications are refused) and its HTTP listener, when
     * it has one, answers for the replica's own status ({@link ReplicaListener}); both close before the takeover.
     * Returns null when the process is stopped meanwhile; refused (IllegalArgumentException, naming the setting) when
     * its settings differ from those of the member elected active. {@code rejoining} (else null): the member closed
     * its log a moment ago after a fence, and waits for its replication port first; the steps since are timed there.
     */
    private ReplicationMember follow(StandDown rejoining) throws Exception {
        ReplicationSettings replication = file.replication();
        if (rejoining != null) {
            awaitPortFree(replication.membership().member(id));
            rejoining.done("replication port free");
        }
        ReplicationMember started = ReplicationMember.start(config, replication.membership(), id, replication.tls(),
                replication.timings());
        if (!adopt(started, null)) {
            return null;
        }
        // the replica's doors, both with the users and permissions the queue manager will have: its client ports for
        // wharf admin's status sessions (applications refused, so their address lists go on), its HTTP listener
        Logins logins = new Logins(users != null ? users : Authenticator.localOnly());
        AccessControl access = users != null ? users.accessControl() : AccessControl.allowAll();
        ReplicaStatusReport report = new ReplicaStatusReport(config, replication.membership(), started::state);
        StatusListener clients = null;
        ReplicaListener status = null;
        try {
            clients = StatusListener.open(config, logins, access, report);
            status = ReplicaListener.open(file.http(), config, logins, access, report, started::state);
        } catch (Exception | Error e) {
            if (clients != null) {
                clients.close();
            }
            forget(started, null);
            ServerCommand.closeQuietly(started);
            throw e;
        }
        if (rejoining != null) {
            rejoining.done("log started");
            rejoining.end();
        }
        System.out.println("Wharf queue manager " + config.name() + ": member " + id + " of replication group '"
                + replication.membership().group() + "' " + (rejoining != null ? "rejoins as a replica and follows"
                : "follows as a replica") + " until it is elected active" + (rejoining != null ? " (" + rejoining
                + ")" : ""));
        System.out.flush();
        // the queue manager it will run once elected, made and its slow parts done now rather than at the takeover
        prepared = queueManagers.make(started);
        try {
            prepared.prepare();
            CompletableFuture.anyOf(started.elected(), started.refused(), started.logStopped(), stop).get();
        } catch (ExecutionException e) {
            throw new IllegalStateException("Replication member " + id + " failed while a replica: " + e.getCause(),
                    e.getCause());
        } finally {
            clients.close(); // the queue manager's listeners open on these ports at the takeover
            if (status != null) {
                status.close(); // and its own HTTP listener on this one
            }
            if (stop.isDone() || !started.elected().isDone()) {
                prepared.close(); // it will not take over
            }
        }
        if (stop.isDone()) {
            System.out.println("Wharf queue manager " + config.name() + ": member " + id + " stopped");
            System.out.flush();
            return null;
        }
        if (!started.elected().isDone() && started.refused().isDone()) {
            // its settings differ from the elected member's (members started together compare them then)
            forget(started, null);
            ServerCommand.closeQuietly(started);
            throw new IllegalArgumentException(started.refused().join());
        }
        if (!started.elected().isDone() && started.logStopped().isDone()) {
            // an entry it could not apply, or its removal from the group: it can neither serve nor follow
            forget(started, null);
            ServerCommand.closeQuietly(started);
            throw new LogStoppedException(started.logStopped().join());
        }
        return started;
    }

    /** A replica's log stopped by itself ({@link ReplicationMember#logStopped}): the process ends, saying why. */
    private static final class LogStoppedException extends RuntimeException {
        LogStoppedException(String reason) {
            super(reason);
        }
    }

    /**
     * Waits, at most {@link #PORT_WAIT}, until this member's replication port can be bound, as the listener of the log
     * it closed to rejoin closes.
     */
    private static void awaitPortFree(Member self) {
        long deadline = System.nanoTime() + PORT_WAIT.toNanos();
        while (true) {
            try (ServerSocket probe = new ServerSocket()) {
                probe.bind(new InetSocketAddress(self.host(), self.port()));
                return;
            } catch (IOException inUse) {
                if (System.nanoTime() - deadline >= 0) {
                    return; // the member's start names the port
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
            }
        }
    }

    /** Notes what runs now, for the hook; false (and closes it) when the process is being stopped. */
    private boolean adopt(ReplicationMember running, WharfServer queueManager) {
        synchronized (lock) {
            if (!stop.isDone()) {
                member = running;
                server = queueManager;
                return true;
            }
        }
        if (queueManager != null) {
            queueManager.close();
        }
        ServerCommand.closeQuietly(running);
        return false;
    }

    private void forget(ReplicationMember closing, WharfServer queueManager) {
        synchronized (lock) {
            if (member == closing) {
                member = null;
            }
            if (server == queueManager) {
                server = null;
            }
        }
    }

    /** The shutdown hook: closes the queue manager and the member now running, and waits for {@link #run} to end. */
    private void stop() {
        ReplicationMember running;
        WharfServer queueManager;
        synchronized (lock) {
            stop.complete(null);
            running = member;
            queueManager = server;
            member = null;
            server = null;
        }
        if (queueManager != null) {
            queueManager.close();
        }
        ServerCommand.closeQuietly(running);
        if (users != null) {
            users.close();
        }
        try {
            ended.await(STOP_WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (queueManager != null) {
            System.out.println("Wharf queue manager " + config.name() + " stopped");
            System.out.flush();
        }
    }
}
