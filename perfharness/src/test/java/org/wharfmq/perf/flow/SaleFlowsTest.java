package org.wharfmq.perf.flow;

import org.junit.jupiter.api.Test;
import org.wharfmq.flow.Domain;
import org.wharfmq.flow.FlowMessage;
import org.wharfmq.flow.Folder;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.XPathQuery;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The XML workloads' work does what seed 002 describes, on the seed's message, and their ceilings agree. */
class SaleFlowsTest {

    private static MessageAssembly input(byte[] body) {
        MessageAssembly assembly = MessageAssembly.of(FlowMessage.ofBytes(Domain.XML, body), Folder.empty("Env"));
        assembly.freeze();
        return assembly;
    }

    private static String string(MessageAssembly assembly, String xpath) {
        return XPathQuery.compile(xpath).string(assembly.message());
    }

    @Test
    void computeRecomputesBalancesAndAppendsTheSterlingTotalOfTheSeedsExample() {
        MessageAssembly out = SaleComputations.computeTotals(input(SaleMessage.ofSize(1049)));
        assertEquals("0.50", string(out, "/Parent/SaleList/Invoice[1]/Balance"));
        assertEquals("80.88", string(out, "/Parent/SaleList/Invoice[2]/Balance"), "22.34 x 2 + 36.20");
        assertEquals("57.116", string(out, "/Parent/SaleList/InvoicesTotal[@Currency='Sterling']"),
                "0.50 + 80.88 x 0.7, the fixture's worked example");
        MessageAssembly big = SaleComputations.computeTotals(input(SaleMessage.ofSize(16 * 1024)));
        assertEquals(string(big, "count(/Parent/SaleList)"), string(big, "count(//InvoicesTotal)"),
                "one total per SaleList");
    }

    @Test
    void parseReadsTheLastElementAndSendsHeadersOnly() {
        MessageAssembly out = SaleComputations.readLast(input(SaleMessage.ofSize(4096)));
        assertEquals("Test", out.message().userProperty("Last"));
        assertEquals(0, out.message().bodyBytes().length);
    }

    @Test
    void writeChangesOnlyTheLastElement() {
        byte[] body = SaleMessage.ofSize(4096);
        MessageAssembly out = SaleComputations.changeLast(input(body));
        String expected = new String(body, StandardCharsets.UTF_8).replace("<Last>Test</Last>", "<Last>Changed</Last>");
        assertEquals(expected, new String(out.message().bodyBytes(), StandardCharsets.UTF_8));
    }

    @Test
    void everyCeilingRunsOnTheMessageAndTheConditionsHoldAsInTheSeed() {
        for (int size : new int[] {4096, 65536}) {
            byte[] body = SaleMessage.ofSize(size);
            for (BenchmarkFlow flow : BenchmarkFlow.values()) {
                if (!flow.hasCeiling()) {
                    continue;
                }
                BenchmarkFlow.Ceiling ceiling = flow.ceiling(body, 0, 20);
                assertTrue(ceiling.rate() > 0, flow + " at " + size);
            }
            assertTrue(XPathQuery.compile("/Parent/First = '1'").test(FlowMessage.ofBytes(Domain.XML, body)));
            assertTrue(XPathQuery.compile("/Parent/Last = 'Test'").test(FlowMessage.ofBytes(Domain.XML, body)));
            assertEquals(1, PlainLoops.validate(SaleFlow.SCHEMA).applyAsInt(body), "the message stays valid");
        }
        assertTrue(PlainLoops.transform(SaleFlow.STYLESHEET).applyAsInt(SaleMessage.ofSize(4096)) > 1000,
                "the stylesheet writes a statement per invoice");
    }
}
