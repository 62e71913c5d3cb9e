package org.wharfmq.server.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.wharfmq.protocol.ProtocolVersion;
import org.wharfmq.server.transport.ConnectionInfo;

import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.QueueBrowser;
import javax.jms.Session;
import java.util.Enumeration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A queue browser's window in bytes ({@code consumerWindowBytes}, docs/jms-client.md, "Consumer windows") through the
 * real client and server: a browse of a backlog of large messages is shown at most its window in bytes ahead of the
 * application, one that asks for more than the server allows its maxConsumerWindowBytes, and one of a client connected
 * with protocol version 2 (to a gate that answers a version 3 HELLO as a server before version 3 does), which asks for
 * none, that same limit; each sees every message, in order. What the server showed a browse is asked of the server:
 * the bytes it wrote to the browsing connection, read once the browse's CREATE_CONSUMER is answered (the server shows
 * the first messages as it handles it, on the connection's event loop, and the management view reads the count there).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BrowserWindowTest {

    /** The server's maxConsumerWindowBytes: 8 MiB. */
    private static final int LIMIT = 8 * 1024 * 1024;

    @RegisterExtension
    static final WharfServerExtension WHARF = WharfServerExtension.configured(c -> c.maxConsumerWindowBytes(LIMIT));

    private static final int LARGE = 1_000_000;
    private static final int LARGE_COUNT = 40;
    private static final int WINDOW_BYTES = 4 * 1024 * 1024;

    /**
     * Forty messages of 1 MB wait; a browse with a 4 MiB window in bytes (and its 1000 of prefetch) is shown five
     * (4 MiB of them and the one that crosses it) before the application reads any, not forty, and sees all forty in
     * order; the queue keeps them.
     */
    @Test
    void aBrowseOfLargeMessagesIsShownAtMostItsWindowInBytes() throws Exception {
        String name = WHARF.queueName("large");
        LargeMessages.put(WHARF, name, LARGE_COUNT, LARGE);
        Session session = WHARF.startedSession(WHARF.server().tcpUrl() + "?consumerWindowBytes=" + WINDOW_BYTES);
        QueueBrowser browser = session.createBrowser(session.createQueue(name));
        Enumeration<?> browse = browser.getEnumeration();
        assertEquals(WINDOW_BYTES / LARGE + 1, shownToTheBrowsingConnection(), "messages of " + LARGE + " bytes shown"
                + " to a browse with a window of " + WINDOW_BYTES + " bytes");
        browseInOrder(browse);
        assertEquals(LARGE_COUNT, WHARF.depth(name), "browsing took nothing");
    }

    /** A browse that asks for a window of 1 GiB is held to the server's maxConsumerWindowBytes (8 MiB): nine shown. */
    @Test
    void aBrowseAskingForMoreThanTheServerAllowsIsShownItsLimit() throws Exception {
        String name = WHARF.queueName("capped");
        LargeMessages.put(WHARF, name, LARGE_COUNT, LARGE);
        Session session = WHARF.startedSession(WHARF.server().tcpUrl() + "?consumerWindowBytes=" + (1 << 30));
        Enumeration<?> browse = session.createBrowser(session.createQueue(name)).getEnumeration();
        assertEquals(LIMIT / LARGE + 1, shownToTheBrowsingConnection(), "maxConsumerWindowBytes bounds the browse");
        browseInOrder(browse);
    }

    /**
     * A server before protocol version 3 answers the client's version 3 HELLO with UNSUPPORTED_VERSION: the client
     * connects again with version 2, where its browse asks for no window in bytes (the server, which refuses trailing
     * bytes, would end the connection) and returns credit without bytes. This server, reached as version 2 through
     * the gate, holds such a browse to its own limit, 8 MiB (nine shown, not the five of the client's 4 MiB, which it
     * was not told, nor the forty of its prefetch), and the browse sees all forty in order.
     */
    @Test
    void aVersionTwoBrowseAsksForNoWindowInBytesAndIsHeldToTheServersLimit() throws Exception {
        String name = WHARF.queueName("v2");
        LargeMessages.put(WHARF, name, LARGE_COUNT, LARGE);
        try (VersionTwoGate gate = VersionTwoGate.start(WHARF.server().tcpPort())) {
            Session session = WHARF.startedSession(gate.url() + "?consumerWindowBytes=" + WINDOW_BYTES);
            Enumeration<?> browse = session.createBrowser(session.createQueue(name)).getEnumeration();
            assertEquals(1, gate.refused(), "one HELLO of version " + ProtocolVersion.CURRENT + " refused");
            assertEquals(1, gate.relayed(), "one connection of version " + ProtocolVersion.OLDEST + " relayed");
            assertEquals(LIMIT / LARGE + 1, shownToTheBrowsingConnection(), "a version 2 browse has the server's"
                    + " window");
            browseInOrder(browse);
        }
    }

    private static void browseInOrder(Enumeration<?> browse) throws JMSException {
        for (int i = 0; i < LARGE_COUNT; i++) {
            assertTrue(browse.hasMoreElements(), "the browse ended after " + i);
            assertEquals(i, LargeMessages.assertIntact((Message) browse.nextElement()), "the messages in order");
        }
        assertFalse(browse.hasMoreElements(), "the browse is over");
    }

    /**
     * The messages of 1 MB the server has written to the one connection with a browse open: the bytes written to it
     * (answers and the like are a few hundred), in megabytes.
     */
    private static long shownToTheBrowsingConnection() {
        List<ConnectionInfo> browsing = WHARF.server().management().connections().stream()
                .filter(c -> c.browsers() > 0).toList();
        assertEquals(1, browsing.size(), "one connection browses: " + browsing);
        return browsing.get(0).bytesOut() / LARGE;
    }
}
