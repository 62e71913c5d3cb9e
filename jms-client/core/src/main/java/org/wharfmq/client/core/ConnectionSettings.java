package org.wharfmq.client.core;

import org.wharfmq.client.core.transport.BrokerAddress;
import org.wharfmq.client.core.transport.ClientTls;

import java.util.List;

/**
 * What a {@link CoreConnection} needs to connect, log in and keep itself connected. The JMS facade makes one from its
 * broker URL; a server-side user builds one from its own settings.
 *
 * @param addresses            where to connect, in the order tried (at least one)
 * @param tls                  the TLS settings of the {@code ssl://} addresses; null when there is none
 * @param user                 the user every link logs in as, null or empty for none
 * @param password             its password, null for none
 * @param clientName           the name the server shows for the connection
 * @param heartbeatMillis      the heartbeat interval asked for, 0 for none from this side
 * @param connectTimeoutMillis bound on connecting and on the handshake
 * @param requestTimeoutMillis bound on waiting for the answer to any request
 * @param maxReceiveLength     the longest message the connection receives, whatever a server declares
 *                             ({@link ClientConfiguration#DEFAULT_MAX_RECEIVE_LENGTH})
 * @param reconnect            whether and how a lost connection is made again
 * @param helloFlags           the HELLO's flags: 0, or {@link org.wharfmq.protocol.frame.Frame.Hello#STATUS_SESSION}
 *                             for an administrator's status session on a replica (docs/protocol.md)
 */
public record ConnectionSettings(List<BrokerAddress> addresses, ClientTls tls, String user, String password,
                                 String clientName, int heartbeatMillis, int connectTimeoutMillis,
                                 int requestTimeoutMillis, int maxReceiveLength, ReconnectPolicy reconnect,
                                 int helloFlags) {

    public ConnectionSettings {
        addresses = List.copyOf(addresses);
        if (addresses.isEmpty()) {
            throw new IllegalArgumentException("A connection needs at least one address");
        }
    }

    /** One address, no TLS, the client's default timeouts and heartbeat, and no reconnection. */
    public static ConnectionSettings of(BrokerAddress address, String user, String password, String clientName) {
        return new ConnectionSettings(List.of(address), null, user, password, clientName,
                ClientConfiguration.DEFAULT_HEARTBEAT_MILLIS, ClientConfiguration.DEFAULT_CONNECT_TIMEOUT_MILLIS,
                ClientConfiguration.DEFAULT_REQUEST_TIMEOUT_MILLIS, ClientConfiguration.DEFAULT_MAX_RECEIVE_LENGTH,
                ReconnectPolicy.NONE, 0);
    }

    /** These settings with another reconnect policy. */
    public ConnectionSettings withReconnect(ReconnectPolicy policy) {
        return new ConnectionSettings(addresses, tls, user, password, clientName, heartbeatMillis, connectTimeoutMillis,
                requestTimeoutMillis, maxReceiveLength, policy, helloFlags);
    }

    /** These settings with other HELLO flags. */
    public ConnectionSettings withHelloFlags(int flags) {
        return new ConnectionSettings(addresses, tls, user, password, clientName, heartbeatMillis, connectTimeoutMillis,
                requestTimeoutMillis, maxReceiveLength, reconnect, flags);
    }
}
