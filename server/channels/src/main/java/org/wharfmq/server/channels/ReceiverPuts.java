package org.wharfmq.server.channels;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import org.wharfmq.protocol.TemporaryNames;
import org.wharfmq.protocol.message.BodyType;
import org.wharfmq.protocol.message.MessageHeaders;
import org.wharfmq.protocol.message.PropertySection;
import org.wharfmq.protocol.message.TransmissionHeader;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.protocol.message.WireMessage;
import org.wharfmq.server.Configuration;
import org.wharfmq.server.ServerPlugin;
import org.wharfmq.server.WharfException;
import org.wharfmq.server.queue.DeadLetters;
import org.wharfmq.server.queue.SystemQueues;
import org.wharfmq.server.security.Identity;
import org.wharfmq.server.security.Permission;
import org.wharfmq.server.topic.TopicNames;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Where a message a receiver channel brings goes on this queue manager: the queue its transmission header names, as
 * the partner's user may put to it; a publication a partner of the publish/subscribe hierarchy forwarded, its topic,
 * as the partner's user may publish to it; else the dead-letter queue with the reason. Stateless; any thread.
 */
final class ReceiverPuts {
    private static final System.Logger LOG = System.getLogger(ReceiverPuts.class.getName());

    private final ServerPlugin.Host host;

    ReceiverPuts(ServerPlugin.Host host) {
        this.host = host;
    }

    /**
     * A message routed: where to put it ({@code destination}: its queue or topic, or the dead-letter queue), the queue
     * or topic it is for ({@code intended}, null when its header names none), the bytes to put (the caller's to
     * send) and their headers when routing read them from those very bytes ({@code headers}: the put need not read
     * them again), null when the bytes were written anew.
     */
    record Routed(WireDestination destination, String intended, ByteBuf bytes, MessageHeaders headers) {

        Routed(WireDestination destination, String intended, ByteBuf bytes) {
            this(destination, intended, bytes, null);
        }

        /** Whether it goes to the dead-letter queue. */
        boolean deadLettered() {
            return destination.equals(DEAD_LETTER_QUEUE);
        }
    }

    private static final WireDestination DEAD_LETTER_QUEUE = WireDestination.queue(SystemQueues.DEAD_LETTER_QUEUE);
    private static final byte[] QUEUE_MANAGER_UTF8 = TransmissionHeader.QUEUE_MANAGER.getBytes(StandardCharsets.UTF_8);
    private static final byte[] QUEUE_UTF8 = TransmissionHeader.QUEUE.getBytes(StandardCharsets.UTF_8);

    /**
     * Who a receiver channel's messages come from: the user its partner logged in as, the queue manager the channel is
     * bound to (its {@code partnerQueueManager}, null when it has none), whether the channel is bound to its
     * partner's identity too ({@code partnerUser}, {@code partnerCertificate}: {@link PartnerBinding}), the
     * user's send permissions as asked so far ({@code sends}, on the partner connection's event loop), and the receiver
     * channel ({@code channel}: its name, {@code setsPerMinute}: its maxSubscriptionSetsPerMinute, {@code sets}: what
     * its partners have taken of it), and the JMSDestinations of the messages it read last ({@code destinations}, on
     * the partner connection's event loop: {@link #read}).
     */
    record Partner(Identity user, String queueManager, boolean identityBound, SendVerdicts sends, String channel,
                   int setsPerMinute, SubscriptionSetRate sets, WireDestination[] destinations) {

        Partner(Identity user, String queueManager, boolean identityBound, SendVerdicts sends, String channel,
                int setsPerMinute, SubscriptionSetRate sets) {
            this(user, queueManager, identityBound, sends, channel, setsPerMinute, sets,
                    new WireDestination[Configuration.RECENT_DESTINATIONS]);
        }

        /**
         * The headers of {@code message}, a message this partner brought, JMSDestination one of {@link #destinations}
         * when it names one ({@link MessageHeaders#read(ByteBuf, WireDestination[])}): a channel carries the messages
         * of a few queues. On the partner connection's event loop.
         */
        MessageHeaders read(ByteBuf message) {
            return MessageHeaders.read(message, destinations);
        }

        /**
         * Why the partner does not speak for {@link #queueManager} in a publish/subscribe hierarchy (its subscription
         * sets, its forwarded publications), or null when it does: the channel is bound to that queue manager, and to
         * the partner's identity unless the partner logged in as no user (a queue manager without users, where
         * whoever reaches it may do everything).
         */
        String notSpeakingFor() {
            if (queueManager == null) {
                return "came over a receiver channel bound to no partner queue manager, which could be any queue"
                        + " manager's: set the receiver's partnerQueueManager (and partnerUser) to the partner it is"
                        + " for";
            }
            if (!identityBound && !user.anonymous()) {
                return "came over a receiver channel bound to no partner identity, which any user with the 'channel'"
                        + " permission could open in queue manager " + queueManager + "'s name (this one was opened"
                        + " by " + user.describe() + "): bind the receiver to its partner's user (partnerUser, and"
                        + " over TLS partnerCertificate; docs/distributed.md, \"Partner identity\")";
            }
            return null;
        }
    }

