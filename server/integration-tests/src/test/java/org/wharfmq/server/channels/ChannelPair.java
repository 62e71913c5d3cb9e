package org.wharfmq.server.channels;

import org.wharfmq.server.FreePorts;
import org.wharfmq.server.ServerPlugin;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.config.QueueDefinition;
import org.wharfmq.server.config.QueueReference;

import javax.jms.MessageConsumer;
import javax.jms.Session;
import java.util.List;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * The two queue managers of a channel test that works one channel by hand: QM2 with local queue ORDERS and receiver
 * TO.QM2 from QM1, on a port of its own that its restarts keep; QM1 with transmission queue QM2, ORDERS a remote queue
 * on QM2, and sender TO.QM2 (retry interval 50 ms, disconnect interval 60 s, batch interval 0: a batch ends once
 * the transmission queue is empty, so a commit's messages may cross in more than one). Each runs the channels plugin
 * and the admin plugin, made anew at each (re)start; everything is closed, in the reverse order, by
 * {@link #close()}.
 */
final class ChannelPair implements AutoCloseable {

    private final ChannelServers servers = new ChannelServers();
    /** The channels plugin each runs now (a restart makes a new one). */
    final ChannelsPlugin[] qm1Channels = new ChannelsPlugin[1];
    final ChannelsPlugin[] qm2Channels = new ChannelsPlugin[1];
    TestServer qm1;
    TestServer qm2;

    /** Starts QM2, then QM1 with its sender connecting straight to QM2, {@code sender} changing its definition. */
    ChannelPair start(UnaryOperator<ChannelDefinition> sender) throws Exception {
        return startQm1("tcp://127.0.0.1:" + startQm2(), sender, running -> List.of());
    }

    /** Starts QM2 and returns its port. */
    int startQm2() throws Exception {
        int port = FreePorts.one();
        qm2 = servers.keep(AdminCli.start(c -> c.name("QM2").port(port).autoCreate(false).queue("ORDERS"),
                qm2Channels, ChannelDefinition.receiver("TO.QM2", null, "QM1")));
        return port;
    }

    /**
     * Starts QM1, its sender connecting to {@code connection} ({@code sender} changing its definition), with
     * {@code more} plugins (given QM1's channels plugin) after its channels and admin plugins.
     */
    ChannelPair startQm1(String connection, UnaryOperator<ChannelDefinition> sender,
                         Function<ChannelsPlugin, List<ServerPlugin>> more) throws Exception {
        qm1 = servers.keep(AdminCli.start(c -> c.name("QM1").autoCreate(false)
                .queue(QueueDefinition.transmissionQueue("QM2"))
                .reference(QueueReference.remote("ORDERS", "ORDERS", "QM2", null)), qm1Channels, more,
                sender.apply(ChannelDefinition.sender("TO.QM2", connection, "QM2", null, null).withTimes(50, 60_000))));
        return this;
    }

    /** Keeps {@code resource} (a proxy between the two) to close with the queue managers. */
    <T extends AutoCloseable> T keep(T resource) {
        return servers.keep(resource);
    }

    /** {@link ChannelServers#sendOrders} to QM1. */
    void sendOrders(int from, int to) throws Exception {
        ChannelServers.sendOrders(qm1.server().tcpUrl(), from, to);
    }

    /** A consumer of ORDERS on QM2, on a connection that is closed at the end. */
    MessageConsumer ordersOnQm2() throws Exception {
        Session s = servers.connect(qm2.server().tcpUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        return s.createConsumer(s.createQueue("ORDERS"));
    }

    @Override
    public void close() throws Exception {
        servers.close();
    }
}
