package org.wharfmq.protocol.message;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;

/**
 * The transmission header of a message waiting on a transmission queue for a channel to another queue manager (IBM
 * MQ's MQXQH): where it is going, kept as message properties, so that the message on the transmission queue is an
 * ordinary message in this encoding and a channel sends its stored bytes as they are.
 *
 * <p>{@link #wrap} writes the header section and the property section anew (with the properties below, and the
 * reply-to queue qualified by its queue manager) and keeps the body section as a slice of the original buffer:
 * the body is neither copied nor re-encoded. JMSDestination stays the destination the producer named.
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

    private TransmissionHeader() {
    }

    /**
     * The message {@code message} (all its readable bytes, a checked message) with its transmission header: the
     * properties above added (replacing any of the same name) and a reply-to queue without a queue manager
     * qualified as {@code sourceQueueManager/NAME}. The body is a retained slice of {@code message}; the caller
     * keeps its own reference to {@code message}.
     */
    public static ByteBuf wrap(ByteBufAllocator alloc, ByteBuf message, String queueManager, String queue,
                               String sourceQueueManager) {
        ByteBuf in = message.duplicate();
        int start = in.readerIndex();
        WireMessage headers = WireMessage.decodeHeaders(in);
        int bodySection = in.readerIndex();
        headers.properties.put(QUEUE_MANAGER, queueManager);
        headers.properties.put(QUEUE, queue);
        headers.properties.put(SOURCE_QUEUE_MANAGER, sourceQueueManager);
        WireDestination replyTo = headers.replyTo;
        if (replyTo != null) {
            String replyQueueManager = queueManagerOf(replyTo.name());
            if (replyQueueManager == null) {
                replyQueueManager = sourceQueueManager;
                headers.replyTo = new WireDestination(replyTo.kind(), sourceQueueManager + QUALIFIER + replyTo.name());
            }
            headers.properties.put(REPLY_TO_QUEUE_MANAGER, replyQueueManager);
        }
        ByteBuf head = alloc.buffer(bodySection - start + 128);
        try {
            headers.encodeHeaders(head);
        } catch (RuntimeException e) {
            head.release();
            throw e;
        }
        CompositeByteBuf wrapped = alloc.compositeBuffer(2);
        wrapped.addComponent(true, head);
        wrapped.addComponent(true, message.retainedSlice(bodySection, message.writerIndex() - bodySection));
        return wrapped;
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
