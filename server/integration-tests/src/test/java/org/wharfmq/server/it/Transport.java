package org.wharfmq.server.it;

import org.wharfmq.server.WharfServer;

/** The two ways a client reaches a server; tests that must behave the same on both are parameterized over this. */
enum Transport {
    /** A socket to the server's TCP listener. */
    TCP {
        @Override
        String url(WharfServer server) {
            return server.tcpUrl();
        }
    },
    /** Netty local channels inside this JVM. */
    VM {
        @Override
        String url(WharfServer server) {
            return server.vmUrl();
        }
    };

    /** The broker URL a client uses to reach {@code server} over this transport. */
    abstract String url(WharfServer server);
}
