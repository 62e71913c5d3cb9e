package org.wharfmq.server.flow;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.flow.Domain;
import org.wharfmq.flow.ExceptionList;
import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.JavaComputeNode;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.ParseTiming;
import org.wharfmq.flow.TransactionMode;
import org.wharfmq.flow.XPathQuery;
import org.wharfmq.flow.XmlSchema;
import org.wharfmq.flow.node.FilterNode;
import org.wharfmq.flow.node.InputNode;
import org.wharfmq.flow.node.OutputNode;
import org.wharfmq.flow.node.RouteNode;
import org.wharfmq.flow.node.ValidationNode;
import org.wharfmq.flow.node.XsltNode;
import org.wharfmq.flow.runtime.RunningFlow;

import javax.jms.BytesMessage;
import javax.jms.Message;
import javax.jms.TextMessage;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The XML domain's nodes in flows over a real server: filter, route, transform, validate, and bad input. */
class XmlNodesTest {

    private static final String ORDER = "<Order><Tier>%s</Tier><Item><Price>2.50</Price><Qty>4</Qty></Item></Order>";
    private static final String SCHEMA = """
            <xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema">
              <xsd:element name="Order"><xsd:complexType><xsd:sequence>
                <xsd:element name="Tier"><xsd:simpleType><xsd:restriction base="xsd:string">
                  <xsd:enumeration value="gold"/><xsd:enumeration value="silver"/></xsd:restriction></xsd:simpleType>
                </xsd:element>
                <xsd:element name="Item"><xsd:complexType><xsd:sequence>
                  <xsd:element name="Price" type="xsd:decimal"/><xsd:element name="Qty" type="xsd:int"/>
                </xsd:sequence></xsd:complexType></xsd:element>
              </xsd:sequence></xsd:complexType></xsd:element>
            </xsd:schema>""";

    private FlowFixture fixture;

    @BeforeEach
    void start() throws Exception {
        fixture = new FlowFixture();
    }

    @AfterEach
    void stop() throws Exception {
        fixture.close();
    }

    private static String order(String tier) {
        return String.format(ORDER, tier);
    }

    @Test
    void filterSendsTrueAndFalseApartAndMalformedXmlToFailure() throws Exception {
        fixture.run(FlowDefinition.builder("filter")
                .node("in", InputNode.queue("IN").domain(Domain.XML))
                .node("gold", new FilterNode("/Order/Tier = 'gold'"))
                .node("yes", OutputNode.queue("OUT.TRUE"))
                .node("no", OutputNode.queue("OUT.FALSE"))
                .node("why", new RecordExceptionList())
                .node("bad", OutputNode.queue("OUT.FAILURE"))
                .wire("in", "out", "gold")
                .wire("gold", "true", "yes").wire("gold", "false", "no").wire("gold", "failure", "why")
                .wire("why", "out", "bad").build(), 1);
        fixture.send("IN", order("gold"), false, null, null);
        fixture.send("IN", order("silver"), false, null, null);
        fixture.send("IN", "<Order><Tier>gold</Order>", false, null, null);
        assertEquals(order("gold"), FlowFixture.text(fixture.receiveOne("OUT.TRUE")), "the body leaves as it came");
        assertEquals(order("silver"), FlowFixture.text(fixture.receiveOne("OUT.FALSE")));
        Message bad = fixture.receiveOne("OUT.FAILURE");
        assertEquals("<Order><Tier>gold</Order>", FlowFixture.text(bad));
        String why = bad.getStringProperty(ExceptionList.PROPERTY);
        assertTrue(why.contains("gold (Filter)") && why.contains("not well-formed XML (line 1"), why);
    }

