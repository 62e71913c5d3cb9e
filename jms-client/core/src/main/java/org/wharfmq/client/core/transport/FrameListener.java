package org.wharfmq.client.core.transport;

import org.wharfmq.protocol.frame.Frame;

/**
 * What a {@link FrameLink} tells its connection. Called on the link's reading thread, one call at a time, so an
 * implementation routes and returns: it must neither block nor run application code.
 */
public interface FrameListener {

    /** A frame arrived. The listener owns it (and the message buffer of a DELIVER). */
    void onFrame(Frame frame);

    /** Nothing arrived for three heartbeat intervals; the link closes next. */
    void onSilence();

    /**
     * Reading or writing failed, or the server sent bytes that are not a frame; the link closes next. Not called
     * for the failures a local {@link FrameLink#close} causes.
     */
    void onFailure(Throwable cause);

    /** The link closed, for whatever reason; called exactly once, last. */
    void onClosed();
}
