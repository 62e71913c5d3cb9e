package org.wharfmq.flow;

import net.sf.saxon.Configuration;
import net.sf.saxon.s9api.SaxonApiException;
import net.sf.saxon.s9api.XmlProcessingError;
import net.sf.saxon.s9api.XsltCompiler;
import org.junit.jupiter.api.Test;

import javax.xml.transform.stream.StreamSource;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Saxon's reports go to the log through one shared reporter, not a new one (and its buffers) per evaluation. */
class SaxonReportsTest {

    @Test
    void everyControllerSharesOneReporter() {
        Configuration saxon = Xml.processor().getUnderlyingConfiguration();
        assertSame(SaxonReports.SHARED, saxon.makeErrorReporter());
        assertSame(saxon.makeErrorReporter(), saxon.makeErrorReporter());
    }

    @Test
    void aReportNamesItsKindCodeLineAndMessage() {
        XsltCompiler compiler = Xml.processor().newXsltCompiler();
        List<XmlProcessingError> errors = new ArrayList<>();
        compiler.setErrorList(errors);
        String stylesheet = "<xsl:stylesheet version='3.0' xmlns:xsl='http://www.w3.org/1999/XSL/Transform'>\n"
                + "<xsl:template match='/'><xsl:value-of select='1 +'/></xsl:template>\n</xsl:stylesheet>";
        assertThrows(SaxonApiException.class,
                () -> compiler.compile(new StreamSource(new StringReader(stylesheet), "bad.xsl")));
        assertEquals(1, errors.size(), errors.toString());
        String line = SaxonReports.describe(errors.get(0));
        assertTrue(line.startsWith("Saxon "), line);
        assertTrue(line.contains("error XPST0003 on line 2 of "), line);
        assertTrue(line.contains("bad.xsl: Unexpected token"), line);
    }
}
