package org.wharfmq.jms.message;

import org.junit.jupiter.api.Test;

import javax.jms.JMSException;
import javax.jms.MessageFormatException;
import javax.jms.MessageNotWriteableException;
import java.util.Collections;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PropertyValuesTest {
    @Test
    void stringConvertsToEveryType() throws JMSException {
        WharfMessage m = new WharfMessage();
        m.setStringProperty("s", "5");
        assertEquals(5, m.getIntProperty("s"));
        assertEquals(5L, m.getLongProperty("s"));
        assertEquals((short) 5, m.getShortProperty("s"));
        assertEquals((byte) 5, m.getByteProperty("s"));
        assertEquals(5.0f, m.getFloatProperty("s"));
        assertEquals(5.0, m.getDoubleProperty("s"));
        m.setStringProperty("b", "true");
        assertTrue(m.getBooleanProperty("b"));
        m.setStringProperty("x", "abc");
        assertThrows(NumberFormatException.class, () -> m.getIntProperty("x"));
    }

    @Test
    void wideningConversionsOnly() throws JMSException {
        WharfMessage m = new WharfMessage();
        m.setByteProperty("byte", (byte) 3);
        assertEquals(3, m.getIntProperty("byte"));
        assertEquals(3L, m.getLongProperty("byte"));
        assertEquals((short) 3, m.getShortProperty("byte"));
        assertEquals("3", m.getStringProperty("byte"));
        assertThrows(MessageFormatException.class, () -> m.getFloatProperty("byte"));
        assertThrows(MessageFormatException.class, () -> m.getBooleanProperty("byte"));

        m.setIntProperty("int", 7);
        assertEquals(7L, m.getLongProperty("int"));
        assertThrows(MessageFormatException.class, () -> m.getShortProperty("int"));
        assertThrows(MessageFormatException.class, () -> m.getDoubleProperty("int"));

        m.setFloatProperty("float", 1.5f);
        assertEquals(1.5, m.getDoubleProperty("float"));
        assertThrows(MessageFormatException.class, () -> m.getLongProperty("float"));

        m.setDoubleProperty("double", 2.5);
        assertThrows(MessageFormatException.class, () -> m.getFloatProperty("double"));

        m.setBooleanProperty("bool", true);
        assertEquals("true", m.getStringProperty("bool"));
        assertThrows(MessageFormatException.class, () -> m.getIntProperty("bool"));

        m.setLongProperty("long", 9L);
        assertThrows(MessageFormatException.class, () -> m.getIntProperty("long"));
    }

    @Test
    void missingPropertyBehavesLikeValueOfNull() throws JMSException {
        WharfMessage m = new WharfMessage();
        assertFalse(m.getBooleanProperty("none"));
        assertNull(m.getStringProperty("none"));
        assertNull(m.getObjectProperty("none"));
        assertThrows(NumberFormatException.class, () -> m.getIntProperty("none"));
        assertThrows(NumberFormatException.class, () -> m.getByteProperty("none"));
        assertThrows(NullPointerException.class, () -> m.getFloatProperty("none"));
        assertThrows(NullPointerException.class, () -> m.getDoubleProperty("none"));
    }

    @Test
    void objectPropertyAcceptsOnlyPrimitiveWrappersAndString() throws JMSException {
        WharfMessage m = new WharfMessage();
        m.setObjectProperty("i", 4);
        assertEquals(4, m.getObjectProperty("i"));
        assertThrows(MessageFormatException.class, () -> m.setObjectProperty("c", 'c'));
        assertThrows(MessageFormatException.class, () -> m.setObjectProperty("l", List.of()));
    }

    @Test
    void invalidNamesAreRejected() {
        WharfMessage m = new WharfMessage();
        for (String bad : new String[]{null, "", "1abc", "a-b", "a b", "JMSFoo", "JMSCorrelationID"}) {
            assertThrows(IllegalArgumentException.class, () -> m.setIntProperty(bad, 1), String.valueOf(bad));
        }
    }

    /** JMS 2.0 section 3.5.1's selector-identifier rule is not enforced on names (docs/jms-client.md says why). */
    @Test
    void selectorKeywordsAreValidNames() throws JMSException {
        WharfMessage m = new WharfMessage();
        List<String> keywords = List.of("NULL", "true", "False", "NOT", "and", "OR", "Between", "LIKE", "in", "IS", "escape");
        for (String keyword : keywords) {
            m.setStringProperty(keyword, keyword + "-value");
        }
        assertEquals(keywords, Collections.list(m.getPropertyNames()));
        assertEquals("true-value", m.getStringProperty("true"));
        assertEquals("escape-value", m.getObjectProperty("escape"));
    }

    @Test
    void validNamesIncludeJmsxAndVendorNames() throws JMSException {
        WharfMessage m = new WharfMessage();
        m.setStringProperty("JMSXGroupID", "g");
        m.setStringProperty("JMS_Wharf_x", "v");
        m.setStringProperty("_a$1", "v");
        assertEquals(List.of("JMSXGroupID", "JMS_Wharf_x", "_a$1"), Collections.list(m.getPropertyNames()));
    }

    @Test
    void receivedPropertiesAreReadOnlyUntilCleared() throws JMSException {
        WharfMessage m = new WharfMessage();
        m.setIntProperty("a", 1);
        m.markReceived();
        assertThrows(MessageNotWriteableException.class, () -> m.setIntProperty("b", 2));
        assertEquals(1, m.getIntProperty("a"));
        m.clearProperties();
        assertFalse(m.propertyExists("a"));
        m.setIntProperty("b", 2);
        assertEquals(2, m.getIntProperty("b"));
    }

    @Test
    void deliveryCountIsJmsxDeliveryCountAndRedelivered() throws JMSException {
        WharfMessage m = new WharfMessage();
        assertFalse(m.propertyExists("JMSXDeliveryCount"));
        m.setDeliveryCount(3);
        assertTrue(m.getJMSRedelivered());
        assertEquals(3, m.getIntProperty("JMSXDeliveryCount"));
        assertTrue(Collections.list(m.getPropertyNames()).contains("JMSXDeliveryCount"));
        m.setDeliveryCount(1);
        assertFalse(m.getJMSRedelivered());
    }
}
