package org.wharfmq.client.core;

import org.junit.jupiter.api.Test;
import org.wharfmq.protocol.ProtocolVersion;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The window in bytes a consumer has on a link: the smaller of what it asks and the server's cap (HELLO_OK), so that
 * its credit goes back by half of a window the server fills; none on a version 2 link or when it asks for none. Under
 * the server's default cap (64 MiB) the client's default window (8 MiB) is what it asked: no more CREDIT frames.
 */
class ConnectedLinkTest {

    private static ConnectedLink link(short version, int cap) {
        return new ConnectedLink(1, null, null, "QM", 1024, null, 0, false, version, cap);
    }

    @Test
    void theWindowGrantedIsTheSmallerOfTheAskedAndTheServersCap() {
        int asked = ClientConfiguration.DEFAULT_CONSUMER_WINDOW_BYTES;
        assertEquals(asked, link(ProtocolVersion.CURRENT, 64 * 1024 * 1024).grantedWindowBytes(asked));
        assertEquals(1 << 20, link(ProtocolVersion.CURRENT, 1 << 20).grantedWindowBytes(asked));
        assertEquals(asked, link(ProtocolVersion.CURRENT, 0).grantedWindowBytes(asked), "a server that says no cap");
        assertEquals(0, link(ProtocolVersion.CURRENT, 1 << 20).grantedWindowBytes(0), "a consumer that asks none");
        assertEquals(0, link(ProtocolVersion.OLDEST, 0).grantedWindowBytes(asked), "version 2: no window in bytes");
        assertEquals(512 * 1024, ClientConfiguration.creditBatchBytes(
                link(ProtocolVersion.CURRENT, 1 << 20).grantedWindowBytes(asked)), "credit by half the granted window");
    }
}
