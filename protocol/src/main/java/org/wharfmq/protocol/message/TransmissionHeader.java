package org.wharfmq.protocol.message;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import org.wharfmq.protocol.TemporaryNames;
import org.wharfmq.protocol.frame.WireStrings;

import java.nio.charset.StandardCharsets;

/**
 * The transmission header of a message waiting on a transmission queue for a channel to another queue manager (IBM
 * MQ's MQXQH): where it is going, kept as message properties, so that the message on the transmission queue is an
 * ordinary message in this encoding and a channel sends its stored bytes as they are.
 *
 * <p>A message put for another queue manager is {@link #address}ed: its header section and property section are
 * written anew (with the properties below, the reply-to queue qualified by its queue manager, and JMSDestination the
 * queue on the queue manager it is for), its body section never re-encoded. On a transmission queue it waits wrapped
 * ({@link Addressed#wrap}: a short body copied after them into the same buffer, a longer one kept as a slice of the
 * original buffer); one a sender channel takes as it is put goes to the partner with its header written straight into
 * the channel's frame run ({@link Addressed#writeHead}), its body copied once, there.
 */
public final class TransmissionHeader {

    /** The queue manager the message is for (MQXQH RemoteQMgrName). */
    public static final String QUEUE_MANAGER = "WHARF_XMIT_QMGR";
    /** The queue on that queue manager (MQXQH RemoteQName). */
    public static final String QUEUE = "WHARF_XMIT_QUEUE";
    /** The queue manager it was put on. */
    public static final String SOURCE_QUEUE_MANAGER = "WHARF_XMIT_SOURCE_QMGR";
    /** The queue manager of its reply-to queue (MQMD ReplyToQMgr); absent when it has none. */
    public static final String REPLY_TO_QUEUE_MANAGER = "WHARF_XMIT_REPLY_QMGR";

    /** The separator of a queue-manager-qualified queue name, {@code QM2/ORDERS} ({@code queue://QM2/ORDERS}). */
    public static final char QUALIFIER = '/';

    private static final byte[] QUEUE_MANAGER_UTF8 = QUEUE_MANAGER.getBytes(StandardCharsets.UTF_8);
    private static final byte[] QUEUE_UTF8 = QUEUE.getBytes(StandardCharsets.UTF_8);
    private static final byte[] SOURCE_QUEUE_MANAGER_UTF8 = SOURCE_QUEUE_MANAGER.getBytes(StandardCharsets.UTF_8);
    private static final byte[] REPLY_TO_QUEUE_MANAGER_UTF8 = REPLY_TO_QUEUE_MANAGER.getBytes(StandardCharsets.UTF_8);
    private static final byte[][] HEADER_NAMES_UTF8 = {
        QUEUE_MANAGER_UTF8, QUEUE_UTF8, SOURCE_QUEUE_MANAGER_UTF8, REPLY_TO_QUEUE_MANAGER_UTF8};

    private TransmissionHeader() {
    }

    /**
     * The message {@code message} (all its readable bytes, a message {@link MessageHeaders#read} has checked) for
     * {@code queue} on {@code queueManager}, put on {@code sourceQueueManager}: {@link #address(ByteBuf, Route)} with
     * a route prepared for it alone. A caller that addresses many messages the same way keeps the {@link Route}.
     */
    public static Addressed address(ByteBuf message, String queueManager, String queue, String sourceQueueManager) {
        return address(message, route(queueManager, queue, sourceQueueManager));
    }

    /**
     * The message {@code message} (all its readable bytes, a message {@link MessageHeaders#read} has checked) for the
     * queue and queue manager of {@code route}, with its transmission header measured and not yet written
     * ({@link Addressed}): the properties above added (replacing any of the same name, which a message passing through
     * this queue manager on its way to a third carries), a reply-to queue without a queue manager qualified as
     * {@code SOURCE/NAME} ({@code SOURCE} the route's source queue manager), and JMSDestination the queue
     * ({@link #destinationOf}), as the receiving queue manager puts it, so that it need not write the message again.
     * Holds no reference of its own to {@code message}.
     *
     * <p>It runs on every put to a remote queue, so it decodes nothing and encodes no name: one look at the message's
     * fields and its property section's names; the route's names are bytes already.
     *
     * @throws IllegalArgumentException when the message has too many properties to take the header's
     */
    public static Addressed address(ByteBuf message, Route route) {
        return new Addressed(message, route);
    }

