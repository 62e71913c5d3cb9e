package org.wharfmq.server.management;

import io.netty.buffer.PooledByteBufAllocator;
import org.wharfmq.protocol.frame.LargeFrameMemory;
import org.wharfmq.protocol.message.TransmissionHeader;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.protocol.selector.Selector;
import org.wharfmq.server.WharfException;
import org.wharfmq.server.queue.SystemQueues;
import org.wharfmq.server.WharfVersion;
import org.wharfmq.server.config.ConfigurationException;
import org.wharfmq.server.config.QueueDefinition;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.queue.LocalQueue;
import org.wharfmq.server.queue.QueueCreator;
import org.wharfmq.server.queue.QueueNameResolver;
import org.wharfmq.server.queue.QueueManager;
import org.wharfmq.server.queue.QueueSnapshot;
import org.wharfmq.server.session.XaBranches;
import org.wharfmq.server.session.XaBranches.PreparedBranch;
import org.wharfmq.server.security.DestinationPattern;
import org.wharfmq.server.store.JournalMessageStore;
import org.wharfmq.server.store.JournalSyncObserver;
import org.wharfmq.server.store.MessageStore;
import org.wharfmq.server.topic.TopicManager;
import org.wharfmq.server.topic.TopicManager.SubscriptionInfo;
import org.wharfmq.server.transport.ConnectionInfo;
import org.wharfmq.server.transport.OpenConnections;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The queue manager's {@link Management}: reads what the queue manager, the topic manager and the open connections
 * keep, and asks them for changes. Holds no state of its own. One per server.
 */
public final class BrokerManagement implements Management {

    private final ServerConfig config;
    /** This instance's place in a replicated queue manager: null for none. */
    private final Supplier<ReplicationState> replication;
    private final QueueManager queues;
    private final TopicManager topics;
    private final OpenConnections connections;
    private final MessageStore store;
    private final XaBranches xaBranches;
    private final Supplier<List<String>> listeners;
    private final long startedAt;
    private final QueueMessages messages;

    /**
     * @param listeners the URLs the server listens on, once bound
     * @param startedAt when the server started, epoch ms
     * @param replication this instance's place in a replicated queue manager (gives null for none)
     */
    public BrokerManagement(ServerConfig config, QueueManager queues, TopicManager topics, OpenConnections connections,
                            MessageStore store, XaBranches xaBranches, Supplier<List<String>> listeners,
                            long startedAt, Supplier<ReplicationState> replication) {
        this.replication = replication;
        this.config = config;
        this.queues = queues;
        this.topics = topics;
        this.connections = connections;
        this.store = store;
        this.xaBranches = xaBranches;
        this.listeners = listeners;
        this.startedAt = startedAt;
        this.messages = new QueueMessages(queues.persistence());
    }

    @Override
    public ServerStatus server() {
        long now = System.currentTimeMillis();
        Runtime runtime = Runtime.getRuntime();
        long journalBytes = store instanceof JournalMessageStore journal ? journal.journalBytes() : -1;
        return new ServerStatus(config.name(), WharfVersion.current(), startedAt, now - startedAt, listeners.get(),
                config.dataDirectory().toAbsolutePath().toString(), journalBytes, queues.allQueues().size(),
                topics.describe().size(), connections.count(), runtime.totalMemory() - runtime.freeMemory(),
                runtime.maxMemory(), PooledByteBufAllocator.DEFAULT.metric().usedDirectMemory()
                        + LargeFrameMemory.JVM.spares().liveBytes(),
                queues.memoryBudget().usedBytes(), queues.memoryBudget().maxBytes(), replication.get());
    }

    @Override
    public List<QueueStatus> queues(String pattern) {
        DestinationPattern filter = pattern == null ? null : queuePattern(pattern);
        long now = queues.clock().millis();
        List<QueueStatus> out = new ArrayList<>();
        for (LocalQueue queue : queues.allQueues()) {
            if (filter == null || filter.matches(queue.name())) {
                out.add(status(queue, now));
            }
        }
        out.sort(Comparator.comparing(QueueStatus::name));
        return out;
    }

