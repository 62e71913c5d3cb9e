package org.wharfmq.protocol.message;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import org.wharfmq.protocol.TemporaryNames;
import org.wharfmq.protocol.frame.WireStrings;

import java.nio.charset.StandardCharsets;

/**
 * The transmission header of a message waiting on a transmission queue for a channel to another queue manager (IBM
 * MQ's MQXQH): where it is going, kept as message properties, so that the message on the transmission queue is an
 * ordinary message in this encoding and a channel sends its stored bytes as they are.
 *
 * <p>{@link #wrap} writes the header section and the property section anew (with the properties below, the reply-to
 * queue qualified by its queue manager, and JMSDestination the queue on the queue manager it is for); the body section
 * is never re-encoded: a short one is copied after them into the same buffer, a longer one kept as a slice of the
 * original buffer.
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
    /** Room in the header section for what the header adds besides the four names and their values. */
    private static final int HEADER_ROOM = 128;

    private TransmissionHeader() {
    }

    /**
     * The message {@code message} (all its readable bytes, a message {@link MessageHeaders#read} has checked) with its
     * transmission header: the properties above added (replacing any of the same name, which a message passing
     * through this queue manager on its way to a third carries), a reply-to queue without a queue manager qualified
     * as {@code sourceQueueManager/NAME}, and JMSDestination the queue {@code queue} ({@link #destinationOf}), as the
     * receiving queue manager puts it, so that it need not write the message again. A body of at most
     * {@code copyLimit} bytes is copied into the one buffer the header is written to: for a short message a copy of
     * its body costs less than a composite of two buffers, its components and a slice, made, read and released on
     * every put (most of what a message's way onto a channel cost: docs/performance-log.md, "Session 31: RR-5 channel
     * hop"); a longer body is a retained slice of {@code message}, not copied. Either way the caller keeps its own
     * reference to {@code message}.
     *
     * <p>It runs on every put to a remote queue, so it decodes nothing: the fields before JMSDestination, the type and
     * the other properties are copied as bytes, the new ones written after them.
     *
     * @throws IllegalArgumentException when the message has too many properties to take the header's
     */
    public static ByteBuf wrap(ByteBufAllocator alloc, ByteBuf message, String queueManager, String queue,
                               String sourceQueueManager, int copyLimit) {
        int start = message.readerIndex();
        // the correlation id, a string or raw bytes, is length-prefixed either way
        int destinationAt = skipLengthPrefixed(message,
                skipLengthPrefixed(message, start + MessageEncoding.MESSAGE_ID_OFFSET));
        int replyToAt = skipDestination(message, destinationAt);
        int typeAt = skipDestination(message, replyToAt);
        int propertiesAt = skipLengthPrefixed(message, typeAt);
        int bodyAt = propertiesAt + 4 + message.getInt(propertiesAt);
        int bodyLength = message.writerIndex() - bodyAt;
        boolean copied = bodyLength <= copyLimit;

        // room by the names' most UTF-8 bytes, not counted: a look at each name's characters fewer per message
        ByteBuf head = alloc.buffer(bodyAt - start + HEADER_ROOM + ByteBufUtil.utf8MaxBytes(queueManager)
                + 2 * ByteBufUtil.utf8MaxBytes(queue) + 3 * ByteBufUtil.utf8MaxBytes(sourceQueueManager)
                + (copied ? bodyLength : 0));
        try {
            head.writeBytes(message, start, destinationAt - start);
            WireDestination.write(head, destinationOf(queue));
            byte replyToKind = message.getByte(replyToAt);
            int replyToNameAt = replyToAt + 5;
            int replyToQualifier = -1; // where the reply-to's name has its qualifier; -1: none (or no reply-to)
            head.writeByte(replyToKind);
            if (replyToKind != 0) {
                int nameLength = message.getInt(replyToAt + 1);
                replyToQualifier = message.indexOf(replyToNameAt, replyToNameAt + nameLength, (byte) QUALIFIER);
                if (replyToQualifier >= 0) {
                    head.writeBytes(message, replyToAt + 1, 4 + nameLength);
                } else {
                    int lengthAt = head.writerIndex();
                    head.writeInt(0);
                    int written = ByteBufUtil.writeUtf8(head, sourceQueueManager);
                    head.writeByte(QUALIFIER);
                    head.writeBytes(message, replyToNameAt, nameLength);
                    head.setInt(lengthAt, written + 1 + nameLength);
                }
            }
            head.writeBytes(message, typeAt, propertiesAt - typeAt);
            int section = head.writerIndex();
            head.writeInt(0);
            head.writeShort(0);
            int count = copyOtherProperties(head, message, propertiesAt, bodyAt) + 3;
            writeName(head, QUEUE_MANAGER_UTF8);
            WireStrings.write(head, queueManager);
            writeName(head, QUEUE_UTF8);
            WireStrings.write(head, queue);
            writeName(head, SOURCE_QUEUE_MANAGER_UTF8);
            WireStrings.write(head, sourceQueueManager);
            if (replyToKind != 0) {
                count++;
                writeName(head, REPLY_TO_QUEUE_MANAGER_UTF8);
                if (replyToQualifier >= 0) { // the queue manager it names: its name's bytes before the qualifier
                    head.writeInt(replyToQualifier - replyToNameAt);
                    head.writeBytes(message, replyToNameAt, replyToQualifier - replyToNameAt);
                } else {
                    WireStrings.write(head, sourceQueueManager);
                }
            }
            if (count > PropertySection.MAX_PROPERTIES) {
                throw new IllegalArgumentException(count + " properties with the transmission header's: a message"
                        + " carries at most " + PropertySection.MAX_PROPERTIES);
            }
            head.setInt(section, head.writerIndex() - section - 4);
            head.setShort(section + 4, count);
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
     * The headers of {@code wrapped}, which {@link #wrap} made for {@code queue} of a message whose headers are
     * {@code original}: what {@link MessageHeaders#read} reads of it, without checking and decoding it again.
     */
    public static MessageHeaders headersOf(ByteBuf wrapped, MessageHeaders original, String queue) {
        int start = wrapped.readerIndex();
        int propertiesAt = skipLengthPrefixed(wrapped, skipDestination(wrapped, skipDestination(wrapped,
                skipLengthPrefixed(wrapped, skipLengthPrefixed(wrapped, start + MessageEncoding.MESSAGE_ID_OFFSET)))));
        return original.readdressed(destinationOf(queue), propertiesAt - start);
    }

    /**
     * The JMSDestination of a message for queue {@code queue} on the queue manager it goes to: a temporary queue's
     * name ({@link TemporaryNames#PREFIX}) names a temporary queue, any other a queue. The one rule of both ends.
     */
    public static WireDestination destinationOf(String queue) {
        return queue.startsWith(TemporaryNames.PREFIX)
                ? new WireDestination(WireDestination.Kind.TEMPORARY_QUEUE, queue) : WireDestination.queue(queue);
    }

    /**
     * Copies the properties of the (checked) section at {@code section}, which ends at {@code end}, but those of a
     * transmission header, run by run: the number copied.
     */
    private static int copyOtherProperties(ByteBuf out, ByteBuf message, int section, int end) {
        int count = message.getUnsignedShort(section + 4);
        int kept = 0;
        int at = section + 6;
        int run = at; // the first property of the run not yet copied
        for (int i = 0; i < count; i++) {
            int nameLength = message.getInt(at);
            int next = PropertySection.next(message, at + 4 + nameLength, end);
            if (isHeaderName(message, at + 4, nameLength)) {
                out.writeBytes(message, run, at - run);
                run = next;
            } else {
                kept++;
            }
            at = next;
        }
        out.writeBytes(message, run, end - run);
        return kept;
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