    /**
     * Routes {@code message} (left as it is: the bytes are a new buffer or a retained duplicate), which came from
     * {@code from}. Finds the two properties of its transmission header in one walk of its property section, for
     * every message a channel brings, and decodes neither when they name this queue manager and the queue the
     * message's JMSDestination names (as the sending queue manager writes them: {@link TransmissionHeader}).
     * {@code read}: the message's headers when the caller has read them already ({@link MessageHeaders#read} of these
     * very bytes), so that they are not read again; null to read them here.
     */
    Routed route(Partner from, ByteBuf message, MessageHeaders read) {
        MessageHeaders headers = read != null ? read : from.read(message);
        int properties = message.readerIndex() + headers.propertiesOffset();
        long tags = PropertySection.tagsOf(message, properties, QUEUE_MANAGER_UTF8, QUEUE_UTF8); // one walk for both
        int queueManagerTag = PropertySection.firstTag(tags);
        int queueTag = PropertySection.secondTag(tags);
        String here = host.config().name();
        Object queueManager; // null: this queue manager's (or none named)
        Object queue;
        if (queueManagerTag == PropertySection.DUPLICATE || queueTag == PropertySection.DUPLICATE) {
            Map<String, Object> all = headers.readProperties(message); // a decoder keeps the last of a name
            queueManager = all.get(TransmissionHeader.QUEUE_MANAGER);
            queue = all.get(TransmissionHeader.QUEUE);
        } else {
            // compared in place: the header names this queue manager and the queue the sender wrote as JMSDestination
            queueManager = queueManagerTag == -1 || PropertySection.isString(message, queueManagerTag, here) ? null
                    : PropertySection.valueOf(message, queueManagerTag);
            WireDestination written = headers.destination();
            queue = queueTag == -1 ? null
                    : written != null && PropertySection.isString(message, queueTag, written.name()) ? written.name()
                    : PropertySection.valueOf(message, queueTag);
        }
        return route(from, message, headers, here.equals(queueManager) ? null : queueManager, queue);
    }

