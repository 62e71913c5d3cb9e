package org.wharfmq.jms;

import javax.jms.JMSConsumer;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageListener;

/**
 * The simplified API's consumer: a {@link WharfMessageConsumer} whose exceptions are unchecked. The
 * {@code receiveBody} methods return the body of the next message; one whose body cannot be returned as the
 * requested type (a plain Message, a StreamMessage, an unassignable body) throws MessageFormatRuntimeException and,
 * in AUTO_ACKNOWLEDGE or DUPS_OK_ACKNOWLEDGE mode, is delivered again.
 */
final class WharfJMSConsumer implements JMSConsumer {
    private final WharfMessageConsumer consumer;

    WharfJMSConsumer(WharfMessageConsumer consumer) {
        this.consumer = consumer;
    }

    @Override
    public String getMessageSelector() {
        try {
            return consumer.getMessageSelector();
        } catch (JMSException e) {
            throw JmsErrors.toRuntime(e);
        }
    }

    @Override
    public MessageListener getMessageListener() {
        try {
            return consumer.getMessageListener();
        } catch (JMSException e) {
            throw JmsErrors.toRuntime(e);
        }
    }

    @Override
    public void setMessageListener(MessageListener listener) {
        try {
            consumer.setMessageListener(listener);
        } catch (JMSException e) {
            throw JmsErrors.toRuntime(e);
        }
    }

    @Override
    public Message receive() {
        try {
            return consumer.receive();
        } catch (JMSException e) {
            throw JmsErrors.toRuntime(e);
        }
    }

    @Override
    public Message receive(long timeout) {
        try {
            return consumer.receive(timeout);
        } catch (JMSException e) {
            throw JmsErrors.toRuntime(e);
        }
    }

    @Override
    public Message receiveNoWait() {
        try {
            return consumer.receiveNoWait();
        } catch (JMSException e) {
            throw JmsErrors.toRuntime(e);
        }
    }

    /** Closes the consumer; allowed from its own MessageListener (JMS 2.0). */
    @Override
    public void close() {
        try {
            consumer.close();
        } catch (JMSException e) {
            throw JmsErrors.toRuntime(e);
        }
    }

    @Override
    public <T> T receiveBody(Class<T> c) {
        return body(c, -1);
    }

    /** Waits up to {@code timeout} ms; 0 waits without limit, as for {@code receive(long)}. */
    @Override
    public <T> T receiveBody(Class<T> c, long timeout) {
        return body(c, timeout <= 0 ? -1 : timeout);
    }

    @Override
    public <T> T receiveBodyNoWait(Class<T> c) {
        return body(c, 0);
    }

    private <T> T body(Class<T> c, long timeout) {
        try {
            ClientConsumer.BodyReceipt<T> receipt = consumer.receiveBody(c, timeout);
            return receipt == null ? null : receipt.body();
        } catch (JMSException e) {
            throw JmsErrors.toRuntime(e);
        }
    }

    @Override
    public String toString() {
        return "WharfJMSConsumer[" + consumer + "]";
    }
}
