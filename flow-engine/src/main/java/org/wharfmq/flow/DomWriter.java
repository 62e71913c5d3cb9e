package org.wharfmq.flow;

import org.w3c.dom.Attr;
import org.w3c.dom.Document;
import org.w3c.dom.NamedNodeMap;
import org.w3c.dom.Node;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Writes a changed body (a W3C DOM document) as UTF-8 XML without a declaration, byte for byte as Saxon's serializer
 * writes it ({@link Xml#serializeBytes}), straight from the DOM into one array: the characters escaped and encoded in
 * one pass, no wrapper object per node, no encoder between the tree and the bytes (Saxon's write of a 4 MB DOM went
 * through a wrapper per node and a stream grown by doubling).
 *
 * <p>It writes what a body without namespaces holds: elements and attributes with no namespace and no prefix (DOM
 * level 1 ones too), text and CDATA sections (written as text, as Saxon writes them), comments and processing
 * instructions. On anything else (a namespace or its declaration, an entity reference, a document type, a character
 * that Saxon writes as a character reference or refuses, a comment or instruction Saxon would refuse) it gives up and
 * {@link #write} answers null, and the caller serialises with Saxon: the output is Saxon's either way.
 *
 * <p>Confined to the thread that calls {@link #write}: one object per write.
 */
final class DomWriter {

    /** Characters escaped in text below 0x80, and what each becomes; null: written as it is. */
    private static final byte[][] TEXT_ESCAPES = new byte[128][];
    /** The same in attribute values. */
    private static final byte[][] ATTRIBUTE_ESCAPES = new byte[128][];
    /** The same in comments and processing instructions, which are written as they are. */
    private static final byte[][] RAW = new byte[128][];
    /** Marks a character below 0x80 that this writer leaves to Saxon (a control character XML 1.0 does not allow). */
    private static final byte[] UNWRITABLE = new byte[0];
    /** Characters of a string encoded between two checks of the room left: each takes at most 6 bytes. */
    private static final int SEGMENT = 1024;
    private static final int MOST_BYTES_PER_CHAR = 6;
    private static final byte[] EMPTY_END = ascii("/>");
    private static final byte[] COMMENT_START = ascii("<!--");
    private static final byte[] COMMENT_END = ascii("-->");
    private static final byte[] INSTRUCTION_START = ascii("<?");
    private static final byte[] INSTRUCTION_END = ascii("?>");

    static {
        for (int c = 0; c < 0x20; c++) {
            TEXT_ESCAPES[c] = UNWRITABLE;
            ATTRIBUTE_ESCAPES[c] = UNWRITABLE;
            RAW[c] = UNWRITABLE;
        }
        RAW['\t'] = null;
        RAW['\n'] = null;
        RAW[0x7f] = UNWRITABLE;
        TEXT_ESCAPES['\t'] = null;
        TEXT_ESCAPES['\n'] = null;
        TEXT_ESCAPES['\r'] = ascii("&#xD;");
        TEXT_ESCAPES['<'] = ascii("&lt;");
        TEXT_ESCAPES['>'] = ascii("&gt;");
        TEXT_ESCAPES['&'] = ascii("&amp;");
        TEXT_ESCAPES[0x7f] = UNWRITABLE;
        ATTRIBUTE_ESCAPES['\t'] = ascii("&#x9;");
        ATTRIBUTE_ESCAPES['\n'] = ascii("&#xA;");
        ATTRIBUTE_ESCAPES['\r'] = ascii("&#xD;");
        ATTRIBUTE_ESCAPES['<'] = ascii("&lt;");
        ATTRIBUTE_ESCAPES['>'] = ascii("&gt;");
        ATTRIBUTE_ESCAPES['&'] = ascii("&amp;");
        ATTRIBUTE_ESCAPES['"'] = ascii("&#34;");
        ATTRIBUTE_ESCAPES[0x7f] = UNWRITABLE;
    }

    private byte[] out;
    private int count;

    private DomWriter(int capacity) {
        out = new byte[Math.max(capacity, 256)];
    }

    /**
     * {@code document} written, or null when it holds something this writer leaves to Saxon (see the class).
     *
     * @param sizeHint the bytes the output is expected to take (the body it was parsed from), to size the array once
     */
    static DomWriter write(Document document, int sizeHint) {
        DomWriter writer = new DomWriter(sizeHint + (sizeHint >> 4) + 64);
        return writer.document(document) ? writer : null;
    }

    /** The bytes written, in an array of their own length. */
    byte[] bytes() {
        return count == out.length ? out : Arrays.copyOf(out, count);
    }

    /** The text written. */
    String text() {
        return new String(out, 0, count, StandardCharsets.UTF_8);
    }

    private boolean document(Document document) {
        Node node = document.getFirstChild();
        if (node == null) {
            return true;
        }
        while (true) {
            Node child = null;
            switch (node.getNodeType()) {
                case Node.ELEMENT_NODE -> {
                    if (!startTag(node)) {
                        return false;
                    }
                    child = node.getFirstChild();
                    if (child == null) {
                        ascii(EMPTY_END);
                    } else {
                        ascii('>');
                    }
                }
                case Node.TEXT_NODE, Node.CDATA_SECTION_NODE -> {
                    if (!escaped(node.getNodeValue(), TEXT_ESCAPES, false)) {
                        return false;
                    }
                }
                case Node.COMMENT_NODE -> {
                    if (!comment(node.getNodeValue())) {
                        return false;
                    }
                }
                case Node.PROCESSING_INSTRUCTION_NODE -> {
                    if (!instruction(node.getNodeName(), node.getNodeValue())) {
                        return false;
                    }
                }
                default -> {
                    return false; // an entity reference, a document type: Saxon's
                }
            }
            if (child != null) {
                node = child;
                continue;
            }
            Node next = node.getNextSibling();
            while (next == null) {
                node = node.getParentNode();
                if (node == document) {
                    return true;
                }
                endTag(node);
                next = node.getNextSibling();
            }
            node = next;
        }
    }

    /** {@code <name attributes}, or false for a name or attribute in a namespace (Saxon's). */
    private boolean startTag(Node element) {
        String name = element.getNodeName();
        if (element.getNamespaceURI() != null || name.indexOf(':') >= 0) {
            return false;
        }
        room(name.length() * 3 + 1);
        out[count++] = '<';
        name(name);
        if (!element.hasAttributes()) {
            return true; // and no attribute map made for none (Xerces makes one on asking)
        }
        NamedNodeMap attributes = element.getAttributes();
        for (int i = 0, n = attributes.getLength(); i < n; i++) {
            Attr attribute = (Attr) attributes.item(i);
            String attributeName = attribute.getName();
            if (attribute.getNamespaceURI() != null || attributeName.indexOf(':') >= 0
                    || attributeName.equals("xmlns")) {
                return false;
            }
            room(attributeName.length() * 3 + 3);
            out[count++] = ' ';
            name(attributeName);
            out[count++] = '=';
            out[count++] = '"';
            if (!escaped(attribute.getValue(), ATTRIBUTE_ESCAPES, false)) {
                return false;
            }
            ascii('"');
        }
        return true;
    }

    private void endTag(Node element) {
        String name = element.getNodeName();
        room(name.length() * 3 + 3);
        out[count++] = '<';
        out[count++] = '/';
        name(name);
        out[count++] = '>';
    }

    /** {@code <!--text-->}, or false for one Saxon refuses or writes otherwise. */
    private boolean comment(String text) {
        if (text.contains("--") || text.endsWith("-")) {
            return false;
        }
        ascii(COMMENT_START);
        if (!escaped(text, null, true)) {
            return false;
        }
        ascii(COMMENT_END);
        return true;
    }

    /** {@code <?target data?>}, or false for one Saxon refuses or writes otherwise. */
    private boolean instruction(String target, String data) {
        if (target.indexOf(':') >= 0 || data.contains("?>") || !data.isEmpty() && data.charAt(0) <= ' ') {
            return false;
        }
        ascii(INSTRUCTION_START);
        room(target.length() * 3);
        name(target);
        if (!data.isEmpty()) {
            ascii(' ');
            if (!escaped(data, null, true)) {
                return false;
            }
        }
        ascii(INSTRUCTION_END);
        return true;
    }

    /** A name as UTF-8 (a DOM name is a valid XML name: nothing to escape); room for 3 bytes a char made already. */
    private void name(String name) {
        for (int i = 0, n = name.length(); i < n; i++) {
            char c = name.charAt(i);
            if (c < 0x80) {
                out[count++] = (byte) c;
            } else if (c < 0x800) {
                out[count++] = (byte) (0xc0 | c >> 6);
                out[count++] = (byte) (0x80 | c & 0x3f);
            } else if (Character.isHighSurrogate(c) && i + 1 < n) {
                codePoint(Character.toCodePoint(c, name.charAt(++i)));
            } else {
                out[count++] = (byte) (0xe0 | c >> 12);
                out[count++] = (byte) (0x80 | c >> 6 & 0x3f);
                out[count++] = (byte) (0x80 | c & 0x3f);
            }
        }
    }

    /**
     * {@code text} escaped with {@code escapes} and encoded as UTF-8, or with {@code raw} as it is (a comment's, an
     * instruction's: a control character but tab and line feed is left to Saxon); false when it holds a character left
     * to Saxon.
     */
    private boolean escaped(String text, byte[][] escapes, boolean raw) {
        int n = text.length();
        if (n == 0) {
            return escapes != TEXT_ESCAPES; // an empty text node: Saxon's (it may close the start tag for it)
        }
        int i = 0;
        while (i < n) {
            int end = Math.min(n, i + SEGMENT);
            room((end - i) * MOST_BYTES_PER_CHAR); // a pair's second half past the end fits in its first's room
            byte[] b = out;
            int at = count;
            for (; i < end; i++) {
                char c = text.charAt(i);
                if (c < 0x80) {
                    byte[] escape = raw ? RAW[c] : escapes[c];
                    if (escape == null) {
                        b[at++] = (byte) c;
                    } else if (escape == UNWRITABLE) {
                        return false;
                    } else {
                        for (byte e : escape) {
                            b[at++] = e;
                        }
                    }
                } else if (c < 0x800) {
                    if (c < 0xa0) {
                        return false; // C1 controls: Saxon writes them as character references
                    }
                    b[at++] = (byte) (0xc0 | c >> 6);
                    b[at++] = (byte) (0x80 | c & 0x3f);
                } else if (Character.isSurrogate(c)) {
                    if (!Character.isHighSurrogate(c) || i + 1 >= n || !Character.isLowSurrogate(text.charAt(i + 1))) {
                        return false; // a lone surrogate: not a character
                    }
                    int cp = Character.toCodePoint(c, text.charAt(++i));
                    b[at++] = (byte) (0xf0 | cp >> 18);
                    b[at++] = (byte) (0x80 | cp >> 12 & 0x3f);
                    b[at++] = (byte) (0x80 | cp >> 6 & 0x3f);
                    b[at++] = (byte) (0x80 | cp & 0x3f);
                } else {
                    if (c >= 0xfffe || c == 0x2028) {
                        return false; // not XML characters, or (the line separator) one Saxon may escape
                    }
                    b[at++] = (byte) (0xe0 | c >> 12);
                    b[at++] = (byte) (0x80 | c >> 6 & 0x3f);
                    b[at++] = (byte) (0x80 | c & 0x3f);
                }
            }
            count = at;
        }
        return true;
    }

    private void codePoint(int cp) {
        room(4);
        out[count++] = (byte) (0xf0 | cp >> 18);
        out[count++] = (byte) (0x80 | cp >> 12 & 0x3f);
        out[count++] = (byte) (0x80 | cp >> 6 & 0x3f);
        out[count++] = (byte) (0x80 | cp & 0x3f);
    }

    private void ascii(byte[] bytes) {
        room(bytes.length);
        System.arraycopy(bytes, 0, out, count, bytes.length);
        count += bytes.length;
    }

    private void ascii(char c) {
        room(1);
        out[count++] = (byte) c;
    }

    /** Makes room for {@code bytes} more. */
    private void room(int bytes) {
        if (count + bytes > out.length) {
            out = Arrays.copyOf(out, Math.max(out.length * 2, count + bytes));
        }
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
