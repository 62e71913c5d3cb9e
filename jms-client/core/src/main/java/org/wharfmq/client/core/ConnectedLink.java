package org.wharfmq.client.core;

import org.wharfmq.client.core.transport.BrokerAddress;
import org.wharfmq.client.core.transport.FrameLink;
import org.wharfmq.protocol.ProtocolVersion;
import org.wharfmq.protocol.frame.Frame;

/**
 * One link of a client connection to a server, handshaken: the link, where it goes, what the server said
 * in HELLO_OK, and its generation, the link's number in the life of the connection (1 for the first, one more for
 * each reconnection). A connection has one at a time; after a reconnection everything that belonged to an older
 * one (a delivery, the answer a request waits for) is known by its link to be of the past: an acknowledgement or
 * credit goes out on the link its delivery came on, so one meant for a dead link is dropped with it rather than
 * settling, on the new link, the delivery that happens to have the same id there.
 *
 * @param generation       1 for the connection's first link, then one more per reconnection
 * @param link             the frames' way to the server
 * @param address          the server's address
 * @param serverName       the queue manager's name (HELLO_OK)
 * @param maxMessageLength the largest message the server accepts (HELLO_OK)
 * @param userName         the user the server authenticated, null for anonymous
 * @param heartbeatMillis  the agreed heartbeat interval, 0 for none
 * @param statusSession    whether the server made this a replica's status session (HELLO_OK's flag)
 * @param protocolVersion  the protocol version the link speaks: the lower of the client's HELLO's and the server's
 *                         HELLO_OK's
 * @param maxConsumerWindowBytes the most window in bytes the server grants a consumer or browser (HELLO_OK, version
 *                         3), 0 when it did not say
 */
public record ConnectedLink(int generation, FrameLink link, BrokerAddress address, String serverName, int maxMessageLength,
                     String userName, int heartbeatMillis, boolean statusSession, short protocolVersion,
                     int maxConsumerWindowBytes) {

    /** A link of this build's protocol version ({@link ProtocolVersion#CURRENT}) whose server caps no window. */
    public ConnectedLink(int generation, FrameLink link, BrokerAddress address, String serverName, int maxMessageLength,
                         String userName, int heartbeatMillis, boolean statusSession) {
        this(generation, link, address, serverName, maxMessageLength, userName, heartbeatMillis, statusSession,
                ProtocolVersion.CURRENT, 0);
    }

    /**
     * The server's HELLO_OK, on link number {@code generation}, with the heartbeat and the protocol version the client
     * asked for.
     */
    public static ConnectedLink of(int generation, FrameLink link, BrokerAddress address, Frame.HelloOk ok,
                                   int heartbeatWanted, short versionAsked) {
        return new ConnectedLink(generation, link, address, ok.serverName(), ok.maxMessageLength(),
                ok.user().isEmpty() ? null : ok.user(),
                agreedHeartbeat(heartbeatWanted, ok.heartbeatMillis()), ok.statusSession(),
                (short) Math.min(versionAsked, ok.version()), ok.maxConsumerWindowBytes());
    }

    /**
     * Whether a consumer on this link may ask for a window in bytes and settle bytes with its credit (CREATE_CONSUMER's
     * windowBytes, CREDIT's settledBytes): a server of protocol version 3 or later.
     */
    public boolean consumerWindowBytes() {
        return protocolVersion >= ProtocolVersion.CONSUMER_WINDOW_BYTES;
    }

    /**
     * The window in bytes a consumer that asks for {@code asked} has on this link: none (0) where the link has no
     * windows in bytes or it asks for none, else the smaller of {@code asked} and the server's cap (HELLO_OK's
     * maxConsumerWindowBytes), by half of which its credit goes back: half of a window the server never fills would
     * never be reached, and the consumer would stall.
     */
    public int grantedWindowBytes(int asked) {
        if (!consumerWindowBytes() || asked <= 0) {
            return 0;
        }
        return maxConsumerWindowBytes > 0 ? Math.min(asked, maxConsumerWindowBytes) : asked;
    }

    /** The smaller non-zero interval of the two sides; 0 when both are 0. */
    public static int agreedHeartbeat(int client, int server) {
        if (client <= 0) {
            return Math.max(server, 0);
        }
        return server <= 0 ? client : Math.min(client, server);
    }

    /** Writes a frame on this link; dropped if the link has ended. */
    public void write(Frame frame) {
        link.write(frame);
    }

    /** {@link FrameLink#writeSoon} on this link. */
    public void writeSoon(Frame frame) {
        link.writeSoon(frame);
    }

    /** {@link FrameLink#writeLater} on this link. */
    public void writeLater(Frame frame) {
        link.writeLater(frame);
    }

    /** {@link FrameLink#writeQueued} on this link. */
    public void writeQueued() {
        link.writeQueued();
    }

    /** The exception that says the link was lost and the connection is being made again. */
    public static LinkLostException reconnecting(ConnectedLink lost) {
        return new LinkLostException("The connection to Wharf at " + lost.address() + " was lost before the server"
                + " answered; the client is reconnecting");
    }
}
