package org.wharfmq.server;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Ports free now, for the servers a test or a perf step configures before it starts them (a server restarted on its
 * port, a partner's address written into a channel definition before the partner listens).
 *
 * <p>A port is taken from below the system's ephemeral range, never from it: a port the system handed to a socket
 * bound to port 0 and closed again is handed out again to the next such socket (every listener a test starts on port
 * 0, every proxy) and to the local end of outgoing connections (a sender retrying its partner), so between the pick and
 * the server's start it could be taken (CI runs gave two members of one group 127.0.0.1:37925, and a queue manager's
 * port 38959 was in use when it started). Below the ephemeral range the system hands out nothing by itself. A port is
 * also never given twice in one JVM, so two picks, even long apart, never clash; one that something else on the
 * machine listens on is skipped.
 */
public final class FreePorts {

    /** The lowest port given: above the ports services are commonly configured on. */
    static final int LOWEST = 10_000;
    /** The ports this JVM has given. */
    private static final Set<Integer> GIVEN = ConcurrentHashMap.newKeySet();
    /** The first port of the system's ephemeral range (Linux's file; elsewhere the IANA range all others use). */
    private static final int EPHEMERAL_FROM = ephemeralFrom();

    private FreePorts() {
    }

    /** {@code n} distinct free ports, none given before in this JVM. */
    public static int[] take(int n) throws IOException {
        int[] ports = new int[n];
        for (int i = 0; i < n; i++) {
            ports[i] = one();
        }
        return ports;
    }

    /** A free port, never one given before in this JVM, below the ephemeral range where it has room. */
    public static int one() throws IOException {
        if (EPHEMERAL_FROM - LOWEST >= 1_000) {
            for (int attempt = 0; attempt < 1_000; attempt++) {
                int port = ThreadLocalRandom.current().nextInt(LOWEST, EPHEMERAL_FROM);
                if (GIVEN.add(port) && bindable(port)) {
                    return port;
                }
            }
        }
        while (true) { // no room below the ephemeral range (or none of it free): one the system picks
            try (ServerSocket socket = new ServerSocket(0)) {
                if (GIVEN.add(socket.getLocalPort())) {
                    return socket.getLocalPort();
                }
            }
        }
    }

    /** Whether nothing listens on {@code port}, on any address (a server may bind the wildcard one). */
    private static boolean bindable(int port) {
        try (ServerSocket socket = new ServerSocket(port)) {
            return true;
        } catch (IOException inUse) {
            return false;
        }
    }

    private static int ephemeralFrom() {
        try {
            String range = Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).trim();
            return Integer.parseInt(range.split("\\s+")[0]);
        } catch (IOException | RuntimeException notLinux) {
            return 49_152;
        }
    }
}
