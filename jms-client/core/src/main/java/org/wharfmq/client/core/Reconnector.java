package org.wharfmq.client.core;

import org.wharfmq.client.core.transport.BrokerAddress;
import org.wharfmq.protocol.frame.ErrorCode;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * One reconnection of a connection whose link was lost, on a thread of its own ({@code wharf-reconnect-ADDRESS}):
 * attempts as its {@link ReconnectPolicy} says, each going once round the addresses starting with the one lost
 * ({@link ReconnectPolicy#order}), until one opens a link on which the connection re-establishes itself
 * ({@link Connection#reestablish}); or gives up, and the connection is lost ({@link Connection#giveUp}). A round that
 * a replica of a replicated queue manager answered NOT_ACTIVE is not counted, and the next follows it shortly
 * ({@link ReconnectPolicy#delayWhileNotActive}), for {@link ClientConfiguration#NOT_ACTIVE_RETRY_WINDOW_MILLIS} after
 * the first such answer. Refused
 * credentials give up at once: they would be refused again, and each refusal counts against the user at the server's
 * login throttle. The connection hears of each step ({@link Connection#failover}).
 */
public final class Reconnector {
    private static final System.Logger LOG = System.getLogger(Reconnector.class.getName());

    /** What a reconnection asks of its connection; called on the reconnection's thread. */
    public interface Connection {
        /** Opens and handshakes a link to {@code address} ({@link LinkHandler#open}). */
        ConnectedLink open(BrokerAddress address) throws ClientException;

        /** Re-creates on {@code next} what the server knew of the connection, and makes it the usable link. */
        void reestablish(ConnectedLink next) throws ClientException;

        /** Reconnecting gave up: the connection is lost for good, for {@code why}. */
        void giveUp(ClientException why, Reconnector stopped);

        /** A step of the reconnection: {@code cause} is why the link was lost, or why reconnecting gave up. */
        void failover(Step step, BrokerAddress address, int attempts, ClientException cause);
    }

    /** The steps a connection hears of. */
    public enum Step {
        /** The link was lost; reconnecting starts. */
        DISCONNECTED,
        /** A new link is up and everything is re-established on it. */
        RECONNECTED,
        /** Reconnecting gave up. */
        FAILED
    }

    private final Connection connection;
    private final List<BrokerAddress> addresses;
    private final ConnectedLink lost;
    private final ClientException cause;
    private final ReconnectPolicy policy;
    private final Thread thread;
    private volatile boolean stopped;

    /**
     * @param addresses all the connection's addresses, in the order they were given
     * @param lost      the link that was lost
     * @param cause     why
     */
    public Reconnector(Connection connection, List<BrokerAddress> addresses, ReconnectPolicy policy, ConnectedLink lost,
                       ClientException cause) {
        this.connection = connection;
        this.addresses = addresses;
        this.lost = lost;
        this.cause = cause;
        this.policy = policy;
        this.thread = new Thread(this::run, "wharf-reconnect-" + lost.address());
        this.thread.setDaemon(true);
    }

    public void start() {
        thread.start();
    }

    /** The connection is closing: no further attempt is made, and an attempt under way ends as soon as it can. */
    public void stop() {
        stopped = true;
        LockSupport.unpark(thread);
    }

    private void run() {
        connection.failover(Step.DISCONNECTED, lost.address(), 0, cause);
        List<BrokerAddress> order = ReconnectPolicy.order(addresses, lost.address());
        ClientException last = cause;
        int attempt = 0;
        long delay = policy.delayBefore(1);
        long notActiveSince = 0; // nanoTime of the first NOT_ACTIVE, 0 before it
        while (policy.allows(attempt + 1)) {
            attempt++;
            if (!pause(delay)) {
                return;
            }
            boolean notActive = false;
            for (BrokerAddress address : order) {
                if (stopped) {
                    return;
                }
                ConnectedLink next = null;
                try {
                    next = connection.open(address);
                    connection.reestablish(next);
                    LOG.log(System.Logger.Level.INFO, "Reconnected to Wharf at {0} (attempt {1}) after: {2}", address,
                            attempt, cause.getMessage());
                    connection.failover(Step.RECONNECTED, address, attempt, null);
                    return;
                } catch (ClientException e) {
                    close(next);
                    if (refusesCredentials(e)) {
                        giveUp(new ClientException(cause.getMessage() + "; reconnecting gave up: Wharf at " + address
                                + " refused this connection's credentials: " + e.getMessage(), e), attempt);
                        return;
                    }
                    last = e;
                    notActive |= e.code() == ErrorCode.NOT_ACTIVE;
                    LOG.log(System.Logger.Level.DEBUG, "Reconnection attempt {0} to {1} failed: {2}", attempt, address,
                            e.getMessage());
                }
            }
            long now = System.nanoTime();
            if (notActive && notActiveSince == 0) {
                notActiveSince = now;
            }
            if (notActive && now - notActiveSince < TimeUnit.MILLISECONDS.toNanos(
                    ClientConfiguration.NOT_ACTIVE_RETRY_WINDOW_MILLIS)) {
                // a replica answered: its group elects or takes over, the active member listens any moment
                attempt--;
                delay = policy.delayWhileNotActive();
            } else {
                delay = policy.delayBefore(attempt + 1);
            }
        }
        giveUp(new ClientException(cause.getMessage() + "; reconnecting gave up after " + attempt + " attempt(s) over "
                + addresses(order) + " (" + policy.describe() + "; raise reconnectAttempts, or -1 to try for ever)."
                + " The last attempt: " + last.getMessage(), last), attempt);
    }

    /** The server refused the connection's user: asking again would be refused again. */
    private static boolean refusesCredentials(ClientException e) {
        return e.code() == ErrorCode.AUTHENTICATION_FAILED || e.code() == ErrorCode.NOT_AUTHORISED;
    }

    private void giveUp(ClientException why, int attempts) {
        LOG.log(System.Logger.Level.WARNING, why.getMessage());
        connection.giveUp(why, this);
        connection.failover(Step.FAILED, lost.address(), attempts, why);
    }

    /** Waits {@code millis} unless stopped; false when stopped. */
    private boolean pause(long millis) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (!stopped) {
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0) {
                return true;
            }
            LockSupport.parkNanos(this, remaining);
        }
        return false;
    }

    private static void close(ConnectedLink link) {
        if (link != null) {
            link.link().close(0);
        }
    }

    private static String addresses(List<BrokerAddress> addresses) {
        List<String> shown = new ArrayList<>();
        for (BrokerAddress a : addresses) {
            shown.add(a.toString());
        }
        return String.join(", ", shown);
    }
}
