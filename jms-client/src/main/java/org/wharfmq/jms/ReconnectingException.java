package org.wharfmq.jms;

import javax.jms.JMSException;

/**
 * The facade's form of the core's {@link org.wharfmq.client.core.LinkLostException}: a request's link was lost before
 * its answer came, while the connection reconnects, so what the request did on the server is not known. Thrown by
 * {@link WharfConnection}'s waits for an answer; never reaches the application: each caller says what that means for
 * its request (sent again, re-established by the reconnection, or reported in words of its own).
 */
final class ReconnectingException extends JMSException {
    private static final long serialVersionUID = 1L;

    ReconnectingException(String message) {
        super(message);
    }
}
