package org.wharfmq.server.flow;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.flow.Domain;
import org.wharfmq.flow.ExceptionList;
import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.JavaComputeNode;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.Node;
import org.wharfmq.flow.TransactionMode;
import org.wharfmq.flow.Xml;
import org.wharfmq.flow.XmlSchema;
import org.wharfmq.flow.node.ConvertNode;
import org.wharfmq.flow.node.FilterNode;
import org.wharfmq.flow.node.InputNode;
import org.wharfmq.flow.node.OutputNode;
import org.wharfmq.flow.node.ValidationNode;
import org.wharfmq.flow.node.XsltNode;
import org.wharfmq.flow.records.CsvFormat;

import javax.jms.Message;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a hostile message can do to the flows that parse it, over a real server: XML with entities, external DTDs and
 * entity bombs, bodies that steer a stylesheet or an XPath expression to the server's files or network, schema
 * locations in the message, records without end. Each is refused to the node's failure terminal with the reason, and
 * a normal message sent after it goes through: the flow (and its instance) is unharmed.
 */
class HostileMessagesTest {

    private static final String SECRET = "TOP SECRET";
    private static final String NORMAL = "<r>fine</r>";

    @TempDir
    Path dir;

    private FlowFixture fixture;
    private HttpServer network;
    /** Requests the server made to the "network" (a listener on 127.0.0.1 standing for any host). */
    private final AtomicInteger fetched = new AtomicInteger();
    private String networkUrl;
    private Path secret;

