package org.wharfmq.server.queue;

import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.message.TransmissionHeader;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.server.WharfException;
import org.wharfmq.server.config.QueueReference;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Where a queue name leads, as IBM MQ resolves names (docs/distributed.md, "How a message finds its queue"): a local
 * queue; a queue alias to its target; a remote queue definition, a name qualified by another queue manager
 * ({@code QM2/ORDERS}, the client's {@code queue://QM2/ORDERS}) or a queue-manager alias to a transmission queue, with
 * the queue manager and queue the message is for. A name qualified by this queue manager's own name is local.
 *
 * <p>The transmission queue of a queue manager is, in order: the one its remote definition or queue-manager alias
 * names; the local queue named as the queue manager, when its usage is transmission; the default transmission queue
 * (setting {@code defaultTransmissionQueue}). A name that leads nowhere is refused (UNKNOWN_DESTINATION) naming the
 * queue, the queue manager and the definitions that would make it resolve.
 *
 * <p>A name that is a local queue costs the one map look-up it always did ({@link QueueManager#queue(String,
 * QueueCreator)}): the definitions here are asked only for names that are not local queues, and a session remembers
 * where the last name it put to on another queue manager leads until they change ({@link RemoteRoute}, by
 * {@link #generation}). Thread-safe: the definitions are a concurrent map, changed by the queue manager under its
 * definitions lock.
 */
public final class QueueNameResolver {

    /** The longest chain of aliases and queue-manager aliases followed before a loop is assumed. */
    static final int MAX_HOPS = 8;

    /**
     * Where a put goes.
     *
     * @param queue        the local queue the message is put on: the queue itself, or the transmission queue
     * @param queueManager the queue manager the message is for; null when it is for {@code queue} itself
     * @param remoteQueue  the queue on that queue manager; null when local
     * @param qualified    whether the name was qualified by a queue manager ({@code QM2/ORDERS}) rather than a
     *                     definition's own: such a put needs the send permission on the transmission queue too
     */
    public record Resolution(LocalQueue queue, String queueManager, String remoteQueue, boolean qualified) {
        /** Whether the message goes to another queue manager (and so needs a transmission header). */
        public boolean remote() {
            return queueManager != null;
        }
    }

    private final QueueManager queues;
    private final String ownName;
    private final String defaultTransmissionQueue;
    private final Map<String, QueueReference> references = new ConcurrentHashMap<>();
    /** Moved on by every change of the definitions names are resolved by ({@link #changed}): {@link RemoteRoute}. */
    private final AtomicLong generation = new AtomicLong();

    QueueNameResolver(QueueManager queues, String ownName, String defaultTransmissionQueue) {
        this.queues = queues;
        this.ownName = ownName;
        this.defaultTransmissionQueue = defaultTransmissionQueue;
    }

    /** This queue manager's name. */
    public String queueManagerName() {
        return ownName;
    }

    /** The default transmission queue, or null. */
    public String defaultTransmissionQueue() {
        return defaultTransmissionQueue;
    }

    /** The alias or remote definition of that name, or null. */
    public QueueReference reference(String name) {
        return references.get(name);
    }

    /** Every alias and remote definition, by name. */
    public List<QueueReference> references() {
        return references.values().stream().sorted(java.util.Comparator.comparing(QueueReference::name)).toList();
    }

    void put(QueueReference reference) {
        references.put(reference.name(), reference);
        changed();
    }

    void remove(String name) {
        references.remove(name);
        changed();
    }

    /**
     * Says that a definition names are resolved by has changed (an alias or remote definition here; a queue defined,
     * altered or deleted, by the queue manager): what was resolved before may lead elsewhere now. Call after the
     * change is made.
     */
    void changed() {
        generation.incrementAndGet();
    }

    /**
     * The number of changes of the definitions so far ({@link #changed}): a resolution made while it held the same
     * number leads where it did.
     */
    long generation() {
        return generation.get();
    }

    /**
     * Where a put to {@code destination} (a queue or temporary queue) goes; a local queue that does not exist is
     * created by use when allowed, as before.
     *
     * @throws WharfException UNKNOWN_DESTINATION for a name that leads nowhere, as the class comment says
     */
    public Resolution resolve(WireDestination destination, QueueCreator creator) {
        String name = destination.name();
        String queueManager = TransmissionHeader.queueManagerOf(name);
        if (queueManager != null) {
            String queue = TransmissionHeader.queueOf(name);
            if (queueManager.isEmpty() || queueManager.equals(ownName)) {
                return local(new WireDestination(destination.kind(), queue), creator, 0);
            }
            return toQueueManager(name, queueManager, queue, true, creator, 0);
        }
        return local(destination, creator, 0);
    }

    /**
     * Whether a name qualified by {@code queueManager} ({@code queueManager/Q}) names a queue of this queue manager: an
     * empty name, this queue manager's own, or a queue-manager alias that leads here (through others, none naming a
     * transmission queue), as {@link #resolve} follows them. One map look-up per alias, nothing made.
     */
    public boolean leadsHere(String queueManager) {
        String name = queueManager;
        for (int hops = 0; hops <= MAX_HOPS; hops++) {
            if (name.isEmpty() || name.equals(ownName)) {
                return true;
            }
            QueueReference alias = references.get(name);
            if (alias == null || !alias.isQueueManagerAlias() || alias.transmissionQueue() != null) {
                return false;
            }
            String target = alias.remoteQueueManager() == null ? name : alias.remoteQueueManager();
            if (target.equals(name)) {
                return false;
            }
            name = target;
        }
        return false; // a loop, which resolve refuses
    }

    /**
     * The local queue a consumer or browser of {@code destination} reads: the queue, or an alias's target. A remote
     * definition or a name of another queue manager is refused: messages are received where they arrive.
     */
    public LocalQueue consumable(WireDestination destination, QueueCreator creator) {
        Resolution resolution = resolve(destination, creator);
        if (resolution.remote()) {
            throw new WharfException(ErrorCode.UNKNOWN_DESTINATION, "Queue '" + destination.name() + "' is on queue"
                    + " manager " + resolution.queueManager() + " (as queue '" + resolution.remoteQueue() + "'), not"
                    + " on " + ownName + ": messages are put to a remote queue, and received on the queue manager that"
                    + " holds it. Connect to " + resolution.queueManager() + " to receive them.");
        }
        return resolution.queue();
    }

    private Resolution local(WireDestination destination, QueueCreator creator, int hops) {
        String name = destination.name();
        if (destination.kind() == WireDestination.Kind.TEMPORARY_QUEUE) {
            return new Resolution(queues.temporaryQueue(name), null, null, false);
        }
        LocalQueue queue = queues.named(destination);
        if (queue != null) {
            return new Resolution(queue, null, null, false);
        }
        QueueReference reference = references.get(name);
        if (reference == null) {
            if (TransmissionHeader.queueManagerOf(name) != null) { // an alias's target may be qualified
                return resolve(destination, creator);
            }
            return new Resolution(queues.queue(name, creator), null, null, false);
        }
        checkHops(name, hops);
        if (reference.isAlias()) {
            return local(WireDestination.queue(reference.target()), creator, hops + 1);
        }
        if (reference.isQueueManagerAlias()) {
            throw new WharfException(ErrorCode.UNKNOWN_DESTINATION, "'" + name + "' is a queue-manager alias ("
                    + reference.describe() + "), not a queue: put to QUEUE on it as '" + name + "/QUEUE'"
                    + " (queue://" + name + "/QUEUE).");
        }
        if (reference.remoteQueueManager().equals(ownName)) {
            return local(WireDestination.queue(reference.remoteQueue()), creator, hops + 1);
        }
        LocalQueue transmission = reference.transmissionQueue() != null
                ? transmissionQueue(reference.transmissionQueue(), "remote queue '" + name + "'")
                : transmissionQueueOf(reference.remoteQueueManager(), name, hops + 1);
        return new Resolution(transmission, reference.remoteQueueManager(), reference.remoteQueue(), false);
    }

    /**
     * A put to {@code queue} on another queue manager, {@code queueManager}, through its transmission queue; or on this
     * one, through a queue-manager alias that leads here, where a queue created by use is {@code creator}'s.
     */
    private Resolution toQueueManager(String name, String queueManager, String queue, boolean qualified,
                                      QueueCreator creator, int hops) {
        checkHops(name, hops);
        QueueReference alias = references.get(queueManager);
        if (alias != null && alias.isQueueManagerAlias()) {
            String target = alias.remoteQueueManager() == null ? queueManager : alias.remoteQueueManager();
            if (alias.transmissionQueue() != null) {
                return new Resolution(transmissionQueue(alias.transmissionQueue(),
                        "queue-manager alias '" + queueManager + "'"), target, queue, qualified);
            }
            if (target.equals(ownName)) {
                return local(WireDestination.queue(queue), creator, hops + 1);
            }
            if (!target.equals(queueManager)) {
                return toQueueManager(name, target, queue, qualified, creator, hops + 1);
            }
        }
        return new Resolution(transmissionQueueOf(queueManager, name, hops), queueManager, queue, qualified);
    }

    /** The transmission queue named as {@code queueManager}, else the default one; refused when neither is. */
    private LocalQueue transmissionQueueOf(String queueManager, String name, int hops) {
        checkHops(name, hops);
        LocalQueue named = queues.find(queueManager);
        if (named != null && queues.isTransmissionQueue(queueManager)) {
            return named;
        }
        if (defaultTransmissionQueue != null) {
            return transmissionQueue(defaultTransmissionQueue, "setting defaultTransmissionQueue");
        }
        throw new WharfException(ErrorCode.UNKNOWN_DESTINATION, "Queue '" + name + "' is for queue manager "
                + queueManager + ", which queue manager " + ownName + " has no way to: no transmission queue is named "
                + queueManager + " and there is no default transmission queue. Define a transmission queue named "
                + queueManager + " (usage: transmission), a remote queue definition or queue-manager alias naming a"
                + " transmission queue, or set defaultTransmissionQueue (docs/distributed.md).");
    }

    /** The local queue {@code name}, which must be a transmission queue, as {@code namedBy} names it. */
    private LocalQueue transmissionQueue(String name, String namedBy) {
        LocalQueue queue = queues.find(name);
        if (queue == null || !queues.isTransmissionQueue(name)) {
            throw new WharfException(ErrorCode.UNKNOWN_DESTINATION, "Transmission queue '" + name + "', named by "
                    + namedBy + ", " + (queue == null ? "does not exist" : "is not a transmission queue")
                    + " on queue manager " + ownName + ": define it (wharf admin define queue " + name
                    + " --usage transmission, or usage: transmission under queues:).");
        }
        return queue;
    }

    private static void checkHops(String name, int hops) {
        if (hops > MAX_HOPS) {
            throw new WharfException(ErrorCode.UNKNOWN_DESTINATION, "Queue '" + name + "' leads through more than "
                    + MAX_HOPS + " aliases and queue-manager aliases: they form a loop. Correct the definitions"
                    + " ('wharf admin display names').");
        }
    }
}