    /**
     * The route of the messages for {@code queue} on {@code queueManager} put on {@code sourceQueueManager}: what their
     * transmission headers share, encoded once.
     */
    public static Route route(String queueManager, String queue, String sourceQueueManager) {
        return new Route(queueManager, queue, sourceQueueManager);
    }

    /**
     * What the transmission header of every message for one queue on one queue manager, put on one queue manager,
     * has the same: JMSDestination, the three properties every such message carries and the source queue manager's
     * name, as the bytes {@link Addressed#writeHead} copies, rather than names encoded for each message (a UTF-8
     * encoding of each, its length measured first, a dozen small writes). Immutable; any thread. A queue manager's
     * session keeps the one of the last remote name it put to (docs/performance-log.md, "Session 37: RR-5's CPU per
     * round trip").
     */
    public static final class Route {
        private final WireDestination destination;
        /** JMSDestination as written: its kind, then the queue's name, length-prefixed. */
        private final byte[] destinationField;
        /** The source queue manager's name, UTF-8. */
        private final byte[] sourceUtf8;
        /** The properties QUEUE_MANAGER, QUEUE and SOURCE_QUEUE_MANAGER, in that order, as written. */
        private final byte[] properties;

        private Route(String queueManager, String queue, String sourceQueueManager) {
            this.destination = destinationOf(queue);
            this.sourceUtf8 = sourceQueueManager.getBytes(StandardCharsets.UTF_8);
            ByteBuf out = Unpooled.buffer();
            WireDestination.write(out, destination);
            this.destinationField = ByteBufUtil.getBytes(out);
            out.clear();
            writeName(out, QUEUE_MANAGER_UTF8);
            WireStrings.write(out, queueManager);
            writeName(out, QUEUE_UTF8);
            WireStrings.write(out, queue);
            writeName(out, SOURCE_QUEUE_MANAGER_UTF8);
            WireStrings.write(out, sourceQueueManager);
            this.properties = ByteBufUtil.getBytes(out);
        }
    }

    /**
     * A message and the transmission header it is to carry ({@link #address}), measured: written either into a buffer
     * of its own ({@link #wrap}), to wait on a transmission queue, or, its header's bytes ({@link #writeHead}) then its
     * body ({@link #bodyIndex}, {@link #bodyLength}), straight into whatever carries it (a sender channel's frame run),
     * the message copied once. Immutable; it holds the indexes of {@link #message()}, whose indexes must not move.
     */
    public static final class Addressed {
        private final ByteBuf message;
        private final Route route;
        private final int start;
        private final int destinationAt;
        private final int replyToAt;
        private final int typeAt;
        private final int propertiesAt;
        private final int bodyAt;
        /** Where the reply-to's name has its qualifier; -1: none, or no reply-to. */
        private final int replyToQualifier;
        /** The properties kept of the message's own (those of an old transmission header left out). */
        private final int kept;
        /** Where the wrapped message's property section starts, from its first byte. */
        private final int propertiesOffset;
        /** The bytes of the wrapped message before its body. */
        private final int headLength;

