package org.wharfmq.jms.message;

import javax.jms.JMSException;

/** What {@link javax.jms.Message#acknowledge()} calls: the receiving session's client acknowledgement. */
@FunctionalInterface
public interface MessageAcknowledger {
    /** Acknowledges every message the session has consumed so far. */
    void acknowledge() throws JMSException;
}
