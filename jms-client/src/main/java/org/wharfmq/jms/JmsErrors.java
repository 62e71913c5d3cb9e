package org.wharfmq.jms;

import org.wharfmq.client.core.ClientException;

import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;

import javax.jms.IllegalStateException;
import javax.jms.InvalidDestinationException;
import javax.jms.InvalidSelectorException;
import javax.jms.JMSException;
import javax.jms.JMSSecurityException;
import javax.jms.TransactionRolledBackException;
import javax.jms.IllegalStateRuntimeException;
import javax.jms.InvalidClientIDException;
import javax.jms.InvalidClientIDRuntimeException;
import javax.jms.InvalidDestinationRuntimeException;
import javax.jms.InvalidSelectorRuntimeException;
import javax.jms.JMSRuntimeException;
import javax.jms.JMSSecurityRuntimeException;
import javax.jms.MessageFormatException;
import javax.jms.MessageFormatRuntimeException;
import javax.jms.MessageNotWriteableException;
import javax.jms.MessageNotWriteableRuntimeException;
import javax.jms.ResourceAllocationException;
import javax.jms.ResourceAllocationRuntimeException;
import javax.jms.TransactionInProgressException;
import javax.jms.TransactionInProgressRuntimeException;
import javax.jms.TransactionRolledBackRuntimeException;

/**
 * Turns the server's ERROR frames into the JMS exceptions the protocol table names. The error code's name
 * becomes {@link JMSException#getErrorCode()} and the server's message (which names the queue, the limit and
 * so on) the exception text.
 */
public final class JmsErrors {
    private JmsErrors() {
    }

    /** The exception for an ERROR frame. */
    static JMSException toException(Frame.Error error) {
        return toException(error.code(), error.message());
    }

    /**
     * The exception for an error code and the server's message (also a refusal of the queue manager to its own code
     * working for a JMS application inside it: a flow's input taken in-process).
     */
    public static JMSException toException(ErrorCode code, String serverMessage) {
        String text = serverMessage == null || serverMessage.isEmpty() ? code.name() : serverMessage;
        String errorCode = code.name();
        return switch (code) {
            case AUTHENTICATION_FAILED, NOT_AUTHORISED -> new JMSSecurityException(text, errorCode);
            case UNKNOWN_DESTINATION -> new InvalidDestinationException(text, errorCode);
            case INVALID_SELECTOR -> new InvalidSelectorException(text, errorCode);
            case TRANSACTION_ROLLED_BACK -> new TransactionRolledBackException(text, errorCode);
            case ILLEGAL_STATE -> new IllegalStateException(text, errorCode);
            case INVALID_CLIENT_ID -> new InvalidClientIDException(text, errorCode);
            case MALFORMED_MESSAGE -> new MessageFormatException(text, errorCode);
            // JMS names this exception for a connection the provider lacks the resources to create
            case TOO_MANY_CONNECTIONS -> new ResourceAllocationException(text, errorCode);
            default -> new JMSException(text, errorCode);
        };
    }

    /**
     * The exception for a failure of the core client: a refusal with a protocol error code as {@link #toException(ErrorCode,
     * String)} makes it, a failure of the client's own (no code) a JMSException; its cause (the I/O failure) is kept,
     * linked and chained.
     */
    static JMSException toException(ClientException failure) {
        JMSException e = failure.code() == null ? new JMSException(failure.getMessage())
                : toException(failure.code(), failure.getMessage());
        Throwable cause = failure.getCause();
        if (cause instanceof Exception ex) {
            e.setLinkedException(ex);
        }
        if (cause != null) {
            e.initCause(cause);
        }
        return e;
    }

    /**
     * A JMSException the facade hands the core as a failure (a message its encoder cannot encode), with the protocol's
     * error code it names, if any; {@link WharfConnection#toJms} gives it back as it is.
     */
    static ClientException toCore(JMSException e) {
        ErrorCode code = null;
        for (ErrorCode c : ErrorCode.values()) {
            if (c.name().equals(e.getErrorCode())) {
                code = c;
            }
        }
        return new ClientException(code, e.getMessage(), e);
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

    /**
     * The JMS 2.0 simplified API's unchecked form of a JMSException: the matching {@code ...RuntimeException}
     * where the API defines one, else JMSRuntimeException; message, error code and cause are kept.
     */
    static JMSRuntimeException toRuntime(JMSException e) {
        String text = e.getMessage();
        String code = e.getErrorCode();
        JMSRuntimeException r;
        if (e instanceof javax.jms.IllegalStateException) {
            r = new IllegalStateRuntimeException(text, code, e);
        } else if (e instanceof InvalidClientIDException) {
            r = new InvalidClientIDRuntimeException(text, code, e);
        } else if (e instanceof InvalidDestinationException) {
            r = new InvalidDestinationRuntimeException(text, code, e);
        } else if (e instanceof InvalidSelectorException) {
            r = new InvalidSelectorRuntimeException(text, code, e);
        } else if (e instanceof JMSSecurityException) {
            r = new JMSSecurityRuntimeException(text, code, e);
        } else if (e instanceof MessageFormatException) {
            r = new MessageFormatRuntimeException(text, code, e);
        } else if (e instanceof MessageNotWriteableException) {
            r = new MessageNotWriteableRuntimeException(text, code, e);
        } else if (e instanceof ResourceAllocationException) {
            r = new ResourceAllocationRuntimeException(text, code, e);
        } else if (e instanceof TransactionInProgressException) {
            r = new TransactionInProgressRuntimeException(text, code, e);
        } else if (e instanceof TransactionRolledBackException) {
            r = new TransactionRolledBackRuntimeException(text, code, e);
        } else {
            r = new JMSRuntimeException(text, code, e);
        }
        return r;
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
