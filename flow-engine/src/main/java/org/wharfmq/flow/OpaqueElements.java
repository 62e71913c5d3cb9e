package org.wharfmq.flow;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Elements whose content the XML domain does not parse, as App Connect's XMLNSC opaque parsing: a flow that never
 * looks inside, say, the repeating {@code /Parent/SaleList} names it on its input node, and the tree is built with
 * those elements present but empty, at a fraction of the cost of a full parse. XPath still sees the elements
 * ({@code count(/Parent/SaleList)} is right), not what is inside them. The message leaves with its content intact:
 * an unchanged body is sent as the bytes that arrived, and {@link FlowMessage#xmlForUpdate()} parses the whole body.
 *
 * <p>Paths are absolute, element names as written in the message (a prefix included): {@code /Parent/SaleList}.
 * Skipping is a byte scan for the element's matching end tag, with no tokenising of what lies between; it works on
 * bodies in UTF-8 or any other encoding that writes markup in ASCII. Anything it cannot be sure of (UTF-16, a
 * DOCTYPE, markup that does not close) leaves the body to the full parser, which then reports any fault.
 */
public final class OpaqueElements {

    /** Slash, then an element name (no XPath: no predicates, axes, wildcards or functions), once or more. */
    private static final Pattern PATH = Pattern.compile("(/[^/\\s<>\"'=\\[\\]()*@!|,]+)+");

    private final List<String> paths;
    /** Each path's element names as bytes, root first. */
    private final byte[][][] steps;

    private OpaqueElements(List<String> paths) {
        this.paths = List.copyOf(paths);
        this.steps = new byte[paths.size()][][];
        for (int p = 0; p < paths.size(); p++) {
            String[] names = paths.get(p).substring(1).split("/");
            steps[p] = new byte[names.length][];
            for (int s = 0; s < names.length; s++) {
                steps[p][s] = names[s].getBytes(StandardCharsets.UTF_8);
            }
        }
    }

    /**
     * The elements at these absolute paths.
     *
     * @throws IllegalArgumentException for a path that is not of the form {@code /Name/Name...}
     */
    public static OpaqueElements of(String... paths) {
        if (paths.length == 0) {
            throw new IllegalArgumentException("Name at least one element to parse opaquely, e.g. /Parent/SaleList.");
        }
        List<String> checked = new ArrayList<>();
        for (String path : paths) {
            if (path == null || !PATH.matcher(path).matches()) {
                throw new IllegalArgumentException("Opaque element '" + path + "' is not an absolute path of element "
                        + "names such as /Parent/SaleList.");
            }
            checked.add(path);
        }
        return new OpaqueElements(checked);
    }

    /** The paths, as given. */
    public List<String> paths() {
        return paths;
    }

    /**
     * The body with the content of every opaque element removed (start and end tags kept), or {@code body} itself
     * when nothing matched or the scan cannot be sure of the markup.
     */
    byte[] strip(byte[] body) {
        if (!asciiMarkup(body)) {
            return body;
        }
        List<int[]> skipped = new ArrayList<>();
        int[] open = new int[64 * 2]; // the open elements' names: start and end offsets, root first
        int depth = 0;
        int i = 0;
        int n = body.length;
        while (true) {
            i = indexOf(body, (byte) '<', i, n);
            if (i < 0 || i + 1 >= n) {
                break;
            }
            byte c = body[i + 1];
            if (c == '/') {
                depth = Math.max(0, depth - 1);
                i = indexOf(body, (byte) '>', i, n);
            } else if (c == '?') {
                i = indexOf(body, "?>", i + 2, n);
            } else if (c == '!') {
                if (startsWith(body, i, "<!--")) {
                    i = indexOf(body, "-->", i + 4, n);
                } else if (startsWith(body, i, "<![CDATA[")) {
                    i = indexOf(body, "]]>", i + 9, n);
                } else {
                    return body; // a DOCTYPE: the parser refuses it with its own message
                }
            } else {
                int nameEnd = nameEnd(body, i + 1, n);
                int tagEnd = tagEnd(body, nameEnd, n);
                if (tagEnd < 0) {
                    return body;
                }
                if (body[tagEnd - 1] != '/') {
                    if (depth * 2 == open.length) {
                        return body; // deeper than any message we skip inside: leave it to the parser
                    }
                    open[depth * 2] = i + 1;
                    open[depth * 2 + 1] = nameEnd;
                    depth++;
                    if (matches(body, open, depth)) {
                        int close = matchingEndTag(body, i + 1, nameEnd, tagEnd + 1, n);
                        if (close < 0) {
                            return body;
                        }
                        if (close > tagEnd + 1) {
                            skipped.add(new int[] {tagEnd + 1, close});
                        }
                        depth--;
                        i = indexOf(body, (byte) '>', close, n);
                        if (i < 0) {
                            return body;
                        }
                        i++;
                        continue;
                    }
                }
                i = tagEnd;
            }
            if (i < 0) {
                return body;
            }
            i++;
        }
        return skipped.isEmpty() ? body : without(body, skipped);
    }

    /** Whether the open elements, root first, are one of the paths. */
    private boolean matches(byte[] body, int[] open, int depth) {
        for (byte[][] path : steps) {
            if (path.length != depth) {
                continue;
            }
            boolean all = true;
            for (int s = 0; s < depth && all; s++) {
                all = sameName(body, open[s * 2], open[s * 2 + 1], path[s]);
            }
            if (all) {
                return true;
            }
        }
        return false;
    }

    /**
     * The offset of the {@code </} that closes the element named by {@code body[nameStart, nameEnd)}, scanning its
     * content from {@code from}; elements of the same name inside it nest. -1 when it does not close.
     */
    private static int matchingEndTag(byte[] body, int nameStart, int nameEnd, int from, int n) {
        int nesting = 1;
        int i = from;
        while (true) {
            i = indexOf(body, (byte) '<', i, n);
            if (i < 0 || i + 1 >= n) {
                return -1;
            }
            byte c = body[i + 1];
            if (c == '/') {
                int end = nameEnd(body, i + 2, n);
                if (sameName(body, i + 2, end, body, nameStart, nameEnd) && --nesting == 0) {
                    return i;
                }
                i = end;
            } else if (c == '!' && startsWith(body, i, "<!--")) {
                i = indexOf(body, "-->", i + 4, n);
            } else if (c == '!' && startsWith(body, i, "<![CDATA[")) {
                i = indexOf(body, "]]>", i + 9, n);
            } else if (c == '?') {
                i = indexOf(body, "?>", i + 2, n);
            } else {
                int end = nameEnd(body, i + 1, n);
                int tagEnd = tagEnd(body, end, n);
                if (tagEnd < 0) {
                    return -1;
                }
                if (body[tagEnd - 1] != '/' && sameName(body, i + 1, end, body, nameStart, nameEnd)) {
                    nesting++;
                }
                i = tagEnd;
            }
            if (i < 0) {
                return -1;
            }
            i++;
        }
    }

    private static byte[] without(byte[] body, List<int[]> skipped) {
        int removed = 0;
        for (int[] range : skipped) {
            removed += range[1] - range[0];
        }
        byte[] kept = new byte[body.length - removed];
        int from = 0;
        int to = 0;
        for (int[] range : skipped) {
            System.arraycopy(body, from, kept, to, range[0] - from);
            to += range[0] - from;
            from = range[1];
        }
        System.arraycopy(body, from, kept, to, body.length - from);
        return kept;
    }

    /** False for UTF-16 and UTF-32 (a byte order mark, or a zero byte beside the first {@code <}). */
    private static boolean asciiMarkup(byte[] body) {
        return body.length >= 2 && body[0] != 0 && body[1] != 0 && (body[0] & 0xff) != 0xfe
                && (body[0] & 0xff) != 0xff;
    }

    /** The end of the name starting at {@code i}: the first space, {@code /} or {@code >}. */
    private static int nameEnd(byte[] body, int i, int n) {
        while (i < n) {
            byte c = body[i];
            if (c == '>' || c == '/' || c == ' ' || c == '\t' || c == '\n' || c == '\r') {
                return i;
            }
            i++;
        }
        return n;
    }

    /** The offset of the {@code >} that ends the tag whose attributes start at {@code i} (quoted values skipped). */
    private static int tagEnd(byte[] body, int i, int n) {
        while (i < n) {
            byte c = body[i];
            if (c == '>') {
                return i;
            }
            if (c == '"' || c == '\'') {
                i = indexOf(body, c, i + 1, n);
                if (i < 0) {
                    return -1;
                }
            }
            i++;
        }
        return -1;
    }

    private static boolean sameName(byte[] body, int start, int end, byte[] name) {
        return sameName(body, start, end, name, 0, name.length);
    }

    private static boolean sameName(byte[] a, int aStart, int aEnd, byte[] b, int bStart, int bEnd) {
        return Arrays.equals(a, aStart, aEnd, b, bStart, bEnd);
    }

    private static boolean startsWith(byte[] body, int i, String prefix) {
        if (i + prefix.length() > body.length) {
            return false;
        }
        for (int k = 0; k < prefix.length(); k++) {
            if (body[i + k] != prefix.charAt(k)) {
                return false;
            }
        }
        return true;
    }

    private static int indexOf(byte[] body, byte b, int from, int n) {
        for (int i = from; i < n; i++) {
            if (body[i] == b) {
                return i;
            }
        }
        return -1;
    }

    /** The offset of the last byte of {@code text} found from {@code from}, or -1. */
    private static int indexOf(byte[] body, String text, int from, int n) {
        byte first = (byte) text.charAt(0);
        for (int i = indexOf(body, first, from, n); i >= 0; i = indexOf(body, first, i + 1, n)) {
            if (startsWith(body, i, text)) {
                return i + text.length() - 1;
            }
        }
        return -1;
    }

    @Override
    public String toString() {
        return String.join(", ", paths);
    }
}