    /**
     * Routes {@code message}, of headers {@code headers}, whose transmission header names {@code queueManager} (null:
     * this one, or none) and {@code queue}.
     */
    private Routed route(Partner from, ByteBuf message, MessageHeaders headers, Object queueManager, Object queue) {
        if (HierarchyMessages.isForwardedPublication(queueManager, queue, host.config().name())) {
            Object topic = headers.readProperties(message).get(HierarchyMessages.TOPIC);
            return publication(from, message, topic instanceof String t ? t : "");
        }
        if (!(queue instanceof String q)) {
            return deadLetter(message, null, "it has no transmission header (" + TransmissionHeader.QUEUE + "): it"
                    + " was put on the sender's transmission queue by its name");
        }
        String destination = queueManager == null ? q : queueManager + String.valueOf(TransmissionHeader.QUALIFIER) + q;
        String tooLong = tooLong("its transmission header names a destination", destination);
        if (tooLong != null) {
            // neither remembered (SendVerdicts), nor logged, nor written to the dead letter whole
            return deadLetter(message, null, tooLong);
        }
        String malformed = notANameOfItsOwn(queueManager, q);
        if (malformed != null) {
            return deadLetter(message, destination, malformed);
        }
        if (destination.equals(HierarchyMessages.CONTROL_QUEUE)) {
            return subscriptionSet(from, message);
        }
        // the queue here the destination names: itself, or the queue a name qualified by this queue manager (through
        // a queue-manager alias of it) names; null for a queue of another queue manager, routed on as the partner may
        String local = destination.indexOf(TransmissionHeader.QUALIFIER) < 0 ? destination
                : host.management().leadsHere(TransmissionHeader.queueManagerOf(destination))
                ? TransmissionHeader.queueOf(destination) : null;
        String refusal = local == null ? null : queueOfItsOwn(local);
        if (refusal == null) {
            refusal = refusal(from, destination, local);
        }
        if (refusal != null) {
            return deadLetter(message, destination, refusal);
        }
        // a SEND goes where the message's JMSDestination says, which the sending queue manager wrote as the queue
        // here, of the kind its name makes it (TransmissionHeader.address); a message for a third queue manager, from
        // a sender that wrote the name its producer used, or whose JMSDestination names the queue as another kind of
        // destination (a topic: the put would publish what the partner's user may only send), is written anew (the
        // body stays as it is)
        WireDestination written = headers.destination();
        if (written != null && written.kind() == TransmissionHeader.kindOf(destination)
                && destination.equals(written.name())) {
            return new Routed(written, destination, message.retainedDuplicate(), headers);
        }
        WireDestination to = TransmissionHeader.destinationOf(destination);
        return new Routed(to, destination, addressedTo(message, to, null));
    }

    /**
     * A publication a queue manager of the publish/subscribe hierarchy forwarded (docs/distributed.md), for its topic
     * here, published with the partner's authority and as from the queue manager the channel is bound to; else for
     * the dead-letter queue with the reason. The partner's word is taken for nothing that widens where it goes:
     * {@link HierarchyMessages#FROM} is written anew as the bound partner (a forged one would keep it from going back
     * there, or from another member), {@link HierarchyMessages#ORIGIN} is kept only as a name (it can only keep the
     * publication from the member it names, as the partner could by not forwarding it) and is the partner when it has
     * none, and {@link HierarchyMessages#PUBLISHER} stays the partner's claim.
     */
    private Routed publication(Partner from, ByteBuf message, String topic) {
        String tooLong = tooLong("the forwarded publication names a topic", topic);
        if (tooLong != null) {
            return deadLetter(message, null, tooLong); // neither published, nor logged, nor copied whole
        }
        Identity partner = from.user();
        String refusal = null;
        try {
            TopicNames.checkTopic(topic);
            String unbound = from.notSpeakingFor();
            if (unbound != null) {
                refusal = "a publication forwarded on topic '" + topic + "' " + unbound;
            } else if (!host.accessControl().allows(partner, Permission.PUBLISH, topic)) {
                refusal = "the channel's user, " + partner.describe() + ", may not publish to topic '" + topic
                        + "' (no 'publish' permission on it)";
            }
        } catch (WharfException e) {
            refusal = "the forwarded publication names no valid topic: " + e.getMessage();
        }
        if (refusal != null) {
            return deadLetter(message, topic, refusal);
        }
        WireDestination to = WireDestination.topic(topic);
        return new Routed(to, topic, addressedTo(message, to, from.queueManager()));
    }

    /** {@code message} for the dead-letter queue, saying why it is not on {@code destination}. */
    Routed deadLetter(ByteBuf message, String destination, String reason) {
        LOG.log(System.Logger.Level.WARNING, "A message for " + destination + " went to the dead-letter queue: "
                + reason);
        WireMessage m = WireMessage.decode(message.duplicate());
        m.destination = WireDestination.queue(SystemQueues.DEAD_LETTER_QUEUE);
        m.properties.put(DeadLetters.REASON_PROPERTY, "Channel: " + reason);
        if (destination != null) {
            m.properties.put(DeadLetters.QUEUE_PROPERTY, destination);
        }
        ByteBuf out = ByteBufAllocator.DEFAULT.buffer();
        m.encode(out);
        return new Routed(DEAD_LETTER_QUEUE, destination, out);
    }

