package org.wharfmq.flow;

import org.xml.sax.SAXParseException;

/**
 * A message body that is not well-formed XML, or that the XML domain refuses (a DOCTYPE). The message names the
 * line and column, so the sender can find the fault; in a flow it goes down the failure or backout path like any
 * node failure.
 */
public final class XmlParseException extends RuntimeException {

    XmlParseException(Exception cause) {
        super(describe(cause), cause);
    }

    private static String describe(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof NestingLimit.TooDeep deep) {
                return "The message body is nested too deeply (line " + deep.getLineNumber() + ", column "
                        + deep.getColumnNumber() + "): " + deep.getMessage();
            }
            if (t instanceof SAXParseException parse) {
                return "The message body is not well-formed XML (line " + parse.getLineNumber() + ", column "
                        + parse.getColumnNumber() + "): " + parse.getMessage();
            }
        }
        return "The message body is not well-formed XML: " + failure.getMessage();
    }
}
