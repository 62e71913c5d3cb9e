package org.wharfmq.flow;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The XML domain's writer of a changed body: byte for byte what Saxon's serializer writes (the writer before it, kept
 * here as the reference and as the writer of what {@link DomWriter} leaves to it).
 */
class DomWriterTest {

    /** A body with something of every kind the writer writes itself. */
    private static final String MIXED = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- before --><?app go?>"
            + "<Parent z=\"1\" a=\"x&amp;y &lt; &gt; &quot; &apos; &#9;&#10;&#13;\" m=\"\">"
            + "<First>1</First><Empty/><Empty></Empty>\n  <T>a &lt; b &amp; c &gt; d ]]&gt; 'q' \"q\" &#13;\t</T>"
            + "<![CDATA[<raw>&]]><!--in--><?pi?><?pi data here?>"
            + "<U>\u00e9\u00a0\u20ac\ud83d\ude00\u4e2d</U><Last>Test</Last></Parent><!--after-->";

    private static Document dom(String xml) {
        return Xml.parseDom(xml.getBytes(StandardCharsets.UTF_8));
    }

    private static String saxon(Document document) {
        return new String(Xml.serializeBytes(Xml.wrap(document)), StandardCharsets.UTF_8);
    }

    private static String written(Document document) {
        DomWriter writer = DomWriter.write(document, 0);
        assertNotNull(writer, "the writer writes this document itself");
        return new String(writer.bytes(), StandardCharsets.UTF_8);
    }

    @Test
    void aChangedBodyIsWrittenAsBefore() {
        // pinned: what the XML domain wrote for this body before the writer (Saxon's serializer)
        FlowMessage message = FlowMessage.ofBytes(Domain.XML, MIXED.getBytes(StandardCharsets.UTF_8));
        Document document = message.xmlForUpdate();
        document.getDocumentElement().getLastChild().setTextContent("Changed & <done>");
        String expected = "<!-- before --><?app go?>"
                + "<Parent a=\"x&amp;y &lt; &gt; &#34; ' &#x9;&#xA;&#xD;\" m=\"\" z=\"1\">"
                + "<First>1</First><Empty/><Empty/>\n  <T>a &lt; b &amp; c &gt; d ]]&gt; 'q' \"q\" &#xD;\t</T>"
                + "&lt;raw&gt;&amp;<!--in--><?pi?><?pi data here?>"
                + "<U>\u00e9\u00a0\u20ac\ud83d\ude00\u4e2d</U><Last>Changed &amp; &lt;done&gt;</Last></Parent>"
                + "<!--after-->";
        assertEquals(expected, new String(message.bodyBytes(), StandardCharsets.UTF_8));
        assertEquals(expected, message.bodyText());
        assertEquals(saxon(document), written(document));
    }

    @Test
    void nodesAddedByANodeAreWrittenAsSaxonWritesThem() {
        Document document = dom("<Parent><SaleList/></Parent>");
        Element saleList = (Element) document.getDocumentElement().getFirstChild();
        Element total = document.createElement("InvoicesTotal"); // DOM level 1, as F-COMPUTE adds it
        total.setAttribute("Currency", "Sterling");
        total.setTextContent("57.116");
        saleList.appendChild(total);
        saleList.appendChild(document.createElementNS(null, "Plain"));
        saleList.appendChild(document.createTextNode("a"));
        saleList.appendChild(document.createTextNode("b")); // adjacent text nodes
        saleList.appendChild(document.createCDATASection("c<"));
        saleList.appendChild(document.createComment(""));
        assertEquals(saxon(document), written(document));
        assertEquals("<Parent><SaleList><InvoicesTotal Currency=\"Sterling\">57.116</InvoicesTotal><Plain/>abc&lt;"
                + "<!----></SaleList></Parent>", written(document));
    }

    @Test
    void aLargeBodyIsWrittenAsSaxonWritesIt() {
        StringBuilder xml = new StringBuilder("<Parent><First>1</First>");
        for (int i = 0; i < 5_000; i++) {
            xml.append("<SaleList n=\"").append(i).append("\"><Invoice><Surname>Braithwaite").append(i)
                    .append("</Surname><Description>The Times &amp; Sunday \u00e9dition</Description></Invoice>")
                    .append("</SaleList>");
        }
        xml.append("<Text>").append("x".repeat(100_000)).append("\u20ac</Text><Last>Test</Last></Parent>");
        Document document = dom(xml.toString());
        String written = written(document);
        assertEquals(saxon(document), written);
        assertTrue(written.length() > 500_000);
    }

    @Test
    void everyCharacterIsWrittenAsSaxonWritesItOrLeftToSaxon() {
        int writtenHere = 0;
        for (int c = 0; c <= 0xffff; c++) {
            if (Character.isSurrogate((char) c)) {
                continue;
            }
            if (checkCharacter(String.valueOf((char) c))) {
                writtenHere++;
            }
        }
        for (int cp : new int[] {0x10000, 0x1f600, 0x10ffff}) {
            assertTrue(checkCharacter(new String(Character.toChars(cp))), Integer.toHexString(cp));
        }
        // all of Unicode's BMP but the controls, 0x7F-0x9F, the line separator and U+FFFE/U+FFFF
        assertTrue(writtenHere > 63_000, writtenHere + " characters written here");
    }

    /** Whether the writer wrote {@code c} in text, an attribute, a comment and an instruction itself (as Saxon). */
    private static boolean checkCharacter(String c) {
        Document document = Xml.newDocument();
        Element root = document.createElement("r");
        document.appendChild(root);
        root.setAttribute("v", "a" + c + "b");
        root.appendChild(document.createTextNode("a" + c + "b"));
        root.appendChild(document.createComment("a" + c + "b"));
        root.appendChild(document.createProcessingInstruction("p", "a" + c + "b"));
        DomWriter writer = DomWriter.write(document, 0);
        if (writer == null) {
            return false;
        }
        assertEquals(saxon(document), new String(writer.bytes(), StandardCharsets.UTF_8),
                "U+" + Integer.toHexString(c.codePointAt(0)));
        return true;
    }

    @Test
    void namespacesAreLeftToSaxon() {
        for (String xml : new String[] {"<a xmlns=\"urn:x\"><b/></a>", "<p:a xmlns:p=\"urn:x\"/>",
                "<a><b xmlns:q=\"urn:q\" q:c=\"1\"/></a>"}) {
            Document document = dom(xml);
            assertNull(DomWriter.write(document, 0), xml);
            FlowMessage message = FlowMessage.ofBytes(Domain.XML, xml.getBytes(StandardCharsets.UTF_8));
            message.xmlForUpdate();
            assertEquals(saxon(document), new String(message.bodyBytes(), StandardCharsets.UTF_8), xml);
        }
        Document added = dom("<a/>");
        added.getDocumentElement().appendChild(added.createElementNS("urn:y", "y:b"));
        assertNull(DomWriter.write(added, 0));
        assertEquals("<a><y:b xmlns:y=\"urn:y\"/></a>", saxon(added));
    }
}
