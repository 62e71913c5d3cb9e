package org.wharfmq.flow;

import net.sf.saxon.lib.ErrorReporter;
import net.sf.saxon.s9api.Location;
import net.sf.saxon.s9api.QName;
import net.sf.saxon.s9api.XmlProcessingError;

/**
 * Where Saxon reports the warnings and errors of the flow engine's {@link Xml#processor() processor} (a stylesheet's
 * compile errors, an XSLT dynamic error, a warning): the server's log, through one stateless reporter that every
 * evaluation shares. Saxon's default makes a {@code StandardErrorReporter} for every controller, that is for every
 * XPath evaluation and every transformation, and with it a logger whose {@code PrintWriter} on {@code System.err}
 * allocates its buffers (some 24 KB) whether anything is reported or not. Errors are also thrown to the node that
 * ran the expression, which fails the invocation as usual; this only says where Saxon's own account of them goes.
 */
final class SaxonReports implements ErrorReporter {

    /** The one reporter: it keeps no state, so any number of threads may report at once. */
    static final SaxonReports SHARED = new SaxonReports();

    private static final System.Logger LOG = System.getLogger(SaxonReports.class.getName());

    private SaxonReports() {
    }

    @Override
    public void report(XmlProcessingError error) {
        LOG.log(System.Logger.Level.WARNING, () -> describe(error));
    }

    /** The report as a line: its kind, Saxon's error code, where, and Saxon's message. */
    static String describe(XmlProcessingError error) {
        StringBuilder line = new StringBuilder("Saxon ")
                .append(error.isWarning() ? "warning" : error.isStaticError() ? "static error" : "error");
        QName code = error.getErrorCode();
        if (code != null) {
            line.append(' ').append(code.getLocalName());
        }
        Location where = error.getLocation();
        if (where != null && where.getLineNumber() > 0) {
            line.append(" on line ").append(where.getLineNumber());
        }
        if (where != null && where.getSystemId() != null) {
            line.append(" of ").append(where.getSystemId());
        }
        return line.append(": ").append(error.getMessage()).toString();
    }
}
