package org.wharfmq.client.core.transport;

import io.netty.buffer.ByteBufAllocator;
import org.wharfmq.protocol.frame.Frame;

/**
 * A link for tests that have no socket: always open, no heartbeat, nothing to flush or close; {@link #writeSoon}
 * writes at once. A test says only what its link does with a written frame.
 */
public abstract class TestLink implements FrameLink {
    @Override
    public void writeSoon(Frame frame) {
        write(frame);
    }

    @Override
    public void flush() {
    }

    @Override
    public ByteBufAllocator alloc() {
        return ByteBufAllocator.DEFAULT;
    }

    @Override
    public void startHeartbeat(int millis) {
    }

    @Override
    public void frameLimit(int maxFrameLength) {
    }

    @Override
    public boolean isOpen() {
        return true;
    }

    @Override
    public void close(long waitMillis) {
    }
}
