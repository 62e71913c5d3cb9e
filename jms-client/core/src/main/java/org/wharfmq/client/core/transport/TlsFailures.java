package org.wharfmq.client.core.transport;

import javax.net.ssl.SSLException;
import java.io.IOException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.util.Locale;

/**
 * Says why a TLS handshake with a Wharf server failed and what fixes it, from what the JDK reports (an exception
 * whose message or cause names the problem): the JDK's own words ("PKIX path building failed") tell an application
 * developer little. The JDK's message stays attached as the cause.
 */
final class TlsFailures {

    private static final String CLIENT_CERTIFICATE_FIX = " to a certificate issued by a CA in the server's "
            + "tls.trustStore or tls.trustCertificates";

    private TlsFailures() {
    }

    /**
     * Why the handshake failed and the fix.
     *
     * @param failure what the TLS stack threw (during the handshake, or on the first read when the server refused the
     *                client's certificate after a TLS 1.3 handshake)
     * @param host    the host connected to
     * @param tls     the client's settings
     */
    static String describe(IOException failure, String host, ClientTls tls) {
        if (!(failure instanceof SSLException)) {
            return "the server closed the TLS connection before answering HELLO (" + failure + "). A server whose "
                    + "tls.clientAuth is required does so when " + (tls.keyStore() == null ? "the client has no certificate"
                    : "it does not trust this client's certificate (keyStore " + tls.keyStore() + ")") + ": "
                    + clientCertificateFix(tls)
                    + "; else see the server's log";
        }
        String all = chain(failure);
        if (has(failure, CertificateExpiredException.class)) {
            return "the server's TLS certificate has expired (" + causeMessage(failure, CertificateExpiredException.class)
                    + "); the server's operator must renew it";
        }
        if (has(failure, CertificateNotYetValidException.class)) {
            return "the server's TLS certificate is not valid yet (" + causeMessage(failure,
                    CertificateNotYetValidException.class) + "); check the clocks of both machines";
        }
        if (all.contains("no subject alternative") || all.contains("no name matching")) {
            return "the server's TLS certificate is not issued for host '" + host + "' (" + deepest(failure) + "); connect "
                    + "with a host name the certificate holds, or have it reissued with '" + host + "' as a subject "
                    + "alternative name (verifyHost=false turns this check off, which lets anyone in the middle pose as the server)";
        }
        if (all.contains("pkix path") || all.contains("unable to find valid certification path")
                || all.contains("signature check failed") || all.contains("path does not chain")) {
            return "the server's TLS certificate is not trusted: it does not chain to a CA in "
                    + (tls.trustStore() == null ? "the JDK's default trust store" : "trustStore " + tls.trustStore())
                    + "; add the CA that issued the server's certificate to the trust store (" + tls.option("trustStore")
                    + ")";
        }
        if (all.contains("certificate_required") || all.contains("bad_certificate") || all.contains("unknown_ca")
                || all.contains("certificate_unknown")) {
            return (tls.keyStore() == null ? "the server requires a client certificate and this client has none"
                    : "the server did not accept this client's certificate (keyStore " + tls.keyStore() + ")")
                    + " (" + deepest(failure) + "); " + clientCertificateFix(tls);
        }
        if (all.contains("protocol_version") || all.contains("no appropriate protocol") || all.contains("handshake_failure")
                || all.contains("insufficient_security") || all.contains("no cipher suites in common")) {
            return "the client and the server have no TLS protocol version or cipher suite in common (" + deepest(failure)
                    + "); this client offers " + tls.protocols() + " (" + tls.option("protocols") + ", "
                    + tls.option("cipherSuites") + "), compare "
                    + "with the server's tls.protocols and tls.cipherSuites";
        }
        if (all.contains("unrecognized ssl message") || all.contains("plaintext connection")
                || all.contains("not an ssl/tls record") // Netty's SslHandler
                || all.contains("remote host terminated the handshake") || all.contains("unexpected end of file")) {
            return "the server did not answer in TLS (" + deepest(failure) + "): this is probably its plain port; connect "
                    + "with tcp:// to it, or with ssl:// to the server's TLS port (its setting tls.port, 7415 by default)";
        }
        return "the TLS handshake failed: " + deepest(failure);
    }

    private static String clientCertificateFix(ClientTls tls) {
        return "set the " + tls.option("keyStore") + CLIENT_CERTIFICATE_FIX;
    }

    private static boolean has(Throwable t, Class<? extends Throwable> type) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (type.isInstance(c)) {
                return true;
            }
        }
        return false;
    }

    private static String causeMessage(Throwable t, Class<? extends Throwable> type) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (type.isInstance(c)) {
                return c.getMessage();
            }
        }
        return "";
    }

    private static String chain(Throwable t) {
        StringBuilder sb = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            sb.append(c.getMessage()).append(" | ");
        }
        return sb.toString().toLowerCase(Locale.ROOT);
    }

    private static String deepest(Throwable t) {
        Throwable c = t;
        while (c.getCause() != null && c.getCause().getMessage() != null) {
            c = c.getCause();
        }
        return c.getMessage();
    }
}
