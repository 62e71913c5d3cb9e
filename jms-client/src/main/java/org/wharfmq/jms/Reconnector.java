package org.wharfmq.jms;

import org.wharfmq.client.core.ReconnectPolicy;

import org.wharfmq.client.core.ConnectedLink;

import org.wharfmq.client.core.transport.BrokerAddress;

import javax.jms.JMSException;
import javax.jms.JMSSecurityException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * One reconnection of a {@link WharfConnection} whose link was lost, on a thread of its own
 * ({@code wharf-reconnect-ADDRESS}): attempts as the URL's {@link ReconnectPolicy} says, each going once round the URL's
 * addresses starting with the one lost, until one opens a link on which the connection re-establishes itself
 * ({@link WharfConnection#reestablish}); or gives up, and the connection is lost ({@link WharfConnection#giveUp}).
 * Refused credentials give up at once: they would be refused again, and each refusal counts against the user at the
 * server's login throttle. The connection's {@link FailoverListener} hears of each step.
 */
final class Reconnector {
    private static final System.Logger LOG = System.getLogger(Reconnector.class.getName());

    private final WharfConnection connection;
    private final ConnectedLink lost;
    private final JMSException cause;
    private final ReconnectPolicy policy;
    private final Thread thread;
    private volatile boolean stopped;

    /**
     * @param lost  the link that was lost
     * @param cause why
     */
    Reconnector(WharfConnection connection, ConnectedLink lost, JMSException cause) {
        this.connection = connection;
        this.lost = lost;
        this.cause = cause;
        this.policy = connection.url().reconnect();
        this.thread = new Thread(this::run, "wharf-reconnect-" + lost.address());
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    /** The connection is closing: no further attempt is made, and an attempt under way ends as soon as it can. */
    void stop() {
        stopped = true;
        LockSupport.unpark(thread);
    }

    private void run() {
        connection.failover(new FailoverEvent(FailoverEvent.Kind.DISCONNECTED, lost.address().toString(), 0, cause));
        List<BrokerAddress> order = ReconnectPolicy.order(connection.url().addresses(), lost.address());
        JMSException last = cause;
        int attempt = 0;
        while (policy.allows(attempt + 1)) {
            attempt++;
            if (!pause(policy.delayBefore(attempt))) {
                return;
            }
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
                    connection.failover(new FailoverEvent(FailoverEvent.Kind.RECONNECTED, address.toString(), attempt, null));
                    return;
                } catch (JMSSecurityException refused) {
                    close(next);
                    giveUp(JmsErrors.wrap(cause.getMessage() + "; reconnecting gave up: Wharf at " + address
                            + " refused this connection's credentials: " + refused.getMessage(), refused), attempt);
                    return;
                } catch (JMSException e) {
                    close(next);
                    last = e;
                    LOG.log(System.Logger.Level.DEBUG, "Reconnection attempt {0} to {1} failed: {2}", attempt, address,
                            e.getMessage());
                }
            }
        }
        giveUp(JmsErrors.wrap(cause.getMessage() + "; reconnecting gave up after " + attempt + " attempt(s) over "
                + addresses(order) + " (" + policy.describe() + "; raise reconnectAttempts, or -1 to try for ever)."
                + " The last attempt: " + last.getMessage(), last), attempt);
    }

    private void giveUp(JMSException why, int attempts) {
        LOG.log(System.Logger.Level.WARNING, why.getMessage());
        connection.giveUp(why, this);
        connection.failover(new FailoverEvent(FailoverEvent.Kind.FAILED, lost.address().toString(), attempts, why));
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
