package org.wharfmq.perf.jmh;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.wharfmq.protocol.message.BodyType;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.protocol.message.WireMessage;

/** Encoded messages for the benchmarks, shaped like the request/reply workloads' requests. */
final class Messages {

    private Messages() {
    }

    /** A non-persistent BytesMessage of {@code size} body bytes with the given correlation id, encoded. */
    static ByteBuf request(int size, String correlationId) {
        WireMessage m = new WireMessage();
        m.bodyType = BodyType.BYTES;
        m.persistent = false;
        m.timestamp = 1_700_000_000_000L;
        m.messageId = "ID:bench-connection:" + correlationId;
        m.correlationId = correlationId;
        m.destination = WireDestination.queue("REQUEST");
        m.replyTo = WireDestination.queue("REPLY");
        m.properties.put("perfSeq", 42L);
        m.properties.put("region", "EMEA");
        m.body = new byte[size];
        ByteBuf buf = Unpooled.directBuffer(size + 256);
        m.encode(buf);
        return buf;
    }
}