    /**
     * A partner's proxy subscription set (docs/distributed.md), for {@link HierarchyMessages#CONTROL_QUEUE}: taken
     * only from the queue manager the channel is bound to, over a channel bound to the partner's identity too
     * ({@link Partner#notSpeakingFor}), and only with the filters the channel's user may subscribe
     * to (the others are left out of it and named in {@link HierarchyMessages#REFUSED}), made anew with those
     * alone; else for the dead-letter
     * queue with the reason. A queue manager's channel may put here whatever the queue rules say: the proxy
     * subscriptions are its, so the set speaks for it alone, with its user's authority.
     */
    private Routed subscriptionSet(Partner from, ByteBuf message) {
        Identity partner = from.user();
        String partnerQueueManager = from.queueManager();
        String queue = HierarchyMessages.CONTROL_QUEUE;
        if (!exists(queue)) {
            return deadLetter(message, queue, "queue manager " + host.config().name() + " is in no publish/subscribe"
                    + " hierarchy (hierarchy: in config/wharf.yaml), so it takes no proxy subscriptions");
        }
        WireMessage set = WireMessage.decode(message.duplicate());
        Object claimed = set.properties.get(HierarchyMessages.QUEUE_MANAGER);
        String unbound = from.notSpeakingFor();
        if (unbound != null) {
            return deadLetter(message, queue, "the proxy subscriptions of queue manager " + claimed + " " + unbound);
        }
        if (!partnerQueueManager.equals(claimed)) {
            return deadLetter(message, queue, "the proxy subscriptions of queue manager " + claimed + " came over the"
                    + " receiver channel of queue manager " + partnerQueueManager + " (its partnerQueueManager): a"
                    + " partner may send its own subscriptions only");
        }
        SubscriptionSetRate.Verdict verdict = from.sets().take(from.setsPerMinute(), System.nanoTime());
        if (verdict != SubscriptionSetRate.Verdict.TAKEN) {
            SetsTooOften refused = new SetsTooOften(tooOften(from));
            if (verdict == SubscriptionSetRate.Verdict.REFUSED_FIRST) {
                LOG.log(System.Logger.Level.WARNING, refused.getMessage() + " (logged once until a set is taken"
                        + " again)");
            }
            throw refused;
        }
        List<String> allowed = new ArrayList<>();
        List<String> refused = new ArrayList<>();
        List<String> tooLong = new ArrayList<>();
        for (String filter : HierarchyMessages.filters(set.properties)) {
            String cut = tooLong("a filter", filter);
            if (cut != null) {
                tooLong.add(cut); // neither subscribed, nor kept, nor logged whole
            } else {
                (host.accessControl().allows(partner, Permission.SUBSCRIBE, filter) ? allowed : refused).add(filter);
            }
        }
        // made anew, so that nothing else the partner wrote in it (a refusal of its own making, say) is taken
        WireDestination to = WireDestination.queue(queue);
        WireMessage taken = HierarchyMessages.subscriptionSet(partnerQueueManager, to, allowed);
        List<String> ancestors = HierarchyMessages.ancestors(set.properties); // a parent's, read when it is the parent
        if (ancestors != null) {
            HierarchyMessages.withAncestors(taken, ancestors);
        }
        String why = null;
        if (!refused.isEmpty()) {
            why = "the channel's user, " + partner.describe() + ", may not subscribe to " + some(refused) + " (no"
                    + " 'subscribe' permission on " + (refused.size() == 1 ? "it" : "them") + ")";
        }
        if (!tooLong.isEmpty()) {
            String cut = "the set names " + some(tooLong);
            why = why == null ? cut : why + "; " + cut;
        }
        if (why != null) {
            LOG.log(System.Logger.Level.WARNING, "Queue manager " + host.config().name() + " refused proxy"
                    + " subscriptions of queue manager " + partnerQueueManager + ": " + why);
            taken.properties.put(HierarchyMessages.REFUSED, why);
        }
        ByteBuf out = ByteBufAllocator.DEFAULT.buffer();
        taken.encode(out);
        return new Routed(to, queue, out);
    }

    /**
     * A partner's proxy subscription set refused for coming more often than its receiver's
     * maxSubscriptionSetsPerMinute: the batch that holds it is refused, its partner told why (and the log once), and
     * the set taken when its sender sends the batch again; one outside the batches is dropped, as FAST allows.
     */
    static final class SetsTooOften extends RuntimeException {
        SetsTooOften(String reason) {
            super(reason, null, false, false);
        }
    }

