package org.wharfmq.perf.flow;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The broker workloads' input message: the seed report 002's standard message ({@code wmb-sale-1k.xml}, copied
 * from {@code shared/fixtures/}: a Parent with First, one SaleList and Last, 1049 bytes) with its SaleList
 * repeated to reach a size, as the report reached 4K to 1 MB. Each repetition numbers its Surnames (so the
 * strings differ from one SaleList to the next, as the report's did; Surnames stay within the schema's 20
 * characters), so the message stays valid against {@code wmb-sale.xsd}.
 */
public final class SaleMessage {

    private static final String RESOURCE = "wmb-sale-1k.xml";
    private static final String TEMPLATE = load();
    private static final String HEAD = TEMPLATE.substring(0, TEMPLATE.indexOf("<SaleList>"));
    private static final String SALE_LIST = TEMPLATE.substring(HEAD.length(),
            TEMPLATE.indexOf("</SaleList>") + "</SaleList>".length());
    private static final String TAIL = TEMPLATE.substring(HEAD.length() + SALE_LIST.length());

    private SaleMessage() {
    }

    /**
     * The message with as many SaleLists as bring it nearest to {@code targetBytes} (at least one): 4 KB gives
     * 4,052 bytes, 16 KB 16,076, 64 KB 65,223, 256 KB 262,133, 1 MB 1,048,129. UTF-8 (the message is ASCII).
     */
    public static byte[] ofSize(int targetBytes) {
        int repetitions = 1;
        while (Math.abs(length(repetitions + 1) - targetBytes) < Math.abs(length(repetitions) - targetBytes)) {
            repetitions++;
        }
        StringBuilder xml = new StringBuilder(length(repetitions) + 64).append(HEAD);
        for (int i = 0; i < repetitions; i++) {
            String suffix = i == 0 ? "" : Integer.toString(i);
            xml.append(SALE_LIST.replace("</Surname>", suffix + "</Surname>"));
        }
        return xml.append(TAIL).toString().getBytes(StandardCharsets.UTF_8);
    }

    /** The length of the message with {@code repetitions} SaleLists (numbered Surnames grow with the count). */
    private static int length(int repetitions) {
        int surnames = SALE_LIST.split("</Surname>", -1).length - 1;
        int length = HEAD.length() + TAIL.length() + repetitions * SALE_LIST.length();
        for (int i = 1; i < repetitions; i++) {
            length += surnames * Integer.toString(i).length();
        }
        return length;
    }

    private static String load() {
        try (InputStream in = SaleMessage.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is missing from the perf harness jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
