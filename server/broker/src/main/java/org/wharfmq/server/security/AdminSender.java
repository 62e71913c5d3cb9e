package org.wharfmq.server.security;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import org.wharfmq.protocol.message.WireMessage;

import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Who sent an admin command, as the queue manager knows it: the identity of the connection that put the request on
 * {@link org.wharfmq.server.queue.SystemQueues#ADMIN_COMMAND_QUEUE}, stamped on the request by the queue manager
 * when it accepts it ({@link #stamp}), so that the admin command responder can ask whether that sender may
 * administer ({@link #of}) without taking anyone's word for it.
 *
 * <p>Why not JMSXUserID alone: the server checks it against the login of a client's connection, but the queue
 * manager's own connections ({@link Identity#SERVER}) put messages with the JMSXUserID of whoever sent them first (a
 * channel partner's word, a flow's input message), and an anonymous client's request and the queue manager's own
 * carry none. The stamp says which connection put the request: its user, groups and mechanism. Whatever a sender
 * put under these property names itself is replaced, so a client, a channel's partner or a flow cannot forge it; a
 * request that reaches the queue without passing the stamp (there is no such way today) has none, and is refused.
 *
 * <p>Costs one decode and encode of each admin request (not of any other message).
 */
public final class AdminSender {

    /** The sender's user name, empty for an anonymous connection or the queue manager's own. */
    public static final String USER = "WHARF_SENDER_USER";
    /** The sender's groups, separated by {@code ,} (group names hold none: docs/security.md). */
    public static final String GROUPS = "WHARF_SENDER_GROUPS";
    /** How the sender logged in ({@link Identity#mechanism}); {@code IN-PROCESS} for the queue manager's own. */
    public static final String MECHANISM = "WHARF_SENDER_MECHANISM";

    private AdminSender() {
    }

    /**
     * {@code content} (an admin request) with {@code who} stamped on it, in a new buffer; {@code content} is left as
     * it was (its reference still the caller's).
     *
     * @throws org.wharfmq.protocol.frame.MalformedFrameException when the message does not decode (checked before)
     */
    public static ByteBuf stamp(ByteBuf content, Identity who) {
        WireMessage message = WireMessage.decode(content.duplicate());
        Map<String, Object> properties = message.properties;
        properties.remove(USER);
        properties.remove(GROUPS);
        properties.remove(MECHANISM);
        properties.put(USER, who.user());
        properties.put(GROUPS, String.join(",", new TreeSet<>(who.groups())));
        properties.put(MECHANISM, who.mechanism());
        ByteBuf stamped = PooledByteBufAllocator.DEFAULT.directBuffer(
                (message.body == null ? 0 : message.body.length) + 1024);
        message.encode(stamped);
        return stamped;
    }

    /**
     * The identity stamped on a request's properties by {@link #stamp}: {@link Identity#SERVER} for the queue
     * manager's own connections; null when the request carries no stamp.
     */
    public static Identity of(Map<String, Object> properties) {
        if (!(properties.get(USER) instanceof String user) || !(properties.get(GROUPS) instanceof String groups)
                || !(properties.get(MECHANISM) instanceof String mechanism)) {
            return null;
        }
        if (user.isEmpty() && mechanism.equals(Identity.SERVER.mechanism())) {
            return Identity.SERVER;
        }
        if (user.isEmpty()) {
            return Identity.ANONYMOUS;
        }
        Set<String> groupSet = groups.isEmpty() ? Set.of() : Set.copyOf(Arrays.asList(groups.split(",")));
        return new Identity(user, groupSet, mechanism);
    }
}
