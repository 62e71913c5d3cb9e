package org.wharfmq.server.it;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * A TCP relay between a client and a server, so a test can cut a live connection the way a network failure does:
 * {@link #killConnections()} resets both sockets of every relayed connection at once, with no orderly close;
 * {@link #cutClientSides()} resets only the client's side and leaves the server's open and silent, a half-open
 * connection as a pulled cable leaves it, which the server finds dead only when its heartbeat runs out.
 * {@link #swallow()} keeps every relayed connection open on both sides but relays nothing more either way: a path that
 * drops every packet, whose loss each end finds only when its heartbeat runs out, and whatever it writes meanwhile
 * goes nowhere.
 * {@link #cut()} and {@link #heal()} take the path down and up again: while cut, every connection is reset, new ones
 * included. {@link #holdReplies()} keeps what the server writes from the client, unlost, until
 * {@link #releaseReplies()}: a path that is slow one way.
 */
public final class TcpProxy implements AutoCloseable {

    private final ServerSocket listener;
    private final int targetPort;
    /** Whether the path is down ({@link #cut}): connections made meanwhile are reset at once. */
    private volatile boolean cut;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    /** The client side of each relayed connection; its server side is in {@link #sockets} too. */
    private final Set<Socket> clientSides = ConcurrentHashMap.newKeySet();
    /** Server sides left open on purpose by {@link #cutClientSides}: the pumps do not reset them. */
    private final Set<Socket> leftOpen = ConcurrentHashMap.newKeySet();
    /** Sockets whose pumps read on but relay nothing ({@link #swallow}). */
    private final Set<Socket> swallowed = ConcurrentHashMap.newKeySet();
    /** Bytes relayed from the servers to the clients, over every connection. */
    private final LongAdder fromServers = new LongAdder();
    /** Whether what the servers write waits, read but unrelayed, until {@link #releaseReplies}; guarded by itself. */
    private final boolean[] holding = {false};

    private TcpProxy(ServerSocket listener, int targetPort) {
        this.listener = listener;
        this.targetPort = targetPort;
    }

    /** Starts relaying connections made to {@link #url()} to 127.0.0.1:{@code targetPort}. */
    public static TcpProxy start(int targetPort) throws IOException {
        ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        TcpProxy proxy = new TcpProxy(listener, targetPort);
        daemon("tcp-proxy-accept", proxy::acceptLoop).start();
        return proxy;
    }

    /**
     * Starts relaying connections made to {@code address}:{@code port} (a loopback address of its own, 127.0.x.y, so
     * that several proxies to one port can stand for several paths) to 127.0.0.1:{@code targetPort}.
     */
    public static TcpProxy start(InetAddress address, int port, int targetPort) throws IOException {
        ServerSocket listener = new ServerSocket(port, 50, address);
        TcpProxy proxy = new TcpProxy(listener, targetPort);
        daemon("tcp-proxy-accept", proxy::acceptLoop).start();
        return proxy;
    }

    /** Takes the path down: every relayed connection is reset, and so is every new one until {@link #heal}. */
    public void cut() {
        cut = true;
        killConnections();
    }

    /** Brings the path up again: new connections are relayed. */
    public void heal() {
        cut = false;
    }

    /** The broker URL that goes through this proxy. */
    public String url() {
        return "tcp://127.0.0.1:" + listener.getLocalPort();
    }

    /** Resets every relayed connection on both sides; new connections are still accepted. */
    public void killConnections() {
        for (Socket socket : sockets) {
            reset(socket);
        }
        sockets.clear();
    }

    /**
     * Resets the client's side of every relayed connection and stops relaying, but leaves the server's side open: the
     * server sees nothing happen. New connections are still accepted.
     */
    public void cutClientSides() {
        for (Socket socket : sockets) {
            if (!clientSides.contains(socket)) {
                leftOpen.add(socket);
            }
        }
        for (Socket client : clientSides) {
            reset(client);
        }
        sockets.removeAll(clientSides);
        clientSides.clear();
    }

    /**
     * Relays nothing more on the connections relayed now, either way, resetting none: what either end writes is read
     * and dropped, as a path that loses every packet loses it, so neither end learns of it but by its heartbeat. New
     * connections are relayed.
     */
    public void swallow() {
        swallowed.addAll(sockets);
    }

    /**
     * Relays nothing more from the server's side of any connection (what it writes is read and kept) until
     * {@link #releaseReplies}; the client's side is relayed as before.
     */
    public void holdReplies() {
        synchronized (holding) {
            holding[0] = true;
        }
    }

    /** Relays what the servers wrote meanwhile ({@link #holdReplies}), in order, and what they write from now on. */
    public void releaseReplies() {
        synchronized (holding) {
            holding[0] = false;
            holding.notifyAll();
        }
    }

    /** Returns once replies are relayed ({@link #releaseReplies}). */
    private void awaitReplies() throws InterruptedException {
        synchronized (holding) {
            while (holding[0]) {
                holding.wait();
            }
        }
    }

    /**
     * Bytes relayed so far from the servers to the clients, over every connection: all a client has read, once it has
     * read what it waited for.
     */
    public long bytesFromServers() {
        return fromServers.sum();
    }

    @Override
    public void close() throws IOException {
        releaseReplies();
        listener.close();
        killConnections();
        for (Socket socket : leftOpen) {
            reset(socket);
        }
    }

    private void acceptLoop() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                if (cut) {
                    reset(client);
                    continue;
                }
                Socket server;
                try {
                    server = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                } catch (IOException refused) { // the server is down: so is this connection, not the proxy
                    reset(client);
                    continue;
                }
                client.setTcpNoDelay(true);
                server.setTcpNoDelay(true);
                sockets.add(client);
                sockets.add(server);
                clientSides.add(client);
                daemon("tcp-proxy-up", () -> pump(client, server)).start();
                daemon("tcp-proxy-down", () -> pump(server, client)).start();
            } catch (IOException e) {
                return; // listener closed
            }
        }
    }

    private void pump(Socket from, Socket to) {
        byte[] buffer = new byte[16 * 1024];
        try {
            // not closed here: closing a socket's stream closes the socket, and a side left open must stay open
            InputStream in = from.getInputStream();
            OutputStream out = to.getOutputStream();
            int n;
            boolean fromServer = !clientSides.contains(from);
            while ((n = in.read(buffer)) >= 0) {
                if (fromServer) {
                    awaitReplies();
                }
                if (!swallowed.contains(from)) {
                    out.write(buffer, 0, n);
                    out.flush();
                    if (fromServer) {
                        fromServers.add(n);
                    }
                }
            }
            if (fromServer && !swallowed.contains(from)) {
                // the server closed in order: so does the path, after what it wrote (a reset here could reach the
                // client before it reads the server's last frames, which a real network never does); the client's
                // own close, or its write to the closed server, ends the other pump and resets both sides
                to.shutdownOutput();
            }
        } catch (IOException e) {
            // one side is gone: the finally below takes the other side down too
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            // a side closed in order above stays readable until the client closes it
            if (!leftOpen.contains(from) && !to.isOutputShutdown()) {
                reset(from);
            }
            if (!leftOpen.contains(to) && !to.isOutputShutdown()) {
                reset(to);
            }
        }
    }

    private static void reset(Socket socket) {
        try {
            socket.setSoLinger(true, 0); // close with RST, like a dropped network path, not FIN
        } catch (IOException ignored) {
            // already closed
        }
        try {
            socket.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    private static Thread daemon(String name, Runnable task) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        return thread;
    }
}