        private Addressed(ByteBuf message, Route route) {
            this.message = message;
            this.route = route;
            start = message.readerIndex();
            // the correlation id, a string or raw bytes, is length-prefixed either way
            destinationAt = skipLengthPrefixed(message,
                    skipLengthPrefixed(message, start + MessageEncoding.MESSAGE_ID_OFFSET));
            replyToAt = skipDestination(message, destinationAt);
            typeAt = skipDestination(message, replyToAt);
            propertiesAt = skipLengthPrefixed(message, typeAt);
            bodyAt = propertiesAt + 4 + message.getInt(propertiesAt);
            int sourceBytes = route.sourceUtf8.length;
            int head = destinationAt - start + route.destinationField.length; // up to JMSDestination, then the queue
            int replyToQualifierAt = -1;
            int replyToQueueManagerBytes = 0;
            boolean replyTo = message.getByte(replyToAt) != 0;
            head += 1; // the reply-to's kind
            if (replyTo) {
                int nameAt = replyToAt + 5;
                int nameLength = message.getInt(replyToAt + 1);
                replyToQualifierAt = message.indexOf(nameAt, nameAt + nameLength, (byte) QUALIFIER);
                head += 4 + nameLength + (replyToQualifierAt >= 0 ? 0 : sourceBytes + 1);
                replyToQueueManagerBytes = replyToQualifierAt >= 0 ? replyToQualifierAt - nameAt : sourceBytes;
            }
            this.replyToQualifier = replyToQualifierAt;
            head += propertiesAt - typeAt; // the type
            this.propertiesOffset = head;
            head += 6; // the property section's length and count
            int count = message.getUnsignedShort(propertiesAt + 4);
            int keptCount = 0;
            int at = propertiesAt + 6;
            for (int i = 0; i < count; i++) {
                int nameLength = message.getInt(at);
                int next = PropertySection.next(message, at + 4 + nameLength, bodyAt);
                if (!isHeaderName(message, at + 4, nameLength)) {
                    keptCount++;
                    head += next - at;
                }
                at = next;
            }
            this.kept = keptCount;
            head += route.properties.length;
            if (replyTo) {
                head += property(REPLY_TO_QUEUE_MANAGER_UTF8, replyToQueueManagerBytes);
            }
            int properties = keptCount + (replyTo ? 4 : 3);
            if (properties > PropertySection.MAX_PROPERTIES) {
                throw new IllegalArgumentException(properties + " properties with the transmission header's: a message"
                        + " carries at most " + PropertySection.MAX_PROPERTIES);
            }
            this.headLength = head;
        }

        /** The message as it was put, without its transmission header. */
        public ByteBuf message() {
            return message;
        }

        /** The wrapped message's length in bytes: its header's ({@link #writeHead}) and its body's. */
        public int length() {
            return headLength + bodyLength();
        }

        /** The bytes {@link #writeHead} writes. */
        public int headLength() {
            return headLength;
        }

        /** Where the body section of {@link #message()} starts: it follows the head as it is. */
        public int bodyIndex() {
            return bodyAt;
        }

        /** The body section's bytes, which follow the head unchanged. */
        public int bodyLength() {
            return message.writerIndex() - bodyAt;
        }

        /**
         * Writes the wrapped message but its body ({@link #headLength} bytes) to {@code out}: the fields before
         * JMSDestination, the type and the other properties copied as bytes, the new ones written after them.
         */
        public void writeHead(ByteBuf out) {
            int begin = out.writerIndex();
            out.writeBytes(message, start, destinationAt - start);
            out.writeBytes(route.destinationField);
            byte replyToKind = message.getByte(replyToAt);
            int replyToNameAt = replyToAt + 5;
            out.writeByte(replyToKind);
            if (replyToKind != 0) {
                int nameLength = message.getInt(replyToAt + 1);
                if (replyToQualifier >= 0) {
                    out.writeBytes(message, replyToAt + 1, 4 + nameLength);
                } else {
                    out.writeInt(route.sourceUtf8.length + 1 + nameLength);
                    out.writeBytes(route.sourceUtf8);
                    out.writeByte(QUALIFIER);
                    out.writeBytes(message, replyToNameAt, nameLength);
                }
            }
            out.writeBytes(message, typeAt, propertiesAt - typeAt);
            int section = out.writerIndex();
            out.writeInt(0);
            out.writeShort(kept + (replyToKind != 0 ? 4 : 3));
            copyOtherProperties(out, message, propertiesAt, bodyAt);
            out.writeBytes(route.properties);
            if (replyToKind != 0) {
                writeName(out, REPLY_TO_QUEUE_MANAGER_UTF8);
                if (replyToQualifier >= 0) { // the queue manager it names: its name's bytes before the qualifier
                    out.writeInt(replyToQualifier - replyToNameAt);
                    out.writeBytes(message, replyToNameAt, replyToQualifier - replyToNameAt);
                } else {
                    out.writeInt(route.sourceUtf8.length);
                    out.writeBytes(route.sourceUtf8);
                }
            }
            out.setInt(section, out.writerIndex() - section - 4);
            assert out.writerIndex() - begin == headLength : "measured " + headLength + ", wrote "
                    + (out.writerIndex() - begin);
        }

