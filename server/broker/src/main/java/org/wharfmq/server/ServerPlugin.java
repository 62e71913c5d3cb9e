package org.wharfmq.server;

import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.management.Management;
import org.wharfmq.server.security.AccessControl;
import org.wharfmq.server.security.Identity;
import org.wharfmq.server.security.Logins;
import org.wharfmq.server.session.InProcessProducer;
import org.wharfmq.server.session.InProcessTakes;

/**
 * A service that runs inside a queue manager beside its listeners, such as the message flows of the flow host
 * ({@code org.wharfmq.server.flow.FlowHost}, module {@code server/flow-host}). A plugin reaches the queue manager as
 * a client does, over its in-VM listener, so the broker depends on no plugin and on none of their libraries (the JMS
 * client, the flow engine, XML); what operators see and do (queues, connections, subscriptions) it reaches through
 * the {@link Management} view, the one way in for the admin command queue, metrics and the console. The admin command
 * queue, the HTTP listener, the console, the metrics and the channels to other queue managers (which take their
 * partners' connections through {@link Host#acceptChannels}) are plugins too; replication is meant to plug in the
 * same way.
 *
 * <h2>Life cycle</h2>
 * The plugins given to {@link WharfServer#start(ServerConfig, ServerPlugin...)} are started in that order, once the
 * store has been recovered and both listeners accept connections, on the thread that starts the server. They are
 * stopped in the reverse order when the server closes, before its listeners close, while their connections still
 * work (a plugin can drain what it has in flight). A plugin whose {@link #start} throws makes the server's start fail
 * with that exception: the server then closes every plugin whose start was called, that one included, and itself.
 * A plugin instance serves one server, once.
 */
public interface ServerPlugin extends AutoCloseable {

    /**
     * Starts the plugin: the server's listeners accept connections.
     *
     * @param server what the queue manager offers its plugins
     * @throws Exception when the plugin cannot start; the message says why and what to change
     */
    void start(Host server) throws Exception;

    /**
     * Stops the plugin, before the server's listeners close; also called after a {@link #start} that threw, so it
     * undoes whatever part of the start ran. Does not throw.
     */
    @Override
    void close();

    /** What a queue manager offers its plugins. */
    interface Host {

        /**
         * The queue manager's settings (validated). A plugin's own settings are not among them: it takes them when it
         * is made (its section of config/wharf.yaml, {@link org.wharfmq.server.config.SettingsSection}).
         */
        ServerConfig config();

        /** The URL of the in-VM listener ({@code vm://NAME}): the way a plugin connects to the queue manager. */
        String vmUrl();

        /**
         * The subscriptions of every topic with their consumers and backlogs, then the retained publications, as the
         * text {@code wharf topic list} prints.
         */
        String topicReport();

        /**
         * What operators see of the queue manager and do to it: queues, connections, subscriptions, the server. Call
         * it from a thread of the plugin's own (it may block briefly), never from an event loop.
         */
        Management management();

        /**
         * Who may log in, as the wire's handshake checks it: the users (their SCRAM-SHA-256 verifiers), where anonymous
         * clients may connect from, and the throttle of failed logins, which a plugin's own logins (HTTP) count into
         * and obey, so guessing over HTTP is slowed as over the wire.
         */
        Logins logins();

        /** Who may do what: the permission rules in force (reloaded with the security file). */
        AccessControl accessControl();

        /**
         * The server's memory budget for messages (setting maxMemoryBytes), which what a plugin holds of messages
         * outside the queues counts against (a receiver channel's batches until it puts them). Any thread.
         */
        org.wharfmq.server.queue.MemoryBudget memoryBudget();

        /**
         * Makes {@code acceptor} the receiving end of channels from other queue managers on this server's listeners
         * (null: none again, as at the start, when CHANNEL_OPEN is refused); one plugin serves them.
         *
         * @throws IllegalStateException when another plugin set one already
         */
        void acceptChannels(ChannelAcceptor acceptor);

        /**
         * A new XA session inside the queue manager, with its own authority, that takes the messages of a queue with
         * no frame ({@link InProcessTakes}): how a sender channel takes its transmission queue. Call it from a thread
         * of the plugin's own, never an event loop; close it when done.
         */
        default InProcessTakes takeMessages() {
            return takeMessages(Identity.SERVER, "in-process");
        }

        /**
         * As {@link #takeMessages()}, with the authority of {@code who} rather than the queue manager's own: its
         * consumer is refused, and the refusal audited naming {@code peer}, as a connection of {@code who}'s would be
         * (how a flow's input node takes its queue as the flow's user).
         */
        InProcessTakes takeMessages(Identity who, String peer);

        /**
         * A new producer inside the queue manager, owned by the calling thread (a plugin's own, never an event loop),
         * that puts messages with no frame ({@link InProcessProducer}) with the authority of {@code who}: its puts are
         * refused, and the refusals audited naming {@code peer}, as a connection of {@code who}'s sends would be (how
         * a flow's reader puts its output as the flow's user). Close it, on that thread, when done.
         */
        InProcessProducer putMessages(Identity who, String peer);
    }
}
