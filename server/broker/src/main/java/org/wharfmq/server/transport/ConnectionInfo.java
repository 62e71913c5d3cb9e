package org.wharfmq.server.transport;

/**
 * One client connection as an administrator sees it ({@link OpenConnections#describe}).
 *
 * @param id          the queue manager's number for it, for {@code end connection}; unique while the server runs
 * @param user        the user it logged in as; null when anonymous
 * @param address     the client's address ({@code /10.0.0.7:51234}), or the in-VM name for an in-VM connection
 * @param transport   {@code tcp}, {@code tls} or {@code vm}
 * @param clientId    its JMS client ID, or null
 * @param clientName  the name the client gave in HELLO (the Wharf client: its library and version)
 * @param connectedAt when its handshake completed, epoch ms
 * @param sessions    open sessions
 * @param consumers   open consumers (subscribers included)
 * @param browsers    open queue browsers
 * @param producers   open producers
 * @param bytesIn     bytes received from the client
 * @param bytesOut    bytes sent to the client (written for it: those still waiting included)
 * @param bytesWaiting bytes written for the client that its socket has not taken yet, as the outbound limit counts
 *                     them (message bodies aside, on a plain TCP connection)
 * @param readingHeld whether the server has stopped reading it because more than maxOutboundBytesPerConnection bytes
 *                    wait to be sent to it (until half of them have left)
 */
public record ConnectionInfo(long id, String user, String address, String transport, String clientId,
                             String clientName, long connectedAt, int sessions, int consumers, int browsers,
                             int producers, long bytesIn, long bytesOut, long bytesWaiting,
                             boolean readingHeld) {
}
