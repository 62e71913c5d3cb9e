package org.wharfmq.client.core.transport;

import org.wharfmq.protocol.frame.Frame;

/**
 * A listener for a link whose frames a test does not read (its peer is a raw socket): it ignores what comes, and runs
 * {@code onClosed} when the link closes.
 */
final class IgnoredFrames implements FrameListener {

    private final Runnable onClosed;

    /** A listener that ignores the close too. */
    IgnoredFrames() {
        this(() -> {
        });
    }

    /** A listener that runs {@code onClosed} when the link closes. */
    IgnoredFrames(Runnable onClosed) {
        this.onClosed = onClosed;
    }

    @Override
    public void onFrame(Frame frame) {
    }

    @Override
    public void onSilence() {
    }

    @Override
    public void onFailure(Throwable cause) {
    }

    @Override
    public void onClosed() {
        onClosed.run();
    }
}
