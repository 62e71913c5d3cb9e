package org.wharfmq.server.channels;

import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.server.ChannelAcceptor;
import org.wharfmq.server.ServerPlugin;
import org.wharfmq.server.WharfException;
import org.wharfmq.server.queue.SystemQueues;
import org.wharfmq.server.security.Identity;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The receiver channels of a queue manager: the {@link ChannelAcceptor} its listeners hand CHANNEL_OPEN to, which
 * checks the partner and gives the channel to its {@link ChannelReceiver} (each with a thread and an in-VM connection
 * of its own, so that ten channels from one partner commit side by side).
 */
final class ChannelReceivers implements ChannelAcceptor, AutoCloseable {
    private static final System.Logger LOG = System.getLogger(ChannelReceivers.class.getName());

    /** The receivers by channel name, in definition order; fixed once started. */
    private final Map<String, ChannelReceiver> receivers = new LinkedHashMap<>();
    private final ServerPlugin.Host host;

    ChannelReceivers(List<ChannelDefinition> definitions, ServerPlugin.Host host) {
        ReceiverPuts puts = new ReceiverPuts(host);
        for (ChannelDefinition d : definitions) {
            receivers.put(d.name(), new ChannelReceiver(d, host, puts));
        }
        this.host = host;
    }

    /** Connects each receiver in-VM and reads its sync record. */
    void start() throws Exception {
        host.management().systemQueue(ChannelConfiguration.SYNC_QUEUE);
        host.management().systemQueue(SystemQueues.DEAD_LETTER_QUEUE); // where refused messages go, autoCreate or not
        for (ChannelReceiver receiver : receivers.values()) {
            receiver.start();
        }
    }

    @Override
    public Inbound open(Peer peer, int requestId, String channel, String queueManager) {
        ChannelReceiver receiver = receivers.get(channel);
        if (receiver == null) {
            throw new WharfException(ErrorCode.UNKNOWN_DESTINATION, "Queue manager " + host.config().name()
                    + " has no receiver channel '" + channel + "' (its receivers: " + receivers.keySet() + "). Define"
                    + " it under channels: in config/wharf.yaml with type: receiver (docs/distributed.md).");
        }
        ChannelDefinition definition = receiver.definition();
        Identity who = peer.identity();
        if (definition.partnerUser() != null && !definition.partnerUser().equals(who.user())) {
            throw new WharfException(ErrorCode.NOT_AUTHORISED, "Receiver channel '" + channel + "' of queue manager "
                    + host.config().name() + " is for partner user '" + definition.partnerUser() + "', not "
                    + who.describe() + ". Log in as that user, or change the receiver's partnerUser.");
        }
        if (definition.partnerQueueManager() != null && !definition.partnerQueueManager().equals(queueManager)) {
            throw new WharfException(ErrorCode.NOT_AUTHORISED, "Receiver channel '" + channel + "' of queue manager "
                    + host.config().name() + " is for queue manager " + definition.partnerQueueManager() + ", not "
                    + queueManager + ". Use the channel defined for your queue manager.");
        }
        Inbound inbound = receiver.open(peer, requestId);
        LOG.log(System.Logger.Level.INFO, "Channel " + channel + " from queue manager " + queueManager + " ("
                + who.describe() + " at " + peer.remoteAddress() + ") is running");
        return inbound;
    }

    /** What {@code wharf admin display chstatus} shows of the receivers. Any thread. */
    List<ChannelStatus> status() {
        List<ChannelStatus> all = new ArrayList<>();
        for (ChannelReceiver receiver : receivers.values()) {
            all.add(receiver.status());
        }
        return all;
    }

    @Override
    public void close() {
        for (ChannelReceiver receiver : receivers.values()) {
            receiver.close();
        }
    }
}
