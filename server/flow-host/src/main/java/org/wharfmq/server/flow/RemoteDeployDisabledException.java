package org.wharfmq.server.flow;

/**
 * A flow jar sent over the wire ({@code wharf flow deploy}) refused because the server's setting
 * {@code remoteDeploy} is off (the default): without authentication, anyone who reaches the port could otherwise
 * run code in the server. The admin reply carries {@link AdminResponder#ERROR} = {@link AdminResponder#REMOTE_DEPLOY_DISABLED}
 * so the command line can say how to deploy from the configuration instead.
 */
final class RemoteDeployDisabledException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    RemoteDeployDisabledException() {
        super("Remote deploy is disabled: this server refuses flow jars sent over the wire (anyone who can reach the "
                + "port could run code in the server). Deploy from the server's configuration (flows: in wharf.yaml) or "
                + "set remoteDeploy: true there, on a trusted network only, and restart the server.");
    }
}
