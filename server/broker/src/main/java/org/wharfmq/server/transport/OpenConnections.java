package org.wharfmq.server.transport;

import io.netty.util.concurrent.Future;
import org.wharfmq.server.Configuration;
import org.wharfmq.server.WharfException;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The client connections of one server that have completed their handshake, by the number the server gives each:
 * what the management view lists ({@code display connections}) and ends ({@code end connection}). A connection
 * enters at HELLO_OK and leaves when it ends. Its state belongs to its event loop, so it is read by a task there
 * ({@link #describe}) and never from the asking thread; the asking thread waits, so it must not be an event loop.
 */
public final class OpenConnections {

    /** How long {@link #end} waits for a connection told to end to close before it closes it without more ado. */
    private static final long END_WAIT_MILLIS = 5_000;

    private final AtomicLong ids = new AtomicLong();
    private final ConcurrentHashMap<Long, ServerConnection> byId = new ConcurrentHashMap<>();
    /** Bytes read from and written to connections that have ended (added once per connection, as it ends). */
    private final LongAdder endedBytesIn = new LongAdder();
    private final LongAdder endedBytesOut = new LongAdder();

    /** A connection completed its handshake: its number. */
    long add(ServerConnection connection) {
        long id = ids.incrementAndGet();
        byId.put(id, connection);
        return id;
    }

    /** The connection {@code id} ended, having read and written so many bytes. */
    void remove(long id, long bytesIn, long bytesOut) {
        if (byId.remove(id) != null) {
            endedBytesIn.add(bytesIn);
            endedBytesOut.add(bytesOut);
        }
    }

    /** How many connections have completed their handshake since the start. */
    public long opened() {
        return ids.get();
    }

    /** Bytes read from connections that have ended. */
    public long endedBytesIn() {
        return endedBytesIn.sum();
    }

    /** Bytes written to connections that have ended. */
    public long endedBytesOut() {
        return endedBytesOut.sum();
    }

    /** How many connections are open, in-VM ones included. */
    public int count() {
        return byId.size();
    }

    /**
     * Every open connection, by number, each described by its own event loop. One that ends while it is asked is left
     * out.
     *
     * @throws IllegalStateException when an event loop does not answer within
     *                               {@link Configuration#ADMIN_STORE_WAIT_MILLIS}
     */
    public List<ConnectionInfo> describe() {
        List<Future<ConnectionInfo>> answers = new ArrayList<>(byId.size());
        for (ServerConnection connection : byId.values()) {
            answers.add(connection.eventLoop().submit(connection::info));
        }
        List<ConnectionInfo> infos = new ArrayList<>(answers.size());
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Configuration.ADMIN_STORE_WAIT_MILLIS);
        for (Future<ConnectionInfo> answer : answers) {
            ConnectionInfo info = await(answer, deadline);
            if (info != null) {
                infos.add(info);
            }
        }
        infos.sort(Comparator.comparingLong(ConnectionInfo::id));
        return infos;
    }

    private static ConnectionInfo await(Future<ConnectionInfo> answer, long deadline) {
        try {
            return answer.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while asking the connections for their state.", e);
        } catch (ExecutionException e) { // its loop is shutting down: the server is stopping
            return null;
        } catch (TimeoutException e) {
            throw new IllegalStateException("A connection's event loop did not answer within "
                    + Configuration.ADMIN_STORE_WAIT_MILLIS + " ms: the server is overloaded or stuck; see its log.");
        }
    }

    /**
     * Ends a connection as an administrator asks: the client is told {@code reason} (ERROR SERVER_CLOSING: its
     * ExceptionListener sees the connection lost), then the connection is closed, its sessions closing as if it had
     * dropped (unacknowledged messages go back to their queues, open transactions roll back). Waits until it is
     * closed.
     *
     * @return the connection as it was just before
     * @throws NoSuchElementException when no connection has that number (it may have ended already)
     * @throws WharfException ILLEGAL_STATE for an in-VM connection: the queue manager's own plugins and flows, or the
     *                        application that embeds it, which only they can close
     */
    public ConnectionInfo end(long id, String reason) {
        ServerConnection connection = byId.get(id);
        if (connection == null) {
            throw new NoSuchElementException("There is no open connection " + id + " ('display connections' lists "
                    + "the open ones; it may have ended already).");
        }
        if (connection.inVm()) {
            throw WharfException.illegalState("Connection " + id + " is an in-VM connection, from inside the queue "
                    + "manager's own process (a plugin, a flow, or the application that embeds the server): only what "
                    + "opened it can close it.");
        }
        Future<ConnectionInfo> told = connection.eventLoop().submit(() -> {
            ConnectionInfo info = connection.info();
            if (info != null) {
                connection.end(reason);
            }
            return info;
        });
        ConnectionInfo before;
        try {
            before = told.get(END_WAIT_MILLIS, TimeUnit.MILLISECONDS);
            connection.closeFuture().await(END_WAIT_MILLIS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while ending connection " + id + ".", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("Connection " + id + " could not be told to end (" + e + "): it is closed.",
                    e);
        } finally {
            connection.closeFuture().channel().close(); // closed already, unless its client does not read its socket
        }
        if (before == null) {
            throw new NoSuchElementException("Connection " + id + " has ended already.");
        }
        return before;
    }
}
