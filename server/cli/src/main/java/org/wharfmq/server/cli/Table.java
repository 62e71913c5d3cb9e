package org.wharfmq.server.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * A table for people: a header row, then rows, each column as wide as its widest cell, two spaces apart; numbers
 * right-aligned. What {@code wharf admin} prints without {@code --json}.
 */
final class Table {

    private final String[] headers;
    private final boolean[] rightAligned;
    private final List<String[]> rows = new ArrayList<>();

    /** @param headers the column headers; one starting with {@code >} is right-aligned (the {@code >} is dropped) */
    Table(String... headers) {
        this.headers = new String[headers.length];
        this.rightAligned = new boolean[headers.length];
        for (int c = 0; c < headers.length; c++) {
            rightAligned[c] = headers[c].startsWith(">");
            this.headers[c] = rightAligned[c] ? headers[c].substring(1) : headers[c];
        }
    }

    /** Adds a row; a null cell shows as {@code -}. */
    Table row(Object... cells) {
        String[] row = new String[headers.length];
        for (int c = 0; c < row.length; c++) {
            row[c] = cells[c] == null ? "-" : cells[c].toString();
        }
        rows.add(row);
        return this;
    }

    /** Prints the header and the rows. */
    void print(PrintWriter out) {
        int[] widths = new int[headers.length];
        for (int c = 0; c < headers.length; c++) {
            widths[c] = headers[c].length();
            for (String[] row : rows) {
                widths[c] = Math.max(widths[c], row[c].length());
            }
        }
        StringBuilder line = new StringBuilder();
        print(headers, widths, line);
        for (String[] row : rows) {
            print(row, widths, line);
        }
        out.print(line);
    }

    private void print(String[] cells, int[] widths, StringBuilder out) {
        int start = out.length();
        for (int c = 0; c < cells.length; c++) {
            String pad = " ".repeat(widths[c] - cells[c].length());
            out.append(rightAligned[c] ? pad + cells[c] : c < cells.length - 1 ? cells[c] + pad : cells[c]);
            if (c < cells.length - 1) {
                out.append("  ");
            }
        }
        int end = out.length();
        while (end > start && out.charAt(end - 1) == ' ') {
            end--;
        }
        out.setLength(end);
        out.append('\n');
    }
}
