package org.wharfmq.jms;

import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;

import javax.jms.IllegalStateException;
import javax.jms.InvalidDestinationException;
import javax.jms.InvalidSelectorException;
import javax.jms.JMSException;
import javax.jms.JMSSecurityException;
import javax.jms.TransactionRolledBackException;

/**
 * Turns the server's ERROR frames into the JMS exceptions the protocol table names. The error code's name
 * becomes {@link JMSException#getErrorCode()} and the server's message (which names the queue, the limit and
 * so on) the exception text.
 */
final class JmsErrors {
    private JmsErrors() {
    }

    /** The exception for an ERROR frame. */
    static JMSException toException(Frame.Error error) {
        return toException(error.code(), error.message());
    }

    /** The exception for an error code and the server's message. */
    static JMSException toException(ErrorCode code, String serverMessage) {
        String text = serverMessage == null || serverMessage.isEmpty() ? code.name() : serverMessage;
        String errorCode = code.name();
        return switch (code) {
            case AUTHENTICATION_FAILED -> new JMSSecurityException(text, errorCode);
            case UNKNOWN_DESTINATION -> new InvalidDestinationException(text, errorCode);
            case INVALID_SELECTOR -> new InvalidSelectorException(text, errorCode);
            case TRANSACTION_ROLLED_BACK -> new TransactionRolledBackException(text, errorCode);
            case ILLEGAL_STATE -> new IllegalStateException(text, errorCode);
            default -> new JMSException(text, errorCode);
        };
    }

    /** A JMSException caused by {@code cause}, with the cause both linked (JMS 1.1 style) and chained. */
    static JMSException wrap(String message, Throwable cause) {
        JMSException e = new JMSException(message);
        if (cause instanceof Exception ex) {
            e.setLinkedException(ex);
        }
        e.initCause(cause);
        return e;
    }

    /** The exception for a feature a later issue brings. */
    static JMSException notSupported(String feature) {
        return new JMSException(feature + " is not supported yet by Wharf");
    }

    /** The unchecked form of {@link #notSupported}, for JMS 2.0 simplified-API entry points. */
    static javax.jms.JMSRuntimeException notSupportedRuntime(String feature) {
        return new javax.jms.JMSRuntimeException(feature + " is not supported yet by Wharf");
    }
}
