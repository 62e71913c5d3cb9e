package org.wharfmq.flow;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The XML domain: parsed once and shared, changed through a private DOM, XPath, schemas, hostile input. */
class XmlDomainTest {

    static final String SALE = "<Parent><First>1</First><SaleList><Invoice><Surname>Braithwaite</Surname>"
            + "<Item><Price>00.30</Price><Quantity>01</Quantity></Item>"
            + "<Item><Price>22.34</Price><Quantity>02</Quantity></Item></Invoice></SaleList><Last>Test</Last></Parent>";

    private static MessageAssembly input(String body) {
        FlowMessage message = FlowMessage.ofBytes(Domain.XML, body.getBytes(StandardCharsets.UTF_8));
        MessageAssembly assembly = MessageAssembly.of(message, Folder.empty("Environment"));
        assembly.freeze();
        return assembly;
    }

    @Test
    void xmlnscIsTheXmlDomain() {
        assertSame(Domain.XML, Domain.of("XMLNSC"));
        assertSame(Domain.XML, Domain.of("xml"));
        assertSame(Domain.JSON, Domain.of("json"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Domain.of("MRM")).getMessage()
                .contains("BLOB, JSON, XML or RECORDS"));
    }

    @Test
    void theTreeIsParsedOnceAndSharedByEveryCopy() {
        MessageAssembly in = input(SALE);
        assertFalse(in.message().isXmlParsed(), "nothing is parsed until a node asks");
        MessageAssembly copy = in.copy();
        assertEquals("Test", XPathQuery.compile("/Parent/Last").string(copy.message()));
        assertSame(in.message().xml(), copy.message().xml(), "one tree for every copy");
        assertEquals(1, in.message().parseCount());
        assertTrue(in.message().isXmlParsed());
        assertFalse(copy.message().isBodyChanged(), "reading is not changing: the bytes that arrived go on");
    }