        /**
         * The wrapped message in a buffer of its own, to wait on a transmission queue. A body of at most
         * {@code copyLimit} bytes is copied into the one buffer the header is written to: for a short message a copy
         * of its body costs less than a composite of two buffers, its components and a slice, made, read and released
         * on every put (docs/performance-log.md, "Session 31: RR-5 channel hop"); a longer body is a retained slice of
         * {@link #message()}, not copied. Either way the caller keeps its own reference to {@link #message()}.
         */
        public ByteBuf wrap(ByteBufAllocator alloc, int copyLimit) {
            int bodyLength = bodyLength();
            boolean copied = bodyLength <= copyLimit;
            ByteBuf head = alloc.buffer(headLength + (copied ? bodyLength : 0));
            try {
                writeHead(head);
                if (copied) {
                    head.writeBytes(message, bodyAt, bodyLength);
                    return head;
                }
            } catch (RuntimeException e) {
                head.release();
                throw e;
            }
            CompositeByteBuf wrapped = alloc.compositeBuffer(2);
            wrapped.addComponent(true, head);
            wrapped.addComponent(true, message.retainedSlice(bodyAt, bodyLength));
            return wrapped;
        }

        /**
         * The headers of the wrapped message, that of {@code original} (the headers of {@link #message()}): what
         * {@link MessageHeaders#read} reads of it, without checking and decoding it again.
         */
        public MessageHeaders headers(MessageHeaders original) {
            return original.readdressed(route.destination, propertiesOffset);
        }
    }

    /** The bytes of a string property named {@code nameUtf8} whose value has {@code valueBytes} UTF-8 bytes. */
    private static int property(byte[] nameUtf8, int valueBytes) {
        return 4 + nameUtf8.length + 1 + 4 + valueBytes;
    }

    /**
     * The JMSDestination of a message for queue {@code queue} on the queue manager it goes to: a temporary queue's
     * name ({@link TemporaryNames#PREFIX}) names a temporary queue, any other a queue. The one rule of both ends.
     */
    public static WireDestination destinationOf(String queue) {
        return new WireDestination(kindOf(queue), queue);
    }

    /** The kind of {@link #destinationOf}{@code (queue)}, without making it. */
    public static WireDestination.Kind kindOf(String queue) {
        return queue.startsWith(TemporaryNames.PREFIX) ? WireDestination.Kind.TEMPORARY_QUEUE
                : WireDestination.Kind.QUEUE;
    }

    /**
     * Copies the properties of the (checked) section at {@code section}, which ends at {@code end}, but those of a
     * transmission header, run by run.
     */
    private static void copyOtherProperties(ByteBuf out, ByteBuf message, int section, int end) {
        int count = message.getUnsignedShort(section + 4);
        int at = section + 6;
        int run = at; // the first property of the run not yet copied
        for (int i = 0; i < count; i++) {
            int nameLength = message.getInt(at);
            int next = PropertySection.next(message, at + 4 + nameLength, end);
            if (isHeaderName(message, at + 4, nameLength)) {
                out.writeBytes(message, run, at - run);
                run = next;
            }
            at = next;
        }
        out.writeBytes(message, run, end - run);
    }

    private static boolean isHeaderName(ByteBuf message, int at, int length) {
        for (byte[] name : HEADER_NAMES_UTF8) {
            if (name.length == length && PropertySection.sameBytes(message, at, name)) {
                return true;
            }
        }
        return false;
    }

    /** A property's name and its string tag, its value to follow. */
    private static void writeName(ByteBuf out, byte[] nameUtf8) {
        out.writeInt(nameUtf8.length);
        out.writeBytes(nameUtf8);
        out.writeByte(MessageEncoding.PROPERTY_STRING);
    }

    /** The index after the length-prefixed string or bytes (-1: null) at {@code at} of a checked message. */
    private static int skipLengthPrefixed(ByteBuf message, int at) {
        return at + 4 + Math.max(0, message.getInt(at));
    }

    /** The index after the destination (a kind byte, 0 for none, then its name) at {@code at} of a checked message. */
    private static int skipDestination(ByteBuf message, int at) {
        return message.getByte(at) == 0 ? at + 1 : skipLengthPrefixed(message, at + 1);
    }

    /** The queue manager a qualified name names ({@code QM2} of {@code QM2/ORDERS}); null for a plain name. */
    public static String queueManagerOf(String name) {
        int at = name.indexOf(QUALIFIER);
        return at < 0 ? null : name.substring(0, at);
    }

    /** The queue a qualified name names ({@code ORDERS} of {@code QM2/ORDERS}); the name itself for a plain one. */
    public static String queueOf(String name) {
        return name.substring(name.indexOf(QUALIFIER) + 1);
    }
}
