package org.wharfmq.jms;

import org.junit.jupiter.api.Test;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;

import javax.jms.IllegalStateException;
import javax.jms.InvalidDestinationException;
import javax.jms.InvalidSelectorException;
import javax.jms.JMSException;
import javax.jms.JMSSecurityException;
import javax.jms.TransactionRolledBackException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

class JmsErrorsTest {
    @Test
    void mapsEveryCodeToTheTableException() {
        assertType(JMSSecurityException.class, ErrorCode.AUTHENTICATION_FAILED);
        assertType(InvalidDestinationException.class, ErrorCode.UNKNOWN_DESTINATION);
        assertType(InvalidSelectorException.class, ErrorCode.INVALID_SELECTOR);
        assertType(TransactionRolledBackException.class, ErrorCode.TRANSACTION_ROLLED_BACK);
        assertType(IllegalStateException.class, ErrorCode.ILLEGAL_STATE);
        assertType(javax.jms.MessageFormatException.class, ErrorCode.MALFORMED_MESSAGE);
        // JMS: "a call to createConnection fails due to a lack of JMS provider resources"
        assertType(javax.jms.ResourceAllocationException.class, ErrorCode.TOO_MANY_CONNECTIONS);
        for (ErrorCode plain : new ErrorCode[]{ErrorCode.PROTOCOL_ERROR, ErrorCode.UNSUPPORTED_VERSION, ErrorCode.QUEUE_FULL,
                ErrorCode.MESSAGE_TOO_LARGE, ErrorCode.TOO_MANY_QUEUES, ErrorCode.SERVER_CLOSING, ErrorCode.INTERNAL_ERROR}) {
            assertType(JMSException.class, plain);
        }
    }

    private static void assertType(Class<? extends JMSException> type, ErrorCode code) {
        JMSException e = JmsErrors.toException(new Frame.Error(7, code, "server says " + code, 1, 2));
        assertSame(type, e.getClass(), code.name());
        assertEquals(code.name(), e.getErrorCode());
        assertEquals("server says " + code, e.getMessage());
    }

    @Test
    void queueFullKeepsServerTextAndCode() {
        JMSException e = JmsErrors.toException(ErrorCode.QUEUE_FULL, "Queue ORDERS is full: 5000000 messages (maxQueueDepth)");
        assertEquals("QUEUE_FULL", e.getErrorCode());
        assertEquals("Queue ORDERS is full: 5000000 messages (maxQueueDepth)", e.getMessage());
    }

    @Test
    void missingServerTextFallsBackToCodeName() {
        assertEquals("INTERNAL_ERROR", JmsErrors.toException(ErrorCode.INTERNAL_ERROR, null).getMessage());
    }

    @Test
    void simplifiedApiGetsTheMatchingRuntimeException() {
        java.util.Map<JMSException, Class<? extends javax.jms.JMSRuntimeException>> cases = java.util.Map.of(
                new IllegalStateException("a", "C"), javax.jms.IllegalStateRuntimeException.class,
                new InvalidDestinationException("a", "C"), javax.jms.InvalidDestinationRuntimeException.class,
                new InvalidSelectorException("a", "C"), javax.jms.InvalidSelectorRuntimeException.class,
                new JMSSecurityException("a", "C"), javax.jms.JMSSecurityRuntimeException.class,
                new TransactionRolledBackException("a", "C"), javax.jms.TransactionRolledBackRuntimeException.class,
                new javax.jms.MessageFormatException("a", "C"), javax.jms.MessageFormatRuntimeException.class,
                new javax.jms.MessageNotWriteableException("a", "C"), javax.jms.MessageNotWriteableRuntimeException.class,
                new javax.jms.InvalidClientIDException("a", "C"), javax.jms.InvalidClientIDRuntimeException.class,
                new javax.jms.MessageEOFException("a", "C"), javax.jms.JMSRuntimeException.class);
        cases.forEach((checked, expected) -> {
            javax.jms.JMSRuntimeException r = JmsErrors.toRuntime(checked);
            assertSame(expected, r.getClass(), checked.getClass().getSimpleName());
            assertEquals("a", r.getMessage());
            assertEquals("C", r.getErrorCode());
            assertSame(checked, r.getCause());
        });
    }
}