    private static DestinationPattern queuePattern(String pattern) {
        try {
            return DestinationPattern.queue(pattern);
        } catch (ConfigurationException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    @Override
    public QueueStatus queue(String name) {
        return status(existing(name), queues.clock().millis());
    }

    @Override
    public boolean queueExists(String name) {
        return name != null && queues.find(name) != null;
    }

    @Override
    public boolean isTransmissionQueue(String name) {
        LocalQueue queue = name == null ? null : queues.find(name);
        return queue != null && queue.transmission();
    }

    @Override
    public String transmissionQueueTo(String queueManager) {
        if (queues.resolver().leadsHere(queueManager)) {
            return null; // the probe below would resolve to a queue here, created by use under autoCreate
        }
        try {
            QueueNameResolver.Resolution r = queues.resolver().resolve(WireDestination.queue(queueManager
                    + TransmissionHeader.QUALIFIER + "Q"), QueueCreator.ANYONE);
            return r.remote() ? r.queue().name() : null;
        } catch (WharfException nowhere) {
            return null;
        }
    }

    @Override
    public boolean leadsHere(String queueManager) {
        return queues.resolver().leadsHere(queueManager);
    }

    private QueueStatus status(LocalQueue queue, long now) {
        QueueSnapshot s = queue.snapshot();
        Long age = s.oldestTimestamp() == 0 ? null : Math.max(0, now - s.oldestTimestamp());
        return new QueueStatus(queue.name(), queues.origin(queue), s.depth(), s.maxDepth(), s.maxDepthSetOnQueue(),
                s.consumers(), s.browsers(), s.producers(), age, s.enqueued(), s.dequeued(), s.expired(),
                s.deadLettered(), s.heldBytes(), s.paged(), s.pagedBytes(), s.pagingFailure(),
                queues.definition(queue).shown());
    }

    /** The named or temporary queue {@code name}, or UNKNOWN_DESTINATION. */
    private LocalQueue existing(String name) {
        LocalQueue queue = name == null ? null : queues.find(name);
        if (queue == null) {
            throw QueueManager.unknownQueue(name);
        }
        return queue;
    }

    @Override
    public QueueStatus defineQueue(QueueDefinition definition) {
        return status(queues.defineQueue(definition), queues.clock().millis());
    }

    @Override
    public QueueStatus alterQueue(String name, Map<String, String> changes) {
        return status(queues.alterQueue(name, changes), queues.clock().millis());
    }

    @Override
    public int deleteQueue(String name, boolean force) {
        return queues.deleteQueue(name, force);
    }

    @Override
    public List<QueueNameStatus> names() {
        return queues.resolver().references().stream()
                .map(r -> QueueNameStatus.of(r, queues.isConfiguredReference(r.name()))).toList();
    }

    @Override
    public QueueNameStatus defineName(org.wharfmq.server.config.QueueReference reference) {
        return QueueNameStatus.of(queues.defineReference(reference), false);
    }

    @Override
    public QueueNameStatus deleteName(String name, String type) {
        org.wharfmq.server.config.QueueReference existing = name == null ? null : queues.resolver().reference(name);
        if (existing != null && !existing.type().equals(type)) {
            throw WharfException.illegalState("'" + name + "' is a " + existing.describe() + ", not of type " + type
                    + ": delete it with 'delete " + existing.type() + " " + name + "'.");
        }
        return QueueNameStatus.of(queues.deleteReference(name), false);
    }

    @Override
    public Clearance clearQueue(String name) {
        return messages.clear(existing(name));
    }

    @Override
    public List<BrowsedMessage> browse(String queue, String selector, int limit, int maxBodyBytes) {
        if (limit < 1 || maxBodyBytes < 0) {
            throw new IllegalArgumentException("Browse at least one message (limit " + limit + ") and a body length"
                    + " of 0 or more (" + maxBodyBytes + ").");
        }
        return messages.browse(existing(queue), QueueMessages.selector(selector), limit, maxBodyBytes);
    }

    @Override
    public Transfer move(String from, String to, String selector, long limit) {
        return transfer(from, to, selector, limit, true);
    }

    @Override
    public Transfer copy(String from, String to, String selector, long limit) {
        return transfer(from, to, selector, limit, false);
    }

    private Transfer transfer(String from, String to, String selector, long limit, boolean move) {
        if (limit < 1) {
            throw new IllegalArgumentException("The limit must be at least 1, not " + limit + ".");
        }
        if (from != null && from.equals(to)) {
            throw new IllegalArgumentException("Queue '" + from + "' is both the source and the target: "
                    + (move ? "moving" : "copying") + " messages needs two queues.");
        }
        if (SystemQueues.ADMIN_COMMAND_QUEUE.equals(to)) {
            throw WharfException.illegalState("Messages cannot be " + (move ? "moved" : "copied") + " to "
                    + SystemQueues.ADMIN_COMMAND_QUEUE + ": each request there runs as the sender the queue manager "
                    + "stamped on it when it was sent there, and a message " + (move ? "moved" : "copied") + " from "
                    + "another queue would bring whatever its properties claim. Send the command itself (wharf admin "
                    + "...) as a user with the 'admin' permission.");
        }
        LocalQueue source = existing(from);
        LocalQueue target = existing(to);
        Selector compiled = QueueMessages.selector(selector);
        return move ? messages.move(source, target, compiled, limit) : messages.copy(source, target, compiled, limit);
    }

    @Override
    public JournalStatus journal() {
        if (!(store instanceof JournalMessageStore journal)) {
            return null;
        }
        return new JournalStatus(journal.journalBytes(), journal.records(), journal.syncs(), journal.syncNanos(),
                journal.syncedEntries(), journal.reclaimedFiles());
    }

    @Override
    public void observeJournalSyncs(JournalSyncObserver observer) {
        if (store instanceof JournalMessageStore journal) {
            journal.observeSyncs(observer);
        }
    }

    @Override
    public ConnectionTotals connectionTotals() {
        // the ended ones first: a connection that ends in between is then missed once (a total a little low, never
        // one counted twice)
        long bytesIn = connections.endedBytesIn();
        long bytesOut = connections.endedBytesOut();
        List<ConnectionInfo> open = connections.describe();
        int sessions = 0;
        int consumers = 0;
        int producers = 0;
        for (ConnectionInfo c : open) {
            sessions += c.sessions();
            consumers += c.consumers();
            producers += c.producers();
            bytesIn += c.bytesIn();
            bytesOut += c.bytesOut();
        }
        return new ConnectionTotals(open.size(), connections.opened(), sessions, consumers, producers, bytesIn,
                bytesOut);
    }

    @Override
    public List<ConnectionInfo> connections() {
        return connections.describe();
    }

    @Override
    public ConnectionInfo endConnection(long id, String reason) {
        return connections.end(id, reason);
    }

    @Override
    public List<SubscriptionInfo> subscriptions() {
        return topics.describe();
    }

    @Override
    public void deleteSubscription(String clientId, String name) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("Name the durable subscription to delete.");
        }
        topics.deleteDurable(clientId, name);
    }

    @Override
    public void observeSubscriptions(Runnable observer) {
        topics.observeSubscriptions(observer);
    }

    @Override
    public List<PreparedBranch> preparedBranches() {
        return xaBranches.prepared();
    }

    @Override
    public void systemQueue(String name) {
        queues.systemQueue(name);
    }

    @Override
    public void systemQueueInMemory(String name) {
        queues.systemQueueInMemory(name);
    }
}
