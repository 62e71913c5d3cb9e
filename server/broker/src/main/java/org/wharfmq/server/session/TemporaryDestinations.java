package org.wharfmq.server.session;

import org.wharfmq.protocol.TemporaryNames;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.server.WharfException;
import org.wharfmq.server.queue.LocalQueue;
import org.wharfmq.server.queue.QueueManager;
import org.wharfmq.server.security.ConnectionAccess;
import org.wharfmq.server.topic.TopicManager;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The temporary queues and topics one connection created (CREATE_TEMPORARY): the connection owns them, only its
 * consumers may read them, and they are deleted with it, however it ends, or by DELETE_TEMPORARY.
 *
 * <p>Anyone may send to a live temporary queue (that is what JMSReplyTo is for): the queue itself is registered
 * with the {@link QueueManager}, which resolves it for every connection. This registry holds the ownership.
 *
 * <p>Temporary topics are recorded here and in the {@link TopicManager} (so names stay unique and a deleted one is
 * reported as such), which routes their publications (by exact name, in a tree of their own) and refuses
 * publications to one that no longer exists.
 *
 * <p>A connection holds at most {@code maxTemporaryQueuesPerConnection} temporary queues at once: they also count
 * against the server's {@code maxQueues}, and without a limit of its own one connection could spend that limit for
 * everyone. Its user holds at most its quota of temporary queues over all its connections (security file,
 * {@code quotas: temporaryQueues}; taken and given back through its {@link ConnectionAccess}). Deleting one, or closing
 * the connection, frees its place. (Queues handed over at a takeover are adopted whatever the count: they were within
 * the limits on the connection of the same user that made them, and stay counted to that user.)
 *
 * <p>Names: a connection creates temporary destinations only inside its temporary namespace, which its connection key
 * gives it ({@link TemporaryNames}; CLAIM_KEY). A client that reconnects creates its temporary queues again under the
 * same names, so that replies to requests it sent before the failure still reach it; bound to a key only that client
 * knows, no other connection can take those names meanwhile. When the new connection takes over from the old one
 * (still alive on this server), the old one hands its temporary destinations, messages and all, to the new one
 * ({@link #handOver}, {@link #adopt}) instead of deleting them.
 *
 * <p>Threading: confined to the connection's event loop, like the connection's maps of sessions and consumers. A
 * {@link Handover} passes from one loop to the other through the loops' task queues.
 */
public final class TemporaryDestinations {

    private final QueueManager queueManager;
    private final TopicManager topicManager;
    private final ConnectionAccess access;
    private final int maxQueues;
    private final Map<String, LocalQueue> queues = new HashMap<>();
    private final Set<String> topics = new HashSet<>();
    /** The connection's temporary namespace ({@code TMP.<hex>.}), once it has claimed its key; null before. */
    private String namespace;

    /** Temporary destinations one connection hands to the connection that takes over its key. */
    public record Handover(Map<String, LocalQueue> queues, Set<String> topics) {
        /** Nothing to hand over: the connection had ended already. */
        public static final Handover NONE = new Handover(Map.of(), Set.of());
    }

    /**
     * An empty registry for one connection.
     *
     * @param access    the connection's user, whose quota of temporary queues they count against
     * @param maxQueues the most temporary queues it may hold at once (setting maxTemporaryQueuesPerConnection)
     */
    public TemporaryDestinations(QueueManager queueManager, TopicManager topicManager, ConnectionAccess access,
                                 int maxQueues) {
        this.queueManager = queueManager;
        this.topicManager = topicManager;
        this.access = access;
        this.maxQueues = maxQueues;
    }

    /** The connection has claimed its key: from now on it creates temporary destinations under {@code namespace}. */
    public void namespace(String namespace) {
        this.namespace = namespace;
    }

    /**
     * CREATE_TEMPORARY: creates the temporary queue or topic under the client's name, which must lie in the
     * connection's namespace. One the connection has already (handed over by the connection it took over from) is
     * kept as it is, messages and all.
     *
     * @throws WharfException NOT_AUTHORISED when the name lies outside the connection's namespace (or the connection
     *                        has claimed no key); ILLEGAL_STATE when another connection has the name; TOO_MANY_QUEUES
     *                        when the connection holds its maximum of temporary queues, its user its quota of them,
     *                        or the server its maximum of queues
     */
    public void create(WireDestination destination) {
        String name = destination.name();
        if (namespace == null || !TemporaryNames.inNamespace(name, namespace)) {
            throw new WharfException(ErrorCode.NOT_AUTHORISED, "Temporary " + kind(destination) + " name '" + name
                    + "' was refused: a connection creates temporary destinations only in its own namespace ("
                    + (namespace == null ? "it has sent no CLAIM_KEY yet" : "'" + namespace + "...'")
                    + "), which its connection key gives it, so that no connection can take another's names. The"
                    + " Wharf JMS client does this itself; a client of its own must send CLAIM_KEY first (docs/protocol.md).");
        }
        if (queues.containsKey(name) || topics.contains(name)) {
            return; // handed over by the connection this one took over from: kept, with what it holds
        }
        if (destination.kind() == WireDestination.Kind.TEMPORARY_QUEUE) {
            if (queues.size() >= maxQueues) {
                throw new WharfException(ErrorCode.TOO_MANY_QUEUES, "Temporary queue '" + name + "' cannot be created:"
                        + " this connection already holds " + queues.size() + " temporary queues, its maximum (setting"
                        + " maxTemporaryQueuesPerConnection). Delete the ones it no longer needs"
                        + " (TemporaryQueue.delete()), or raise the limit.");
            }
            access.takeTemporaryQueue(name);
            LocalQueue queue;
            try {
                queue = queueManager.createTemporaryQueue(name);
            } catch (RuntimeException refused) {
                access.giveBackTemporaryQueue();
                throw refused;
            }
            queues.put(name, queue);
        } else {
            topicManager.createTemporaryTopic(name);
            topics.add(name);
        }
    }

    /**
     * DELETE_TEMPORARY (TemporaryQueue.delete()): deletes one of this connection's temporary destinations.
     *
     * @throws WharfException ILLEGAL_STATE while consumers still use it, or when another connection owns it;
     *                        UNKNOWN_DESTINATION when it does not exist (any more)
     */
    public void delete(WireDestination destination) {
        String name = destination.name();
        if (destination.kind() == WireDestination.Kind.TEMPORARY_QUEUE) {
            LocalQueue queue = queues.get(name);
            if (queue == null) {
                queueManager.temporaryQueue(name); // UNKNOWN_DESTINATION when no connection has it
                throw WharfException.illegalState("Temporary queue '" + name + "' belongs to another connection: only "
                        + "the connection that created it may delete it.");
            }
            int consumers = queue.consumerCount();
            if (consumers > 0) {
                throw WharfException.illegalState("Temporary queue '" + name + "' still has " + consumers
                        + " consumer(s); close them before deleting it.");
            }
            queues.remove(name);
            queueManager.removeTemporaryQueue(queue);
            access.giveBackTemporaryQueue();
            queue.delete();
        } else {
            if (!topics.contains(name)) {
                if (topicManager.temporaryTopicExists(name)) {
                    throw WharfException.illegalState("Temporary topic '" + name + "' belongs to another connection: "
                            + "only the connection that created it may delete it.");
                }
                throw new WharfException(ErrorCode.UNKNOWN_DESTINATION, "Temporary topic '" + name + "' does not exist.");
            }
            int subscribers = topicManager.temporaryTopicSubscriptions(name);
            if (subscribers > 0) {
                throw WharfException.illegalState("Temporary topic '" + name + "' still has " + subscribers
                        + " subscriber(s); close them before deleting it.");
            }
            topics.remove(name);
            topicManager.removeTemporaryTopic(name);
        }
    }

    /**
     * Checks that this connection may consume from {@code destination}: any non-temporary destination, or a
     * temporary one it created.
     *
     * @throws WharfException UNKNOWN_DESTINATION (InvalidDestinationException on the client) for another
     *                        connection's temporary destination
     */
    public void checkConsumable(WireDestination destination) {
        if (destination == null || !destination.kind().isTemporary()) {
            return;
        }
        boolean queue = destination.kind() == WireDestination.Kind.TEMPORARY_QUEUE;
        boolean own = queue ? queues.containsKey(destination.name()) : topics.contains(destination.name());
        if (!own) {
            if (queue) {
                queueManager.temporaryQueue(destination.name()); // a deleted one is reported as such
            } else if (!topicManager.temporaryTopicExists(destination.name())) {
                throw new WharfException(ErrorCode.UNKNOWN_DESTINATION, "Temporary topic '" + destination.name()
                        + "' does not exist.");
            }
            throw new WharfException(ErrorCode.UNKNOWN_DESTINATION, "Temporary " + (queue ? "queue" : "topic") + " '"
                    + destination.name() + "' belongs to another connection: only the connection that created it may "
                    + "consume from it (JMS).");
        }
    }

    /**
     * The connection is being taken over by a newer one with the same key: gives up its temporary destinations, as
     * they are, for {@link #adopt}. Called after its sessions have closed, as {@link #deleteAll}.
     */
    public Handover handOver() {
        Handover handover = new Handover(Map.copyOf(queues), Set.copyOf(topics));
        queues.clear();
        topics.clear();
        return handover;
    }

    /** Takes the temporary destinations of the connection this one took over from. */
    public void adopt(Handover handover) {
        queues.putAll(handover.queues());
        topics.addAll(handover.topics());
    }

    private static String kind(WireDestination destination) {
        return destination.kind() == WireDestination.Kind.TEMPORARY_QUEUE ? "queue" : "topic";
    }

    /**
     * The connection has ended: deletes everything it created. Called after its sessions have closed, so no
     * consumer is left and the deliveries they held are back on the queues, which release them.
     */
    public void deleteAll() {
        for (LocalQueue queue : queues.values()) {
            queueManager.removeTemporaryQueue(queue);
            access.giveBackTemporaryQueue();
            queue.delete();
        }
        queues.clear();
        for (String topic : topics) {
            topicManager.removeTemporaryTopic(topic);
        }
        topics.clear();
    }
}
