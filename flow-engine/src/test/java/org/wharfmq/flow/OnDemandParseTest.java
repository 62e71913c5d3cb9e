package org.wharfmq.flow;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** ParseTiming.ON_DEMAND: simple conditions read the body only as far as their answer, and answer as XPath does. */
class OnDemandParseTest {

    private static final Map<String, String> NS = Map.of("s", "urn:sale");

    private static FlowMessage onDemand(String body) {
        return FlowMessage.ofBytes(Domain.XML, body.getBytes(StandardCharsets.UTF_8)).parseOnDemand();
    }

    private static FlowMessage complete(String body) {
        return FlowMessage.ofBytes(Domain.XML, body.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void onlySimplePathsAndStringEqualityHaveAnOnDemandForm() {
        assertNotNull(PathScan.of("/Parent/First = '1'", Map.of()));
        assertNotNull(PathScan.of(" / Parent / First=\"1\" ", Map.of()));
        assertNotNull(PathScan.of("/Parent/First", Map.of()));
        assertNotNull(PathScan.of("/s:Sale/s:Id = 'x'", NS));
        assertNull(PathScan.of("//First", Map.of()), "a descendant search reads everything anyway");
        assertNull(PathScan.of("/Parent/First = 1", Map.of()), "a numeric comparison is XPath's to make");
        assertNull(PathScan.of("/Parent/First[2]", Map.of()));
        assertNull(PathScan.of("/Parent/First = 'it''s'", Map.of()), "an escaped quote is left to Saxon");
        assertNull(PathScan.of("/p:Sale", Map.of()), "an undeclared prefix");
    }

    @Test
    void aConditionOnAnEarlyElementReadsNoFurtherAndBuildsNoTree() {
        // the tail is not well-formed: a complete parse fails, the on-demand answer never reads that far
        String body = "<Parent><First>1</First><SaleList><Invoice>";
        XPathQuery first = XPathQuery.compile("/Parent/First = '1'");
        FlowMessage message = onDemand(body);
        assertTrue(first.test(message));
        assertEquals(0, message.parseCount(), "no tree was built");
        assertFalse(message.isXmlParsed());
        assertThrows(XmlParseException.class, () -> first.test(complete(body)));
        XmlParseException e = assertThrows(XmlParseException.class,
                () -> XPathQuery.compile("/Parent/Last").test(onDemand(body)), "the answer needs the whole body");
        assertTrue(e.getMessage().contains("line 1"), e.getMessage());
    }

    @Test
    void answersAreXPathsOnEveryKindOfBody() {
        List<String> bodies = List.of(
                "<Parent><First>1</First><Last>Test</Last></Parent>",
                "<Parent><First>2</First><First>1</First></Parent>",                    // a later element matches
                "<Parent><First>1<b>x</b></First></Parent>",                            // the string value has it all
                "<Parent><First>1x</First><Other><First>1</First></Other></Parent>",   // a deeper First is not /Parent/First
                "<Other><First>1</First></Other>",                                      // another root
                "<Parent><First><![CDATA[1]]></First><Last>T&amp;C</Last></Parent>",
                "<Parent><First/><Last>Test</Last></Parent>",
                "<s:Sale xmlns:s='urn:sale'><s:Id>x</s:Id><Id>y</Id></s:Sale>",
                "<Sale xmlns='urn:sale'><Id>y</Id></Sale>",
                "<?xml version='1.0' encoding='ISO-8859-1'?><Parent><First>\u00e9</First></Parent>");
        List<String> conditions = List.of("/Parent/First = '1'", "/Parent/First = '1x'", "/Parent/First",
                "/Parent/Last = 'T&C'", "/Parent/Missing", "/Parent/First = ''", "/s:Sale/s:Id = 'x'",
                "/s:Sale/Id = 'y'", "/s:Sale/s:Id = 'y'", "/Parent/First = '\u00e9'");
        for (String body : bodies) {
            for (String condition : conditions) {
                XPathQuery query = XPathQuery.compile(condition, NS);
                byte[] bytes = body.startsWith("<?xml version='1.0' encoding='ISO-8859-1'")
                        ? body.getBytes(StandardCharsets.ISO_8859_1) : body.getBytes(StandardCharsets.UTF_8);
                boolean expected = query.test(FlowMessage.ofBytes(Domain.XML, bytes));
                FlowMessage message = FlowMessage.ofBytes(Domain.XML, bytes).parseOnDemand();
                assertEquals(expected, query.test(message), condition + " on " + body);
                assertEquals(0, message.parseCount(), condition + " on " + body + " built a tree");
            }
        }
    }

    @Test
    void aTextBodyIsScannedAsText() {
        FlowMessage message = FlowMessage.ofText(Domain.XML, "<Parent><First>\u20ac</First><Rest>").parseOnDemand();
        assertTrue(XPathQuery.compile("/Parent/First = '\u20ac'").test(message));
    }

    @Test
    void whatPrecedesTheAnswerIsParsedAsStrictlyAsEver() {
        XPathQuery first = XPathQuery.compile("/Parent/First = '1'");
        XmlParseException doctype = assertThrows(XmlParseException.class, () -> first.test(onDemand(
                "<!DOCTYPE Parent [<!ENTITY x SYSTEM 'file:///etc/passwd'>]><Parent><First>&x;</First></Parent>")));
        assertTrue(doctype.getMessage().contains("DOCTYPE"), doctype.getMessage());
        XmlParseException broken = assertThrows(XmlParseException.class,
                () -> first.test(onDemand("<Parent>\n<Firs>1</First></Parent>")));
        assertTrue(broken.getMessage().contains("line 2"), broken.getMessage());
    }

    @Test
    void aBuiltTreeOrAChangedBodyIsReadInstead() {
        String body = "<Parent><First>1</First><Last>Test</Last></Parent>";
        FlowMessage message = onDemand(body);
        XPathQuery last = XPathQuery.compile("/Parent/Last = 'Test'");
        message.xml();
        assertTrue(last.test(message));
        assertEquals(1, message.parseCount(), "the tree is reused, not scanned past");

        FlowMessage changed = onDemand(body);
        changed.xmlForUpdate().getDocumentElement().getElementsByTagName("First").item(0).setTextContent("2");
        assertFalse(XPathQuery.compile("/Parent/First = '1'").test(changed), "the changed document, not the bytes");

        FlowMessage opaque = onDemand(body).parseOpaquely(OpaqueElements.of("/Parent/Last"));
        assertFalse(last.test(opaque), "an opaque element is empty in the tree, and so to its conditions");
    }
}