    @Test
    void xpathQueriesAnswerOnTheBody() {
        FlowMessage message = input(SALE).message();
        assertTrue(XPathQuery.compile("/Parent/First = '1'").test(message));
        assertFalse(XPathQuery.compile("/Parent/Missing").test(message), "an empty node set is false");
        assertNull(XPathQuery.compile("/Parent/Missing").string(message));
        assertEquals("00.30", XPathQuery.compile("//Price").string(message), "the first of several");
        assertEquals(44.98, Double.parseDouble(XPathQuery.compile(
                "sum(//Item/(Price * Quantity))").string(message)), 0.001);
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
                () -> XPathQuery.compile("/Parent/["));
        assertTrue(bad.getMessage().contains("/Parent/["), bad.getMessage());
        XPathQuery.XPathException failed = assertThrows(XPathQuery.XPathException.class,
                () -> XPathQuery.compile("xs:integer(/Parent/Last)").test(message));
        assertTrue(failed.getMessage().contains("xs:integer(/Parent/Last)"), failed.getMessage());
    }

    @Test
    void namespacedBodiesAreQueriedWithDeclaredPrefixes() {
        FlowMessage message = input("<o:Order xmlns:o='urn:orders'><o:Id>7</o:Id></o:Order>").message();
        assertEquals("7", XPathQuery.compile("/x:Order/x:Id", Map.of("x", "urn:orders")).string(message));
        assertNull(XPathQuery.compile("/Order/Id").string(message), "unprefixed names are in no namespace");
    }

    @Test
    void aChangeGoesToAPrivateDomAndTheInputStaysAsItWas() {
        MessageAssembly in = input(SALE);
        in.message().xml();
        MessageAssembly out = in.copy();
        Document doc = out.message().xmlForUpdate();
        Element last = (Element) doc.getDocumentElement().getElementsByTagName("Last").item(0);
        last.setTextContent("Changed");
        assertTrue(out.message().isBodyChanged());
        assertEquals("Changed", XPathQuery.compile("/Parent/Last").string(out.message()), "reads see the change");
        assertEquals("Test", XPathQuery.compile("/Parent/Last").string(in.message()));
        String written = new String(out.message().bodyBytes(), StandardCharsets.UTF_8);
        assertEquals(SALE.replace(">Test<", ">Changed<"), written, "serialised whole, no XML declaration");

        MessageAssembly again = out.copy();
        ((Element) again.message().xmlForUpdate().getDocumentElement().getElementsByTagName("First").item(0))
                .setTextContent("2");
        assertEquals("1", XPathQuery.compile("/Parent/First").string(out.message()),
                "a copy of a changed message changes its own document");
        assertThrows(IllegalStateException.class, () -> in.message().xmlForUpdate(), "the input is read-only");
    }

    @Test
    void aMalformedBodyFailsWithLineAndColumn() {
        FlowMessage message = input("<Parent>\n<First>1</Frist></Parent>").message();
        XmlParseException e = assertThrows(XmlParseException.class, message::xml);
        assertTrue(e.getMessage().contains("line 2"), e.getMessage());
        assertTrue(e.getMessage().contains("end-tag \"</First>\""), e.getMessage());
    }

    @Test
    void aDoctypeIsRefusedSoNoEntityIsExpandedOrFetched(@TempDir Path dir) throws Exception {
        Path secret = Files.writeString(dir.resolve("secret.txt"), "TOP SECRET");
        String xxe = "<?xml version='1.0'?><!DOCTYPE r [<!ENTITY s SYSTEM '" + secret.toUri() + "'>]><r>&s;</r>";
        XmlParseException e = assertThrows(XmlParseException.class, () -> input(xxe).message().xml());
        assertTrue(e.getMessage().contains("DOCTYPE"), e.getMessage());
        MessageAssembly out = input(xxe).copy();
        assertThrows(XmlParseException.class, () -> out.message().xmlForUpdate());
        Path xsd = Files.writeString(dir.resolve("r.xsd"), "<xsd:schema xmlns:xsd='http://www.w3.org/2001/XMLSchema'>"
                + "<xsd:element name='r' type='xsd:string'/></xsd:schema>");
        XmlParseException validating = assertThrows(XmlParseException.class,
                () -> XmlSchema.compile(xsd).validate(input(xxe).message()));
        assertTrue(validating.getMessage().contains("DOCTYPE"), validating.getMessage());
    }

    @Test
    void aBlobBodyHasNoXmlTree() {
        FlowMessage blob = FlowMessage.ofBytes(Domain.BLOB, SALE.getBytes(StandardCharsets.UTF_8));
        IllegalStateException e = assertThrows(IllegalStateException.class, blob::xml);
        assertTrue(e.getMessage().contains("set domain XML on the input node"), e.getMessage());
    }

    @Test
    void schemasNameTheRuleAValueBreaks(@TempDir Path dir) throws Exception {
        Path xsd = Files.writeString(dir.resolve("sale.xsd"), """
                <xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema">
                  <xsd:element name="Parent"><xsd:complexType><xsd:sequence>
                    <xsd:element name="First" type="xsd:int"/>
                    <xsd:element name="Last"><xsd:simpleType><xsd:restriction base="xsd:string">
                      <xsd:maxLength value="4"/></xsd:restriction></xsd:simpleType></xsd:element>
                  </xsd:sequence></xsd:complexType></xsd:element>
                </xsd:schema>""");
        XmlSchema schema = XmlSchema.compile(xsd);
        assertEquals("sale.xsd", schema.name());
        schema.validate(input("<Parent><First>1</First><Last>Test</Last></Parent>").message());
        XmlValidationException tooLong = assertThrows(XmlValidationException.class,
                () -> schema.validate(input("<Parent><First>1</First><Last>Tested</Last></Parent>").message()));
        assertTrue(tooLong.getMessage().contains("sale.xsd"), tooLong.getMessage());
        assertTrue(tooLong.getMessage().contains("cvc-maxLength-valid"), tooLong.getMessage());
        assertThrows(XmlValidationException.class,
                () -> schema.validate(input("<Parent><First>one</First><Last>Test</Last></Parent>").message()));
        assertThrows(XmlParseException.class, () -> schema.validate(input("<Parent><First>").message()));
        // the validator is reusable after a failure
        schema.validate(input("<Parent><First>2</First><Last>Ok</Last></Parent>").message());

        IllegalArgumentException missing = assertThrows(IllegalArgumentException.class,
                () -> XmlSchema.compile(dir.resolve("none.xsd")));
        assertTrue(missing.getMessage().contains("none.xsd"), missing.getMessage());
        Path broken = Files.writeString(dir.resolve("broken.xsd"), "<xsd:schema xmlns:xsd='nope'/>");
        assertThrows(IllegalArgumentException.class, () -> XmlSchema.compile(broken));
    }
}
