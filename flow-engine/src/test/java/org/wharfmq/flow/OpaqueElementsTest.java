package org.wharfmq.flow;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Opaque parsing: the byte scan that skips an element's content, and the tree and message built on it. */
class OpaqueElementsTest {

    private static String strip(String xml, String... paths) {
        return new String(OpaqueElements.of(paths).strip(xml.getBytes(StandardCharsets.UTF_8)), StandardCharsets.UTF_8);
    }

    @Test
    void theContentOfEveryElementAtThePathIsSkippedAndItsTagsKept() {
        assertEquals("<Parent><First>1</First><SaleList></SaleList><SaleList k=\"v\"></SaleList><Last>x</Last></Parent>",
                strip("<Parent><First>1</First><SaleList><Invoice><Item>1</Item></Invoice></SaleList>"
                        + "<SaleList k=\"v\"><Invoice/></SaleList><Last>x</Last></Parent>", "/Parent/SaleList"));
    }

    @Test
    void sameNamedElementsInsideNestAndMarkupInCommentsAndCdataDoesNotCount() {
        assertEquals("<a><b></b><c>1</c></a>", strip("<a><b><b>x</b><b/></b><c>1</c></a>", "/a/b"));
        assertEquals("<a><b></b><c>1</c></a>",
                strip("<a><b><!-- </b> --><![CDATA[</b>]]><?pi </b>?></b><c>1</c></a>", "/a/b"));
        assertEquals("<a><b k=\"1>2\" j='</b>'></b></a>", strip("<a><b k=\"1>2\" j='</b>'>x</b></a>", "/a/b"));
    }

    @Test
    void onlyTheExactPathMatches() {
        assertEquals("<x><a><b>1</b></a><b></b></x>", strip("<x><a><b>1</b></a><b>2</b></x>", "/x/b"));
        assertEquals("<a><b>1</b></a>", strip("<a><b>1</b></a>", "/b"));
        assertEquals("<a><b>1</b><c></c></a>", strip("<a><b>1</b><c><b>2</b></c></a>", "/a/b/c", "/a/c"));
    }

    @Test
    void whatTheScanCannotBeSureOfIsLeftToTheParser() {
        OpaqueElements opaque = OpaqueElements.of("/a/b");
        byte[] selfClosing = "<a><b/></a>".getBytes(StandardCharsets.UTF_8);
        assertSame(selfClosing, opaque.strip(selfClosing), "nothing to skip: the same array");
        byte[] unclosed = "<a><b>never closed".getBytes(StandardCharsets.UTF_8);
        assertSame(unclosed, opaque.strip(unclosed));
        byte[] doctype = "<!DOCTYPE a><a><b>1</b></a>".getBytes(StandardCharsets.UTF_8);
        assertSame(doctype, opaque.strip(doctype));
        byte[] utf16 = "<a><b>1</b></a>".getBytes(StandardCharsets.UTF_16);
        assertSame(utf16, opaque.strip(utf16));
    }

    @Test
    void pathsMustBeAbsoluteElementNames() {
        assertThrows(IllegalArgumentException.class, () -> OpaqueElements.of("Parent/SaleList"));
        assertThrows(IllegalArgumentException.class, () -> OpaqueElements.of("//SaleList"));
        assertThrows(IllegalArgumentException.class, () -> OpaqueElements.of("/Parent[1]"));
        assertThrows(IllegalArgumentException.class, OpaqueElements::of);
        assertEquals("/p:Order/p:Lines", OpaqueElements.of("/p:Order/p:Lines").toString());
    }

    @Test
    void theTreeHasTheElementsEmptyAndTheMessageLeavesWhole() {
        String sale = XmlDomainTest.SALE;
        byte[] body = sale.getBytes(StandardCharsets.UTF_8);
        FlowMessage message = FlowMessage.ofBytes(Domain.XML, body).parseOpaquely(OpaqueElements.of("/Parent/SaleList"));
        assertEquals("Test", XPathQuery.compile("/Parent/Last").string(message));
        assertEquals("1", XPathQuery.compile("count(/Parent/SaleList)").string(message));
        assertEquals("0", XPathQuery.compile("count(//Item)").string(message), "the content is not in the tree");
        assertSame(body, message.bodyBytes(), "an unchanged body leaves as it came, content and all");
        FlowMessage text = FlowMessage.ofText(Domain.XML, sale).parseOpaquely(OpaqueElements.of("/Parent/SaleList"));
        assertEquals("0", XPathQuery.compile("count(//Item)").string(text));
        FlowMessage changed = FlowMessage.ofBytes(Domain.XML, body).parseOpaquely(OpaqueElements.of("/Parent/SaleList"));
        assertEquals(2, changed.xmlForUpdate().getElementsByTagName("Item").getLength(), "a change parses it all");
        assertTrue(assertThrows(IllegalStateException.class,
                () -> FlowMessage.ofBytes(Domain.BLOB, body).parseOpaquely(OpaqueElements.of("/Parent/SaleList")))
                .getMessage().contains("XML"));
    }
}