    /** Why {@code from}'s set is refused ({@link SetsTooOften}), and the fix. */
    private String tooOften(Partner from) {
        String here = host.config().name();
        return "queue manager " + here + " refused a proxy subscription set of queue manager " + from.queueManager()
                + ": sets come over receiver channel '" + from.channel() + "' faster than its"
                + " maxSubscriptionSetsPerMinute of " + from.setsPerMinute() + " (a minute, in bursts of as many; each"
                + " set remakes up to maxProxySubscriptions durable subscriptions here). The batch that holds it"
                + " is refused and taken when the sender sends it again (after its retryMillis), the set with it. Find"
                + " what makes and ends subscriptions so often on queue manager " + from.queueManager() + ", or"
                + " raise maxSubscriptionSetsPerMinute of receiver channel '" + from.channel() + "' on queue manager "
                + here + " ('wharf admin alter channel " + from.channel() + " --set maxSubscriptionSetsPerMinute=N').";
    }

    /**
     * Why {@code name}, a destination, topic or filter a partner sent ({@code what} says which), is too long to take:
     * its length and its start, so that a partner cannot make the receiver remember, log or copy names as long as a
     * message ({@link ChannelConfiguration#MAX_DESTINATION_CHARS}); null when it is not.
     */
    private static String tooLong(String what, String name) {
        if (name.length() <= ChannelConfiguration.MAX_DESTINATION_CHARS) {
            return null;
        }
        return what + " of " + name.length() + " characters ('" + name.substring(0, 64) + "...'), longer than the "
                + ChannelConfiguration.MAX_DESTINATION_CHARS + " a receiver takes";
    }

    /** {@code items} as a list of at most ten, and how many more: a reason a partner's set cannot make long. */
    private static String some(List<String> items) {
        int shown = Math.min(items.size(), 10);
        return items.subList(0, shown) + (shown < items.size() ? " and " + (items.size() - shown) + " more" : "");
    }

    /**
     * Why no partner puts to {@code destination}, a queue of this queue manager, whatever its user may do; null for
     * any other. A {@code SYSTEM.*} queue (the admin command queue, the channels' sync records, the dead-letter queue)
     * is the queue manager's own: what goes there comes from its own code, or from a client of its own with the admin
     * permission, never over a channel (a partner's proxy subscriptions are taken apart, above). A transmission queue
     * takes messages this queue manager addressed to another ({@code QM3/Q}): one the partner put there by its name
     * would keep the transmission header that brought it here, naming this queue manager, and its next receiver would
     * send it back, and so on. The caller gives the queue a qualified name leads to here ({@code QM1} of
     * {@code HERE/QM1}, HERE a queue-manager alias of this queue manager).
     */
    private String queueOfItsOwn(String destination) {
        if (destination.startsWith(TemporaryNames.PREFIX)) {
            return null; // a reply's temporary queue
        }
        String queueManager = host.config().name();
        if (SystemQueues.isSystem(destination)) {
            return "'" + destination + "' is a system queue of queue manager " + queueManager + ", which takes no"
                    + " messages from a channel, whatever the channel's user may do (docs/security.md, \"Channels from"
                    + " other queue managers\"). The sending application names another queue";
        }
        if (host.management().isTransmissionQueue(destination)) {
            return "'" + destination + "' is a transmission queue of queue manager " + queueManager + ", which takes"
                    + " only messages that queue manager addresses to another: one put there by its name would go back"
                    + " and forth between the queue managers. The sending application names the queue where it is"
                    + " going, qualified by its queue manager (QM/QUEUE, queue://QM/QUEUE)";
        }
        return null;
    }

    /**
     * Why a transmission header that names {@code queueManager} (null: this one) and {@code queue} names no queue a
     * Wharf queue manager addresses, or null when it does: a queue's name holds no {@code /}, and a queue manager's is
     * neither empty nor holds one, so a header that says otherwise is a partner's making, to reach by a qualified name
     * ({@code QM2/SYSTEM.CHANNEL.SYNCQ}, {@code /QM1}) a queue of this queue manager's own that the plain name would
     * not reach.
     */
    private static String notANameOfItsOwn(Object queueManager, String queue) {
        char qualifier = TransmissionHeader.QUALIFIER;
        if (queue.indexOf(qualifier) >= 0) {
            return "its transmission header names the queue '" + queue + "', which holds a '" + qualifier + "': a"
                    + " queue's name holds none (the queue manager goes in " + TransmissionHeader.QUEUE_MANAGER + "),"
                    + " and no Wharf queue manager writes one. Check the sending queue manager (its version)";
        }
        if (queueManager != null
                && (!(queueManager instanceof String qm) || qm.isEmpty() || qm.indexOf(qualifier) >= 0)) {
            return "its transmission header names the queue manager '" + queueManager + "', which is no queue"
                    + " manager's name (one is not empty and holds no '" + qualifier + "'), and no Wharf queue manager"
                    + " writes one. Check the sending queue manager (its version)";
        }
        return null;
    }