    @Test
    void onDemandAFilterReadsOnlyAsFarAsItsAnswerAndTheMessageLeavesAsItCame() throws Exception {
        fixture.run(FlowDefinition.builder("on-demand")
                .node("in", InputNode.queue("IN").parseTiming(ParseTiming.ON_DEMAND))
                .node("gold", new FilterNode("/Order/Tier = 'gold'"))
                .node("yes", OutputNode.queue("OUT.TRUE"))
                .node("no", OutputNode.queue("OUT.FALSE"))
                .node("bad", OutputNode.queue("OUT.FAILURE"))
                .wire("in", "out", "gold")
                .wire("gold", "true", "yes").wire("gold", "false", "no").wire("gold", "failure", "bad").build(), 1);
        // a fault after the answer is not read (ParseTiming.ON_DEMAND's price); one before it still fails
        String brokenTail = "<Order><Tier>gold</Tier><Item><Price>2.50</Item></Order>";
        fixture.send("IN", brokenTail, false, null, null);
        fixture.send("IN", order("silver"), false, null, null);
        fixture.send("IN", "<Order><Tier>gold</Tie></Order>", false, null, null);
        assertEquals(brokenTail, FlowFixture.text(fixture.receiveOne("OUT.TRUE")), "the body leaves as it came");
        assertEquals(order("silver"), FlowFixture.text(fixture.receiveOne("OUT.FALSE")));
        assertEquals("<Order><Tier>gold</Tie></Order>", FlowFixture.text(fixture.receiveOne("OUT.FAILURE")));
    }

    @Test
    void opaqueElementsAreEmptyInTheTreeAndWholeInTheOutput() throws Exception {
        fixture.run(FlowDefinition.builder("opaque")
                .node("in", InputNode.queue("IN").opaque("/Order/Item"))
                .node("filter", new FilterNode("/Order/Tier = 'gold' and exists(/Order/Item) and empty(/Order/Item/*)"))
                .node("out", OutputNode.queue("OUT"))
                .wire("in", "out", "filter").wire("filter", "true", "out").build(), 1);
        fixture.sendBytes("IN", order("gold").getBytes(StandardCharsets.UTF_8));
        assertEquals(order("gold"), FlowFixture.text(fixture.receiveOne("OUT")), "the opaque content leaves intact");
    }

    @Test
    void routeGoesToTheFirstMatchingTerminalOrDefault() throws Exception {
        fixture.run(FlowDefinition.builder("route")
                .node("in", InputNode.queue("IN").domain(Domain.XML))
                .node("route", RouteNode.builder()
                        .route("gold", "/Order/Tier = 'gold'")
                        .route("big", "sum(/Order/Item/(Price * Qty)) >= 10")
                        .build())
                .node("outGold", OutputNode.queue("OUT.GOLD"))
                .node("outBig", OutputNode.queue("OUT.BIG"))
                .node("outDefault", OutputNode.queue("OUT.DEFAULT"))
                .wire("in", "out", "route")
                .wire("route", "gold", "outGold").wire("route", "big", "outBig")
                .wire("route", "default", "outDefault").build(), 1);
        fixture.send("IN", order("gold"), false, null, null);
        fixture.send("IN", order("silver"), false, null, null);
        fixture.send("IN", order("silver").replace("<Qty>4</Qty>", "<Qty>3</Qty>"), false, null, null);
        assertEquals(order("gold"), FlowFixture.text(fixture.receiveOne("OUT.GOLD")), "first match only, though big too");
        assertEquals(order("silver"), FlowFixture.text(fixture.receiveOne("OUT.BIG")));
        assertTrue(FlowFixture.text(fixture.receiveOne("OUT.DEFAULT")).contains("<Qty>3</Qty>"));
        assertEquals(0, fixture.depth("OUT.BIG"));
    }

