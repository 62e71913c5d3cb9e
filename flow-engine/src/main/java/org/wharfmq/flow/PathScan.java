package org.wharfmq.flow;

import org.xml.sax.Attributes;
import org.xml.sax.SAXException;
import org.xml.sax.helpers.DefaultHandler;

import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The on-demand form of a simple XPath condition, {@code /A/B/C} or {@code /A/B/C = 'text'}: answered by reading
 * the body with the SAX parser only as far as the answer needs, with no tree built. An element near the start of a
 * large message is then found for the price of the bytes before it, as with XMLNSC's on-demand parsing.
 *
 * <p>The answer is XPath's: the path selects every element on it, so {@code /A/B = 'x'} is true at the first
 * such element whose string value (all its text, descendants included) is {@code x}, and false only once the
 * whole body has been read. The difference from a full parse is the part not read: a fault after the answer is
 * not seen (which is what {@link ParseTiming#ON_DEMAND} means). What precedes the answer is parsed as strictly as
 * ever: a DOCTYPE or a fault there fails as {@link XmlParseException}.
 */
final class PathScan {

    private static final String NAME = "(?:[A-Za-z_][\\w.\\-]*:)?[A-Za-z_][\\w.\\-]*";
    private static final Pattern SIMPLE = Pattern.compile(
            "\\s*((?:/\\s*" + NAME + "\\s*)+)(?:=\\s*(?:'([^']*)'|\"([^\"]*)\")\\s*)?");

    private final String[] uris;
    private final String[] locals;
    /** The text the element's string value must equal, or null when the element's presence is the answer. */
    private final String literal;

    private PathScan(String[] uris, String[] locals, String literal) {
        this.uris = uris;
        this.locals = locals;
        this.literal = literal;
    }

    /**
     * The scan for {@code expression} if it is of a form a scan answers exactly, else null (the expression is then
     * evaluated on the tree). Call after XPath has compiled the expression, so that it is known to be valid.
     */
    static PathScan of(String expression, Map<String, String> namespaces) {
        Matcher m = SIMPLE.matcher(expression);
        if (!m.matches()) {
            return null;
        }
        String[] steps = m.group(1).trim().substring(1).split("/");
        String[] uris = new String[steps.length];
        String[] locals = new String[steps.length];
        for (int i = 0; i < steps.length; i++) {
            String step = steps[i].trim();
            int colon = step.indexOf(':');
            if (colon < 0) {
                uris[i] = "";
                locals[i] = step;
            } else {
                String uri = namespaces.get(step.substring(0, colon));
                if (uri == null) {
                    return null;
                }
                uris[i] = uri;
                locals[i] = step.substring(colon + 1);
            }
        }
        String literal = m.group(2) != null ? m.group(2) : m.group(3);
        return new PathScan(uris, locals, literal);
    }

    /**
     * The condition's value for this body, reading no further than needed.
     *
     * @throws XmlParseException when the body is not well-formed before the answer, or has a DOCTYPE
     */
    boolean test(byte[] bytes, String text) {
        Handler handler = new Handler();
        try {
            Xml.scan(bytes, text, handler);
        } catch (Answered answered) {
            return true;
        } catch (SAXException e) {
            throw new XmlParseException(e);
        }
        return false;
    }

    /** Thrown to stop the parser once the answer is known; no stack trace, as it is no error. */
    private static final class Answered extends SAXException {
        static final Answered INSTANCE = new Answered();

        private Answered() {
            super("answered");
        }

        @Override
        public synchronized Throwable fillInStackTrace() {
            return this;
        }
    }

    /** Tracks how many leading steps of the path the open elements match, and the matching element's text. */
    private final class Handler extends DefaultHandler {
        private int depth;
        private int matched;
        private StringBuilder value;

        @Override
        public void startElement(String uri, String localName, String qName, Attributes attributes)
                throws SAXException {
            if (matched == depth && depth < locals.length && locals[depth].equals(localName)
                    && Objects.equals(uris[depth], uri)) {
                matched++;
                if (matched == locals.length) {
                    if (literal == null) {
                        throw Answered.INSTANCE;
                    }
                    value = value == null ? new StringBuilder() : value;
                    value.setLength(0);
                }
            }
            depth++;
        }

        @Override
        public void characters(char[] ch, int start, int length) {
            if (matched == locals.length) {
                value.append(ch, start, length);
            }
        }

        @Override
        public void endElement(String uri, String localName, String qName) throws SAXException {
            depth--;
            if (matched > depth) {
                if (matched == locals.length && literal.contentEquals(value)) {
                    throw Answered.INSTANCE;
                }
                matched = depth;
            }
        }
    }
}