    /**
     * Why the partner may not put to {@code destination}, or null when it may. {@code local}: the queue here it names
     * (itself, or the queue of a name qualified by this queue manager), null when it is another queue manager's.
     */
    private String refusal(Partner from, String destination, String local) {
        if (destination.startsWith(TemporaryNames.PREFIX) && destination.equals(local)) {
            return null; // anyone who has a temporary queue's name may send to it, as JMS has it
        }
        Identity partner = from.user();
        if (!from.sends().allows(destination)) {
            return "the channel's user, " + partner.describe() + ", may not send to '" + destination + "' (no 'send'"
                    + " permission on it)";
        }
        if (local != null && !local.startsWith(TemporaryNames.PREFIX) && !exists(local)) {
            if (!host.config().autoCreate()) {
                return "queue manager " + host.config().name() + " has no queue '" + local + "'";
            }
            if (!host.accessControl().allows(partner, Permission.CREATE, local)) {
                return "queue manager " + host.config().name() + " has no queue '" + local + "', and the"
                        + " channel's user, " + partner.describe() + ", may not create it (no 'create' permission)";
            }
        }
        return null;
    }

    /** A queue, or a name defined for one (an alias, a remote definition): a look-up for every message it puts. */
    private boolean exists(String name) {
        return host.management().queueExists(name)
                || host.management().names().stream().anyMatch(n -> n.name().equals(name));
    }

    /**
     * {@code message} with JMSDestination {@code destination}: its header and property sections written anew, its
     * body a retained slice of {@code message} (as {@link TransmissionHeader.Addressed#wrap} keeps a long one). {@code forwardedBy}: for
     * a forwarded publication, the partner it came from, written as its {@link HierarchyMessages#FROM} (and
     * {@link HierarchyMessages#ORIGIN} when it names none); null for any other message.
     */
    private static ByteBuf addressedTo(ByteBuf message, WireDestination destination, String forwardedBy) {
        ByteBuf in = message.duplicate();
        int start = in.readerIndex();
        WireMessage headers = WireMessage.decodeHeaders(in);
        int bodySection = in.readerIndex();
        headers.destination = destination;
        if (forwardedBy != null) {
            headers.properties.put(HierarchyMessages.FROM, forwardedBy);
            if (!(headers.properties.get(HierarchyMessages.ORIGIN) instanceof String)) {
                headers.properties.put(HierarchyMessages.ORIGIN, forwardedBy); // none would match no proxy's selector
            }
        }
        ByteBuf head = ByteBufAllocator.DEFAULT.buffer(bodySection - start + 64);
        headers.encodeHeaders(head);
        CompositeByteBuf readdressed = ByteBufAllocator.DEFAULT.compositeBuffer(2);
        readdressed.addComponent(true, head);
        readdressed.addComponent(true, message.retainedSlice(bodySection, message.writerIndex() - bodySection));
        return readdressed;
    }

    /** The channel's sync record: its sequence number and last batch id, a persistent message of the sync queue. */
    static ByteBuf syncRecord(String channel, long sequence, long batchId) {
        WireMessage m = new WireMessage();
        m.bodyType = BodyType.MESSAGE;
        m.persistent = true;
        m.destination = WireDestination.queue(ChannelConfiguration.SYNC_QUEUE);
        m.timestamp = System.currentTimeMillis();
        m.properties.put(ReceiverState.CHANNEL, channel);
        m.properties.put(ReceiverState.SEQUENCE, sequence);
        m.properties.put(ReceiverState.BATCH, batchId);
        ByteBuf out = ByteBufAllocator.DEFAULT.buffer();
        m.encode(out);
        return out;
    }
}
