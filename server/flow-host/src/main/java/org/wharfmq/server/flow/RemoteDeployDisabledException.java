package org.wharfmq.server.flow;

import org.wharfmq.server.admin.AdminException;

/**
 * A flow jar sent over the wire ({@code wharf flow deploy}) refused because the server's setting
 * {@code remoteDeploy} is off (the default): anyone with the admin permission could otherwise run code in the server.
 * The admin answer's reason is {@value #REASON}, so the command line can say how to deploy from the configuration
 * instead.
 */
public final class RemoteDeployDisabledException extends AdminException {

    /** The admin answer's reason ({@code org.wharfmq.server.admin.AdminProtocol#ERROR}). */
    public static final String REASON = "REMOTE_DEPLOY_DISABLED";
    private static final long serialVersionUID = 1L;

    RemoteDeployDisabledException() {
        super(REASON, "Remote deploy is disabled: this server refuses flow jars sent over the wire (a deployed flow "
                + "runs code in the server with its rights). Deploy from the server's configuration (flows: in "
                + "wharf.yaml), or set remoteDeploy: true under flowHost: there and restart the server if everyone with the admin "
                + "permission may run code in it.");
    }
}