    @Test
    void routeToAllMatchesSendsToEveryTerminalInTableOrderAndAFailingConditionSendsNothing() throws Exception {
        fixture.run(FlowDefinition.builder("route-all")
                .node("in", InputNode.queue("IN").domain(Domain.XML))
                .node("route", RouteNode.builder()
                        .route("gold", "/Order/Tier = 'gold'")
                        .route("big", "xs:decimal(/Order/Item/Price) * xs:int(/Order/Item/Qty) >= 10")
                        .toAllMatches()
                        .build())
                .node("outGold", OutputNode.queue("OUT.GOLD"))
                .node("outBig", OutputNode.queue("OUT.BIG"))
                .node("why", new RecordExceptionList())
                .node("outFailure", OutputNode.queue("OUT.FAILURE"))
                .wire("in", "out", "route")
                .wire("route", "gold", "outGold").wire("route", "big", "outBig")
                .wire("route", "failure", "why").wire("why", "out", "outFailure").build(), 1);
        fixture.send("IN", order("gold"), false, null, null);
        fixture.send("IN", order("gold").replace("<Qty>4</Qty>", "<Qty>four</Qty>"), false, null, null);
        assertEquals(order("gold"), FlowFixture.text(fixture.receiveOne("OUT.GOLD")), "gold and big: both terminals");
        assertEquals(order("gold"), FlowFixture.text(fixture.receiveOne("OUT.BIG")));
        Message failed = fixture.receiveOne("OUT.FAILURE");
        assertTrue(failed.getStringProperty(ExceptionList.PROPERTY).contains("route (Route)"),
                failed.getStringProperty(ExceptionList.PROPERTY));
        assertEquals(0, fixture.depth("OUT.GOLD"), "the gold condition held, but nothing goes on when one fails");
        assertThrows(IllegalArgumentException.class, () -> RouteNode.builder().route("default", "true()"));
    }

    @Test
    void instancesFilteringAndTransformingAtOnceEachAnswerTheirOwnMessage(@TempDir Path dir) throws Exception {
        Path xsl = Files.writeString(dir.resolve("own.xsl"), """
                <xsl:stylesheet version="2.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
                  <xsl:output omit-xml-declaration="yes"/>
                  <xsl:variable name="tier" select="/Order/Tier"/>
                  <xsl:template match="/"><Done tier="{$tier}"><xsl:value-of select="/Order/Tier"/></Done></xsl:template>
                </xsl:stylesheet>""");
        fixture.run(FlowDefinition.builder("instances")
                .node("in", InputNode.queue("IN").domain(Domain.XML))
                .node("even", new FilterNode("/Order/Tier mod 2 = 0"))
                .node("xslt", XsltNode.of(xsl))
                .node("out", OutputNode.queue("OUT"))
                .node("odd", OutputNode.queue("OUT.ODD"))
                .wire("in", "out", "even")
                .wire("even", "true", "xslt").wire("even", "false", "odd")
                .wire("xslt", "out", "out").build(), 4);
        int messages = 400;
        for (int n = 0; n < messages; n++) {
            fixture.send("IN", order(Integer.toString(n)), false, "n", n);
        }
        for (Message even : fixture.receive("OUT", messages / 2)) {
            int n = even.getIntProperty("n");
            assertEquals(0, n % 2, "only the even ones pass the filter");
            assertEquals("<Done tier=\"" + n + "\">" + n + "</Done>", FlowFixture.text(even),
                    "message " + n + ": its own result, its own global variable");
        }
        for (Message odd : fixture.receive("OUT.ODD", messages / 2)) {
            int n = odd.getIntProperty("n");
            assertEquals(1, n % 2, "message " + n);
            assertEquals(order(Integer.toString(n)), FlowFixture.text(odd));
        }
    }

