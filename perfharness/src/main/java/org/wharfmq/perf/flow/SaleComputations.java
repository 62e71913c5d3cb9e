package org.wharfmq.perf.flow;

import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.XPathQuery;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;

/**
 * The JavaCompute work of the XML broker workloads, as seed 002 describes each test's compute node. Each is a
 * plain function of the (read-only) input assembly, so the harness can also time it in a loop without messaging
 * (the workload's ceiling).
 */
final class SaleComputations {

    /** The sale message's last element (after every SaleList): reading it needs the whole body parsed. */
    static final XPathQuery LAST = XPathQuery.compile("/Parent/Last");
    /** What F-WRITE puts in the last element. */
    static final String CHANGED_LAST = "Changed";
    /** Pounds per unit of each currency the sale message uses, for InvoicesTotal (the seed's example: 0.7). */
    private static final BigDecimal EUROS_IN_STERLING = new BigDecimal("0.7");
    private static final byte[] NO_PAYLOAD = new byte[0];

    private SaleComputations() {
    }

    /**
     * F-PARSE (seed 002, "Parsing an XML Input Message"): the headers copied, a variable set to the last element
     * (a full parse), no payload out. The value goes out as property {@code Last}, so the work cannot be skipped.
     */
    static MessageAssembly readLast(MessageAssembly input) {
        MessageAssembly out = input.copy();
        out.message().setUserProperty("Last", LAST.string(input.message()));
        out.message().setBody(NO_PAYLOAD);
        return out;
    }

    /**
     * F-WRITE (seed 002, "Writing a Generic XMLNSC Output Message"): the whole message copied, the last element
     * changed, the message written out.
     */
    static MessageAssembly changeLast(MessageAssembly input) {
        MessageAssembly out = input.copy();
        Document body = out.message().xmlForUpdate();
        lastElement(body.getDocumentElement()).setTextContent(CHANGED_LAST);
        return out;
    }

    /**
     * F-COMPUTE (seed 002, "Computation on an Input Message", the "Compute message" of its appendix): each
     * Invoice's Balance recomputed as the sum of Price x Quantity, and an {@code InvoicesTotal Currency="Sterling"}
     * appended to each SaleList (Euros at 0.7), the whole message written out. Decimal arithmetic, so the totals
     * are exact (the fixture's example gives 57.116).
     */
    static MessageAssembly computeTotals(MessageAssembly input) {
        MessageAssembly out = input.copy();
        Document body = out.message().xmlForUpdate();
        // a list taken before the changes: getElementsByTagName's list is live, and each change below would make
        // its next item() search the document again from the start (1 MB took 1.6 s a message so)
        for (Element saleList : children(body.getDocumentElement(), "SaleList")) {
            BigDecimal total = BigDecimal.ZERO;
            for (Element invoice : children(saleList, "Invoice")) {
                BigDecimal balance = BigDecimal.ZERO;
                for (Element item : children(invoice, "Item")) {
                    BigDecimal price = new BigDecimal(text(item, "Price"));
                    balance = balance.add(price.multiply(new BigDecimal(text(item, "Quantity"))));
                }
                first(invoice, "Balance").setTextContent(balance.toPlainString());
                String currency = text(invoice, "Currency");
                total = total.add(currency.startsWith("Eur") ? balance.multiply(EUROS_IN_STERLING) : balance);
            }
            Element invoicesTotal = body.createElement("InvoicesTotal");
            invoicesTotal.setAttribute("Currency", "Sterling");
            invoicesTotal.setTextContent(total.toPlainString());
            saleList.appendChild(invoicesTotal);
        }
        return out;
    }

    private static Element lastElement(Element parent) {
        for (Node n = parent.getLastChild(); n != null; n = n.getPreviousSibling()) {
            if (n instanceof Element e) {
                return e;
            }
        }
        throw new IllegalArgumentException("<" + parent.getTagName() + "> has no child element");
    }

    private static List<Element> children(Element parent, String name) {
        List<Element> found = new ArrayList<>();
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(name)) {
                found.add(e);
            }
        }
        return found;
    }

    private static Element first(Element parent, String name) {
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(name)) {
                return e;
            }
        }
        throw new IllegalArgumentException("<" + parent.getTagName() + "> has no <" + name + ">");
    }

    private static String text(Element parent, String name) {
        return first(parent, name).getTextContent().strip();
    }
}
