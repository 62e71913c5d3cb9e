package org.wharfmq.server.flow;

import org.wharfmq.flow.HttpCaller;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.ServerPlugin;
import org.wharfmq.server.WharfException;
import org.wharfmq.server.security.Identity;
import org.wharfmq.server.security.InProcessLogins;
import org.wharfmq.server.security.Permission;

import javax.jms.ConnectionFactory;

/**
 * The authenticated HTTP callers of flows as the queue manager knows them: an HTTP-invoked flow's sends (HTTPInput
 * runAs CALLER) go over in-VM connections logged in as the caller ({@link InProcessLogins}), so the queue manager
 * checks the caller's permissions and stamps the caller as JMSXUserID, and each send is asked about first from the
 * permission rules in force, so that a refusal is the caller's 403 naming the queue and the permission.
 */
final class HttpCallers {

    private final ServerPlugin.Host server;

    HttpCallers(ServerPlugin.Host server) {
        this.server = server;
    }

    /** {@code who}, an authenticated caller of the HTTP listener. */
    HttpCaller of(Identity who) {
        return new Caller(who);
    }

    private final class Caller implements HttpCaller {
        private final Identity who;

        Caller(Identity who) {
            this.who = who;
        }

        @Override
        public String user() {
            return who.user();
        }

        @Override
        public ConnectionFactory connectionFactory() {
            InProcessLogins.Login login = server.logins().inProcess().loginFor(who);
            WharfConnectionFactory asCaller = new WharfConnectionFactory(server.vmUrl());
            asCaller.setUserName(login.name());
            asCaller.setPassword(new String(login.password()));
            return asCaller;
        }

        @Override
        public String refusal(String destination, boolean topic) {
            try {
                // a denial goes to the audit log as the queue manager's own denials do
                server.accessControl().check(who, topic ? Permission.PUBLISH : Permission.SEND, destination, "HTTP");
                return null;
            } catch (WharfException denied) {
                return denied.getMessage();
            }
        }
    }
}