    @Test
    void xsltReplacesTheBodyAndKeepsHeadersAndTextness(@TempDir Path dir) throws Exception {
        Path xsl = Files.writeString(dir.resolve("statement.xsl"), """
                <xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
                  <xsl:output omit-xml-declaration="yes"/>
                  <xsl:template match="/">
                    <Statement tier="{/Order/Tier}"><xsl:value-of select="sum(//Item/(Price * Qty))"/></Statement>
                  </xsl:template>
                </xsl:stylesheet>""");
        fixture.run(FlowDefinition.builder("xslt")
                .node("in", InputNode.queue("IN").domain(Domain.XML))
                .node("xslt", XsltNode.of(xsl))
                .node("out", OutputNode.queue("OUT"))
                .wire("in", "out", "xslt").wire("xslt", "out", "out").build(), 1);
        fixture.send("IN", order("gold"), false, "customer", "c-7");
        fixture.sendBytes("IN", order("silver").getBytes(StandardCharsets.UTF_8));
        TextMessage fromText = (TextMessage) fixture.receiveOne("OUT");
        assertEquals("<Statement tier=\"gold\">10</Statement>", fromText.getText());
        assertEquals("c-7", fromText.getStringProperty("customer"));
        BytesMessage fromBytes = (BytesMessage) fixture.receiveOne("OUT");
        assertEquals("<Statement tier=\"silver\">10</Statement>", FlowFixture.text(fromBytes));

        Path broken = Files.writeString(dir.resolve("broken.xsl"), "<xsl:stylesheet version='1.0' "
                + "xmlns:xsl='http://www.w3.org/1999/XSL/Transform'><xsl:template match='/'><xsl:value-of select='(('/>"
                + "</xsl:template></xsl:stylesheet>");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> XsltNode.of(broken));
        assertTrue(e.getMessage().contains("broken.xsl"), e.getMessage());
    }

    @Test
    void validationNodePassesValidMessagesAndSendsInvalidOnesToFailureWithTheRule(@TempDir Path dir)
            throws Exception {
        XmlSchema schema = XmlSchema.compile(Files.writeString(dir.resolve("order.xsd"), SCHEMA));
        fixture.run(FlowDefinition.builder("validate")
                .node("in", InputNode.queue("IN").domain(Domain.XML))
                .node("check", new ValidationNode(schema))
                .node("out", OutputNode.queue("OUT"))
                .node("why", new RecordExceptionList())
                .node("invalid", OutputNode.queue("OUT.INVALID"))
                .wire("in", "out", "check").wire("check", "out", "out").wire("check", "failure", "why")
                .wire("why", "out", "invalid")
                .build(), 1);
        fixture.send("IN", order("gold"), false, null, null);
        fixture.send("IN", order("bronze"), false, null, null);
        assertEquals(order("gold"), FlowFixture.text(fixture.receiveOne("OUT")));
        Message invalid = fixture.receiveOne("OUT.INVALID");
        assertEquals(order("bronze"), FlowFixture.text(invalid));
        String why = invalid.getStringProperty(ExceptionList.PROPERTY);
        assertTrue(why.contains("not valid against order.xsd") && why.contains("bronze"), why);
        assertEquals(0, fixture.depth("OUT"));
    }

    @Test
    void inputValidationBacksAnInvalidMessageOutAtOnceWithTheReason(@TempDir Path dir) throws Exception {
        XmlSchema schema = XmlSchema.compile(Files.writeString(dir.resolve("order.xsd"), SCHEMA));
        JavaComputeNode tier = new JavaComputeNode() {
            private final XPathQuery query = XPathQuery.compile("/Order/Tier");

            @Override
            public void evaluate(MessageAssembly assembly) throws Exception {
                MessageAssembly out = assembly.copy();
                out.message().setUserProperty("tier", query.string(assembly.message()));
                propagate("out", out);
            }
        };
        RunningFlow flow = fixture.run(FlowDefinition.builder("validate-on-input")
                .node("in", InputNode.queue("IN").validate(schema).transactionMode(TransactionMode.YES)
                        .backoutQueue("IN.BACKOUT"))
                .node("tier", tier)
                .node("out", OutputNode.queue("OUT"))
                .wire("in", "out", "tier").wire("tier", "out", "out").build(), 1);
        fixture.send("IN", order("bronze"), true, null, null);
        fixture.send("IN", order("silver"), true, null, null);
        assertEquals("silver", fixture.receiveOne("OUT").getStringProperty("tier"));
        Message refused = fixture.receiveOne("IN.BACKOUT");
        assertEquals(order("bronze"), FlowFixture.text(refused));
        String reason = refused.getStringProperty(ExceptionList.PROPERTY);
        assertTrue(reason.contains("order.xsd") && reason.contains("cvc-enumeration-valid"), reason);
        assertEquals(1, refused.getIntProperty("JMSXDeliveryCount"), "not retried: retrying cannot make it valid");
        assertEquals(0, fixture.depth(RunningFlow.DEAD_LETTER_QUEUE));
        assertEquals(1, flow.statistics().backouts());
    }
}
