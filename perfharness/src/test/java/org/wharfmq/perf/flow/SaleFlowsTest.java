package org.wharfmq.perf.flow;

import org.junit.jupiter.api.Test;
import org.wharfmq.flow.Domain;
import org.wharfmq.flow.FlowMessage;
import org.wharfmq.flow.Folder;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.XPathQuery;
import org.wharfmq.flow.records.RecordFormat;
import com.fasterxml.jackson.databind.node.ArrayNode;

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
    void theRecordsMessagesHoldTheSaleMessagesItemsAndParseReadsTheLastOne() {
        int items = Integer.parseInt(XPathQuery.compile("count(//Item)")
                .string(FlowMessage.ofBytes(Domain.XML, SaleMessage.ofSize(4096))));
        for (RecordFormat format : new RecordFormat[] {SaleRecords.CSV, SaleRecords.FIXED}) {
            byte[] body = format == SaleRecords.CSV ? SaleRecords.csvOfSize(4096) : SaleRecords.fixedOfSize(4096);
            ArrayNode records = format.parse(body);
            assertEquals(items, records.size(), "one record per Item");
            assertEquals("Braithwaite", records.get(0).get("Surname").asText());
            assertEquals("KA", records.get(0).get("Initials").asText());
            MessageAssembly out = SaleRecords.readLast(records(format, body));
            assertEquals("Euros", out.message().userProperty("Last"), "the last Item's Invoice is in Euros");
            assertEquals(0, out.message().bodyBytes().length, "headers only");
        }
        assertEquals(100 * items, SaleRecords.fixedOfSize(4096).length, "100-byte records, one after the other");
    }

    @Test
    void writeTurnsTheSaleIntoTheRecordsOfItsItems() {
        MessageAssembly sale = input(SaleMessage.ofSize(4096));
        String csv = SaleRecords.writeAs(SaleRecords.CSV).apply(sale).message().bodyText();
        assertEquals(new String(SaleRecords.csvOfSize(4096), StandardCharsets.UTF_8), csv);
        assertTrue(csv.startsWith("Surname,Initials,Codes,Description,Category,Price,Quantity,Currency\n"
                + "Braithwaite,KA,000102,Twister,Games,00.30,01,Sterling\n"), csv);
        String fixed = SaleRecords.writeAs(SaleRecords.FIXED).apply(sale).message().bodyText();
        assertEquals("Braithwaite         KA  000102  Twister                       Games               "
                + "000.300001Sterling", fixed.substring(0, 100));
    }

    private static MessageAssembly records(RecordFormat format, byte[] body) {
        MessageAssembly assembly = MessageAssembly.of(FlowMessage.ofBytes(Domain.BLOB, body).parseAs(format),
                Folder.empty("Env"));
        assembly.freeze();
        return assembly;
    }

    @Test
    void everyCeilingRunsOnTheMessageAndTheConditionsHoldAsInTheSeed() {
        for (int size : new int[] {4096, 65536}) {
            byte[] body = SaleMessage.ofSize(size);
            for (BenchmarkFlow flow : BenchmarkFlow.values()) {
                if (!flow.hasCeiling() || size > 4096 && flow.loopWithMessaging()) {
                    continue; // a JMS loop starts a server of its own: once, at 4 KB, is enough
                }
                BenchmarkFlow.Ceiling ceiling = flow.ceiling(flow.message(size), 0, 20, false);
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
