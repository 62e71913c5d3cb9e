package org.wharfmq.flow.runtime;

import javax.jms.JMSException;
import javax.jms.MessageConsumer;

/**
 * How a coordinated reader of its host's queue waits for a message before it begins the transaction its receive
 * belongs to ({@link XaCoordination}), so that an idle reader begins none. The flow host's waits on the Wharf
 * consumer's own buffer ({@code WharfMessageConsumer.awaitMessage}): a message there was handed to that consumer
 * alone, so no other consumer takes it between the wait and the receive.
 */
@FunctionalInterface
public interface MessageArrivals {

    /**
     * Waits up to {@code millis} (at least 1) until {@code consumer} holds a message its next receive returns without
     * waiting, taking none.
     *
     * @return whether one is there; false on timeout, or once the consumer is closed (another thread's close ends the
     * wait at once)
     * @throws JMSException when the connection is lost or the consumer was refused: the reader connects again
     */
    boolean await(MessageConsumer consumer, long millis) throws JMSException;
}
