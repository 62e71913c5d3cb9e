package org.wharfmq.server;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

/** Ports free on the loopback address now, for the servers a test or a perf step configures before it starts them. */
public final class FreePorts {

    private FreePorts() {
    }

    /** {@code n} distinct free ports: the sockets are open at once, so the system cannot hand out one twice. */
    public static int[] take(int n) throws IOException {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            int[] ports = new int[n];
            for (int i = 0; i < n; i++) {
                ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                sockets.add(s);
                ports[i] = s.getLocalPort();
            }
            return ports;
        } finally {
            for (ServerSocket s : sockets) {
                s.close();
            }
        }
    }
}
