package org.wharfmq.flow;

import org.junit.jupiter.api.Test;

import java.math.BigDecimal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Message paths: each form names the value it says, absent values are null, bad paths are refused naming the forms. */
class MessagePathTest {

    private static MessageAssembly assembly(Domain domain, String body) {
        FlowMessage message = FlowMessage.ofText(domain, body);
        message.setUserProperty("orderId", 42);
        message.setCorrelationId("corr-1");
        message.properties().set(FlowMessage.TOPIC, "orders/new");
        MessageAssembly assembly = MessageAssembly.of(message, Folder.empty("Environment"));
        assembly.localEnvironment().set("region", "eu");
        assembly.environment().set("batch", 7L);
        return assembly;
    }

    @Test
    void foldersGiveTheirFieldsAsTheyAre() {
        MessageAssembly a = assembly(Domain.BLOB, "hello");
        assertEquals(42, MessagePath.compile("UserProperties/orderId").value(a));
        assertEquals("corr-1", MessagePath.compile("Headers/JMSCorrelationID").value(a));
        assertEquals("orders/new", MessagePath.compile("Properties/Topic").value(a));
        assertEquals("eu", MessagePath.compile("LocalEnvironment/region").value(a));
        assertEquals(7L, MessagePath.compile("Environment/batch").value(a));
        assertEquals("hello", MessagePath.compile("Body").value(a));
        assertNull(MessagePath.compile("UserProperties/missing").value(a));
    }

    @Test
    void jsonPathsGiveTypedValues() {
        MessageAssembly a = assembly(Domain.JSON, """
                {"order": {"id": 9000000000, "total": 12.50, "rush": true, "customer": "O'Brien",
                           "items": [{"sku": "A-1"}], "note": null}}""");
        assertEquals(9_000_000_000L, MessagePath.compile("JSON/order/id").value(a));
        assertEquals(new BigDecimal("12.5"), MessagePath.compile("JSON/order/total").value(a));
        assertEquals(true, MessagePath.compile("JSON/order/rush").value(a));
        assertEquals("O'Brien", MessagePath.compile("JSON/order/customer").value(a));
        assertEquals("A-1", MessagePath.compile("JSON/order/items/0/sku").value(a));
        assertEquals("[{\"sku\":\"A-1\"}]", MessagePath.compile("JSON/order/items").value(a));
        assertNull(MessagePath.compile("JSON/order/note").value(a));
        assertNull(MessagePath.compile("JSON/order/absent").value(a));
    }

    @Test
    void recordsPathsNameAFieldOfARecord() {
        MessageAssembly a = MessageAssembly.of(FlowMessage.ofText(Domain.BLOB, "id,name\n1,Ann\n2,Bob\n")
                .parseAs(org.wharfmq.flow.records.CsvFormat.withHeader()), Folder.empty("Environment"));
        assertEquals("Bob", MessagePath.compile("Records/1/name").value(a));
        assertEquals("1", MessagePath.compile("Records/0/id").value(a));
        assertNull(MessagePath.compile("Records/2/name").value(a));
    }

    @Test
    void xmlPathsAreXPath() {
        MessageAssembly a = assembly(Domain.XML, "<Order><Id>17</Id><Item>a</Item><Item>b</Item></Order>");
        assertEquals("17", MessagePath.compile("XML/Order/Id").value(a));
        assertEquals("2", MessagePath.compile("XML/count(/Order/Item)").value(a).toString().replace(".0", ""));
        assertNull(MessagePath.compile("XML/Order/Missing").value(a));
    }

    @Test
    void aPathNamingNoPartOfTheMessageIsRefusedListingTheForms() {
        for (String bad : new String[] {"Usr/orderId", "UserProperties", "UserProperties/a/b", "XML", ""}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> MessagePath.compile(bad), bad);
            assertTrue(e.getMessage().startsWith("Invalid message path '" + bad + "'"), e.getMessage());
            assertTrue(e.getMessage().contains("UserProperties/NAME"), e.getMessage());
        }
    }

    /** A procedure's OUT values go to targets: the LocalEnvironment, the Environment, a user property (as JMS types). */
    @Test
    void targetsTakeValuesAndRefuseThePartsOfTheMessageTheyCannotBe() {
        MessageAssembly a = assembly(Domain.BLOB, "hello");
        MessagePath.target("LocalEnvironment/total").set(a, new BigDecimal("37.50"));
        MessagePath.target("Environment/orderId").set(a, 7);
        MessagePath.target("UserProperties/total").set(a, new BigDecimal("37.50"));
        MessagePath.target("UserProperties/orderId").set(a, null);
        assertEquals(new BigDecimal("37.50"), a.localEnvironment().get("total"));
        assertEquals(7, a.environment().get("orderId"));
        assertEquals("37.50", a.message().userProperty("total"), "a JMS property: a BigDecimal as its text");
        assertNull(a.message().userProperty("orderId"), "an SQL NULL removes the field");
        for (String bad : new String[] {"Body", "JSON/total", "XML/Order/Total", "Headers/JMSType", "Properties/Topic"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> MessagePath.target(bad), bad);
            assertTrue(e.getMessage().startsWith("Invalid target path '" + bad + "'"), e.getMessage());
        }
    }
}
