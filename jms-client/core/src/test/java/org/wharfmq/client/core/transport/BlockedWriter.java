package org.wharfmq.client.core.transport;

import io.netty.buffer.Unpooled;
import org.wharfmq.protocol.frame.Frame;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** A writer blocked on a full socket, for tests whose peer reads nothing: a 32 MiB message fills both socket buffers. */
final class BlockedWriter {

    /** The size of the message that cannot leave. */
    static final int BYTES = 32 << 20;

    private BlockedWriter() {
    }

    /** Starts a thread writing the message on {@code link} and returns it once its write has begun. */
    static Thread start(SocketLink link) {
        Thread writer = new Thread(() -> link.write(new Frame.Send(0, 1, 2, Unpooled.wrappedBuffer(new byte[BYTES]))));
        writer.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!link.isWriting()) {
            assertTrue(System.nanoTime() < deadline, "the writer never started");
            Thread.onSpinWait();
        }
        return writer;
    }
}
