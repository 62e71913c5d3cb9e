package org.wharfmq.flow;

import org.xml.sax.SAXParseException;

/**
 * A message body that breaks its XML Schema: the message names the schema, the line and column, and the rule
 * (Xerces' own words, e.g. {@code cvc-maxLength-valid}).
 */
public final class XmlValidationException extends RuntimeException {

    XmlValidationException(String schema, SAXParseException cause) {
        super("The message body is not valid against " + schema + " (line " + cause.getLineNumber() + ", column "
                + cause.getColumnNumber() + "): " + cause.getMessage(), cause);
    }
}