    @BeforeEach
    void start() throws Exception {
        fixture = new FlowFixture();
        network = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        network.createContext("/", exchange -> {
            fetched.incrementAndGet();
            byte[] body = ("<!ENTITY x '" + SECRET + "'>").getBytes();
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        network.start();
        networkUrl = "http://127.0.0.1:" + network.getAddress().getPort();
        secret = Files.writeString(dir.resolve("secret.xml"), "<s>" + SECRET + "</s>");
    }

    @AfterEach
    void stop() throws Exception {
        network.stop(0);
        fixture.close();
    }

    /**
     * Deploys IN.name -> node -> OUT.name, the node's failure and the input's backout path -> (ExceptionList in a
     * property) -> FAILED.name.
     */
    private void deploy(String name, Domain domain, Node node) throws Exception {
        deploy(name, InputNode.queue("IN." + name).domain(domain), node);
    }

    private void deploy(String name, InputNode input, Node node) throws Exception {
        String exit = node instanceof FilterNode ? "true" : "out";
        fixture.run(FlowDefinition.builder(name)
                .node("in", input)
                .node("node", node)
                .node("out", OutputNode.queue("OUT." + name))
                .node("why", new RecordExceptionList())
                .node("failed", OutputNode.queue("FAILED." + name))
                .wire("in", "out", "node").wire("node", exit, "out")
                .wire("node", "failure", "why").wire("in", "failure", "why").wire("why", "out", "failed")
                .build(), 1);
    }

    /** Sends a hostile body to IN.name and returns the reason its failure names, after checking the body is kept. */
    private String refused(String name, String body) throws Exception {
        fixture.send("IN." + name, body, false, null, null);
        Message failed = fixture.receiveOne("FAILED." + name);
        assertEquals(body, FlowFixture.text(failed), "the message is kept whole for the failure path");
        String why = failed.getStringProperty(ExceptionList.PROPERTY);
        assertFalse(why.contains(SECRET), why);
        return why;
    }

    /** Sends a normal message after the hostile ones: it goes through, so the flow's instance is alive and well. */
    private String passes(String name, String body) throws Exception {
        fixture.send("IN." + name, body, false, null, null);
        String out = FlowFixture.text(fixture.receiveOne("OUT." + name));
        assertEquals(0, fixture.depth("FAILED." + name), name + ": nothing else failed");
        return out;
    }

    private static String billionLaughs() {
        StringBuilder dtd = new StringBuilder("<!DOCTYPE r [<!ENTITY a0 'laugh'>");
        for (int i = 1; i <= 10; i++) {
            dtd.append("<!ENTITY a").append(i).append(" '").append(("&a" + (i - 1) + ";").repeat(10)).append("'>");
        }
        return dtd.append("]><r>&a10;</r>").toString();
    }

    @Test
    void aBodyWithADoctypeIsRefusedByEveryXmlNodeSoNoEntityIsReadFetchedOrExpanded() throws Exception {
        Path xsd = Files.writeString(dir.resolve("r.xsd"), "<xsd:schema xmlns:xsd='http://www.w3.org/2001/XMLSchema'>"
                + "<xsd:element name='r' type='xsd:string'/></xsd:schema>");
        Path xsl = Files.writeString(dir.resolve("copy.xsl"), "<xsl:stylesheet version='1.0' "
                + "xmlns:xsl='http://www.w3.org/1999/XSL/Transform'><xsl:template match='/'><xsl:copy-of select='/'/>"
                + "</xsl:template></xsl:stylesheet>");
        deploy("FILTER", Domain.XML, new FilterNode("exists(/r)"));
        deploy("VALIDATE", Domain.XML, new ValidationNode(XmlSchema.compile(xsd)));
        deploy("XSLT", Domain.XML, XsltNode.of(xsl));
        String fileEntity = "<!DOCTYPE r [<!ENTITY s SYSTEM '" + secret.toUri() + "'>]><r>&s;</r>";
        String networkDtd = "<!DOCTYPE r SYSTEM '" + networkUrl + "/evil.dtd'><r>&x;</r>";
        String parameterEntity = "<!DOCTYPE r [<!ENTITY % p SYSTEM '" + networkUrl + "/p.dtd'> %p;]><r>&x;</r>";
        for (String flow : new String[] {"FILTER", "VALIDATE", "XSLT"}) {
            for (String hostile : new String[] {fileEntity, networkDtd, parameterEntity, billionLaughs()}) {
                String why = refused(flow, hostile);
                assertTrue(why.contains("DOCTYPE"), flow + ": " + why);
            }
            assertTrue(passes(flow, NORMAL).contains("fine"));
        }
        assertEquals(0, fetched.get(), "no DTD or entity was fetched over the network");
    }

    @Test
    void aMessageCannotSteerAStylesheetToFilesOrTheNetworkButItsOwnResourcesStillServe() throws Exception {
        Path folder = Files.createDirectories(dir.resolve("xsl"));
        Files.writeString(folder.resolve("lookup.xml"), "<l>LOOKUP</l>");
        Path xsl = Files.writeString(folder.resolve("steer.xsl"), """
                <xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
                  <xsl:output omit-xml-declaration="yes"/>
                  <xsl:template match="/r[@op = 'document']"><o><xsl:copy-of select="document(string(.))"/></o></xsl:template>
                  <xsl:template match="/r[@op = 'node']"><o><xsl:copy-of select="document(.)"/></o></xsl:template>
                  <xsl:template match="/r[@op = 'text']"><o><xsl:value-of select="unparsed-text(string(.))"/></o></xsl:template>
                  <xsl:template match="/r[@op = 'json']"><o><xsl:value-of select="json-doc(string(.))"/></o></xsl:template>
                  <xsl:template match="/r[@op = 'list']"><o><xsl:value-of select="uri-collection(string(.))"/></o></xsl:template>
                  <xsl:template match="/r[@op = 'parse']"><o><xsl:copy-of select="parse-xml(string(.))"/></o></xsl:template>
                  <xsl:template match="/r[@op = 'evaluate']"><o><xsl:evaluate xpath="string(.)"/></o></xsl:template>
                  <xsl:template match="/r[@op = 'property']"><o><xsl:value-of select="system-property(string(.))"/></o></xsl:template>
                  <xsl:template match="/r[@op = 'env']"><o><xsl:value-of select="environment-variable(string(.))"/></o></xsl:template>
                  <xsl:template match="/r[@op = 'self']"><o><xsl:value-of select="count(document('')//xsl:template)"/></o></xsl:template>
                  <xsl:template match="/r" priority="-1"><o><xsl:value-of select="."/></o></xsl:template>
                </xsl:stylesheet>""");
        deploy("STEER", Domain.XML, XsltNode.of(xsl));
        String file = secret.toUri().toString();
        String[][] hostile = {
                {"document", file}, {"document", "../secret.xml"}, {"document", networkUrl + "/doc.xml"},
                {"node\" xml:base=\"" + dir.toUri(), "secret.xml"},
                {"text", file}, {"text", "..%2Fsecret.xml"}, {"json", file}, {"list", dir.toUri().toString()},
        };
        for (String[] message : hostile) {
            String why = refused("STEER", "<r op=\"" + message[0] + "\">" + message[1] + "</r>");
            assertTrue(why.contains("Refused"), message[0] + " " + message[1] + ": " + why);
        }
        refused("STEER", "<r op=\"evaluate\">unparsed-text('" + file + "')</r>"); // Saxon names only the expression
        assertEquals(0, fetched.get(), "nothing was fetched over the network");

        String entity = "<!DOCTYPE s [<!ENTITY e SYSTEM '" + file + "'>]><p>[&e;]</p>";
        assertEquals("<o><p>[]</p></o>", passes("STEER", "<r op=\"parse\">" + escape(entity) + "</r>"),
                "parse-xml() reads the internal subset but fetches no external entity");
        String why = refused("STEER", "<r op=\"parse\">" + escape(billionLaughs()) + "</r>");
        assertTrue(why.contains("entity") || why.contains("Entity"), why);
        assertEquals("<o/>", passes("STEER", "<r op=\"env\">PATH</r>"), "no environment variable is seen");
        assertEquals("<o/>", passes("STEER", "<r op=\"property\">user.home</r>"), "nor a Java system property");

        assertEquals("<o><l>LOOKUP</l></o>", passes("STEER", "<r op=\"document\">lookup.xml</r>"),
                "a resource beside the stylesheet is read");
        assertEquals("<o>11</o>", passes("STEER", "<r op=\"self\"/>"), "document('') reads the stylesheet itself");
        assertEquals("<o>plain</o>", passes("STEER", "<r>plain</r>"));
    }

    @Test
    void aStylesheetThatWritesFilesIsRefusedWhenTheFlowIsBuilt() throws Exception {
        Path xsl = Files.writeString(dir.resolve("write.xsl"), "<xsl:stylesheet version='3.0' "
                + "xmlns:xsl='http://www.w3.org/1999/XSL/Transform'><xsl:template match='/'>"
                + "<xsl:result-document href='{/r}'><w/></xsl:result-document><o/></xsl:template></xsl:stylesheet>");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> XsltNode.of(xsl));
        assertTrue(e.getMessage().contains("write.xsl") && e.getMessage().contains("xsl:result-document"),
                e.getMessage());
    }

    private static String escape(String xml) {
        return xml.replace("&", "&amp;").replace("<", "&lt;");
    }

    @Test
    void anXPathExpressionReadsNothingButTheMessage() throws Exception {
        deploy("XPATH.DOC", Domain.XML, new FilterNode("doc(string(/r))/s = 'known'"));
        deploy("XPATH.TEXT", Domain.XML, new FilterNode("contains(unparsed-text(string(/r)), 'known')"));
        for (String flow : new String[] {"XPATH.DOC", "XPATH.TEXT"}) {
            String why = refused(flow, "<r>" + secret.toUri() + "</r>");
            assertTrue(why.contains("Refused reading " + secret.toUri()), why);
            refused(flow, "<r>" + networkUrl + "/doc.xml</r>");
        }
        assertEquals(0, fetched.get(), "nothing was fetched over the network");
    }

    @Test
    void schemaLocationsInTheMessageAreNotFollowed() throws Exception {
        Path lax = Files.writeString(dir.resolve("lax.xsd"), """
                <xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema">
                  <xsd:element name="r"><xsd:complexType><xsd:sequence>
                    <xsd:any processContents="lax" namespace="##any" minOccurs="0"/>
                  </xsd:sequence></xsd:complexType></xsd:element>
                </xsd:schema>""");
        // a schema that would make the message invalid, were the message's hint followed
        Path strict = Files.writeString(dir.resolve("strict.xsd"), "<xsd:schema "
                + "xmlns:xsd='http://www.w3.org/2001/XMLSchema' targetNamespace='urn:x'>"
                + "<xsd:element name='q' type='xsd:int'/></xsd:schema>");
        deploy("SCHEMA", Domain.XML, new ValidationNode(XmlSchema.compile(lax)));
        String xsi = "xmlns:xsi='http://www.w3.org/2001/XMLSchema-instance'";
        String[] hints = {
                "<r " + xsi + "><x:q xmlns:x='urn:x' xsi:schemaLocation='urn:x " + strict.toUri() + "'>no</x:q></r>",
                "<r " + xsi + "><x:q xmlns:x='urn:x' xsi:schemaLocation='urn:x " + networkUrl + "/x.xsd'>no</x:q></r>",
                "<r " + xsi + " xsi:noNamespaceSchemaLocation='" + networkUrl + "/r.xsd'/>",
        };
        for (String hint : hints) {
            assertEquals(hint, passes("SCHEMA", hint), "judged by the flow's schema only");
        }
        assertEquals(0, fetched.get(), "no schema was fetched over the network");
    }

    /**
     * Elements nested deeper than {@link Xml#MAX_NESTING_DEPTH} (1000) are refused by the parse of every XML node (a
     * stylesheet's, a changed DOM's, a validation's, {@code parse-xml()} of a string from the message), naming the
     * element and the limit, before any node's recursion walks them; a body at the limit goes through each, the
     * recursive ones included, and the flow goes on. (Before, any depth was parsed: 1001 levels went through, and a
     * body nested 100,000 deep ran the templates' recursion out of stack, caught as a StackOverflowError in the
     * flow's thread.) A JSON body is held to Jackson's nesting limit.
     */
    @Test
    void aBodyNestedDeeperThanTheXmlDomainsLimitIsRefusedByItsParseAndOneAtTheLimitGoesThrough() throws Exception {
        Path shallowCopy = Files.writeString(dir.resolve("copy.xsl"), "<xsl:stylesheet version='3.0' "
                + "xmlns:xsl='http://www.w3.org/1999/XSL/Transform'><xsl:output omit-xml-declaration='yes'/>"
                + "<xsl:mode on-no-match='shallow-copy'/></xsl:stylesheet>");
        Path identity = Files.writeString(dir.resolve("identity.xsl"), "<xsl:stylesheet version='1.0' "
                + "xmlns:xsl='http://www.w3.org/1999/XSL/Transform'><xsl:output omit-xml-declaration='yes'/>"
                + "<xsl:template match='@*|node()'><xsl:copy>"
                + "<xsl:apply-templates select='@*|node()'/></xsl:copy></xsl:template></xsl:stylesheet>");
        Path parse = Files.writeString(dir.resolve("parse.xsl"), "<xsl:stylesheet version='3.0' "
                + "xmlns:xsl='http://www.w3.org/1999/XSL/Transform'><xsl:output omit-xml-declaration='yes'/>"
                + "<xsl:template match='/r'><o><xsl:value-of select='count(parse-xml(string(.))//a)'/></o>"
                + "</xsl:template></xsl:stylesheet>");
        Path nested = Files.writeString(dir.resolve("nested.xsd"), "<xsd:schema "
                + "xmlns:xsd='http://www.w3.org/2001/XMLSchema'><xsd:element name='a'><xsd:complexType>"
                + "<xsd:sequence><xsd:element ref='a' minOccurs='0'/></xsd:sequence></xsd:complexType></xsd:element>"
                + "</xsd:schema>");
        deploy("DEEP.COPY", InputNode.queue("IN.DEEP.COPY").domain(Domain.XML).transactionMode(TransactionMode.NO),
                XsltNode.of(shallowCopy));
        deploy("DEEP.IDENTITY", Domain.XML, XsltNode.of(identity));
        deploy("DEEP.DOM", InputNode.queue("IN.DEEP.DOM").domain(Domain.XML).transactionMode(TransactionMode.NO),
                new ChangeTheTree());
        deploy("DEEP.VALIDATE", Domain.XML, new ValidationNode(XmlSchema.compile(nested)));
        deploy("DEEP.PARSE", Domain.XML, XsltNode.of(parse));
        deploy("DEEP.JSON", Domain.JSON, ConvertNode.toXml());
        int limit = Xml.MAX_NESTING_DEPTH;
        String atLimit = "<a>".repeat(limit) + "</a>".repeat(limit);
        String past = "<a>".repeat(limit + 1) + "</a>".repeat(limit + 1);
        String tooDeep = "element 'a' is nested " + (limit + 1) + " elements deep, deeper than the " + limit
                + " the XML domain parses (Xml.MAX_NESTING_DEPTH)";
        for (String flow : new String[] {"DEEP.COPY", "DEEP.IDENTITY", "DEEP.DOM", "DEEP.VALIDATE"}) {
            String why = refused(flow, past);
            assertTrue(why.contains(tooDeep), flow + ": " + why);
        }
        String why = refused("DEEP.PARSE", "<r>" + escape(past) + "</r>");
        assertTrue(why.contains("nested " + (limit + 1) + " elements deep"), why);

        String copied = "<a>".repeat(limit - 1) + "<a/>" + "</a>".repeat(limit - 1); // as Saxon writes it
        for (String flow : new String[] {"DEEP.COPY", "DEEP.IDENTITY"}) {
            String out = passes(flow, atLimit);
            assertTrue(out.equals(copied), flow + ": every level copied, not " + out.length() + " characters");
        }
        String changed = passes("DEEP.DOM", atLimit);
        assertTrue(changed.startsWith("<a changed=\"yes\"><a><a>"), changed.substring(0, 40));
        assertEquals(limit - 1, (changed.length() - changed.replace("</a>", "").length()) / 4, "every level kept");
        assertTrue(passes("DEEP.VALIDATE", atLimit).equals(atLimit), "the body goes on as it came");
        assertEquals("<o>" + limit + "</o>", passes("DEEP.PARSE", "<r>" + escape(atLimit) + "</r>"));

        int deep = 100_000;
        why = refused("DEEP.JSON", "[".repeat(deep) + "]".repeat(deep));
        assertTrue(why.contains("nesting depth"), why);
        assertTrue(passes("DEEP.JSON", "[{\"a\":\"1\"}]").contains("<a>1</a>"));
    }

    /** Changes the body through the DOM (a copy of the tree that the output serialises). */
    private static final class ChangeTheTree extends JavaComputeNode {
        @Override
        public void evaluate(MessageAssembly assembly) throws Exception {
            MessageAssembly out = assembly.copy();
            out.message().xmlForUpdate().getDocumentElement().setAttribute("changed", "yes");
            out.message().bodyBytes(); // serialised here, so a failure is this node's
            propagate("out", out);
        }
    }

    @Test
    void recordsWithoutEndAreRefusedWithTheReason() throws Exception {
        deploy("CSV", InputNode.queue("IN.CSV").records(CsvFormat.withHeader()), ConvertNode.toXml());
        String why = refused("CSV", "id,name\n1,\"never closed" + "x".repeat(200_000));
        assertTrue(why.contains("CSV record 1") && why.contains("quote"), why);
        why = refused("CSV", "id,name\n1," + "x".repeat(1_000_000) + "\n");
        assertTrue(why.contains("maxRecordLength"), why);
        assertTrue(passes("CSV", "id,name\n1,Ann\n").contains("<name>Ann</name>"));
    }
}
