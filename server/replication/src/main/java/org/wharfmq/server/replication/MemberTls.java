package org.wharfmq.server.replication;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;
import javax.net.ssl.X509KeyManager;
import javax.net.ssl.X509TrustManager;
import java.security.GeneralSecurityException;
import java.security.KeyStore;

/**
 * How a member proves it is one, and checks the others: mutual TLS on every replication connection. The member
 * presents its key and certificate, in both directions, and accepts only peers whose certificate chains to the
 * trusted CA; a connection without such a certificate is refused in the TLS handshake, and the member says so
 * ({@link MemberCertificateCheck}). Every certificate that CA
 * issues is a member's, so it should be a CA for this replication group alone. A member calling another also checks
 * that the certificate names the host of the address it calls (gRPC's default).
 */
public record MemberTls(X509KeyManager keyManager, X509TrustManager trustManager) {

    /**
     * From key stores: {@code keys} holds this member's private key and certificate chain (under one alias,
     * protected by {@code keyPassword}), {@code trusted} the CA certificate(s) members' certificates chain to.
     */
    public static MemberTls of(KeyStore keys, char[] keyPassword, KeyStore trusted) throws GeneralSecurityException {
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(keys, keyPassword);
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trusted);
        return new MemberTls(only(kmf.getKeyManagers(), X509KeyManager.class, "key"),
                new MemberCertificateCheck(only(tmf.getTrustManagers(), X509ExtendedTrustManager.class, "trust"),
                        ReplicationConfiguration.REFUSAL_WARNING_EVERY));
    }

    private static <T> T only(Object[] managers, Class<T> type, String what) {
        for (Object m : managers) {
            if (type.isInstance(m)) {
                return type.cast(m);
            }
        }
        throw new IllegalArgumentException("The replication's " + what + " store gives no X.509 " + what
                + " manager: give a PKCS#12 store with an X.509 " + (what.equals("key") ? "key and certificate"
                : "CA certificate") + ".");
    }

}
