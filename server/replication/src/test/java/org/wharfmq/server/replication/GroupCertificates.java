package org.wharfmq.server.replication;

import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

import java.math.BigInteger;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;

/** A CA made for a test run (never checked-in keys) and the member credentials it issues, for 127.0.0.1. */
final class GroupCertificates {

    static final char[] PASSWORD = "test-secret".toCharArray();
    private static final AtomicLong SERIAL = new AtomicLong(System.currentTimeMillis());

    private final KeyPair caKeys;
    private final X509Certificate ca;

    GroupCertificates(String name) throws Exception {
        caKeys = keys();
        X500Name subject = new X500Name("CN=" + name + ",O=Wharf Test");
        ca = sign(new JcaX509v3CertificateBuilder(subject, serial(), date(Duration.ofDays(-1)), date(Duration.ofDays(1)),
                subject, caKeys.getPublic()).addExtension(Extension.basicConstraints, true, new BasicConstraints(true)),
                caKeys);
    }

    /** Credentials for member {@code id} on the loopback address, trusting this CA only. */
    MemberTls member(String id) throws Exception {
        return MemberTls.of(keyStore(id), PASSWORD, trustStore());
    }

    /** A key store with member {@code id}'s key and certificate (issued by this CA for 127.0.0.1). */
    KeyStore keyStore(String id) throws Exception {
        KeyPair keys = keys();
        X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(ca, serial(), date(Duration.ofDays(-1)),
                date(Duration.ofDays(1)), new X500Name("CN=" + id + ",O=Wharf Test"), keys.getPublic())
                .addExtension(Extension.subjectAlternativeName, false,
                        new GeneralNames(new GeneralName(GeneralName.iPAddress, "127.0.0.1")));
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        store.setKeyEntry("member", keys.getPrivate(), PASSWORD, new Certificate[] {sign(builder, caKeys), ca});
        return store;
    }

    /** A trust store holding this CA's certificate. */
    KeyStore trustStore() throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        store.setCertificateEntry("ca", ca);
        return store;
    }

    private static KeyPair keys() throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(256);
        return generator.generateKeyPair();
    }

    private static X509Certificate sign(X509v3CertificateBuilder builder, KeyPair signer) throws Exception {
        return new JcaX509CertificateConverter().getCertificate(
                builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(signer.getPrivate())));
    }

    private static BigInteger serial() {
        return BigInteger.valueOf(SERIAL.incrementAndGet());
    }

    private static Date date(Duration fromNow) {
        return Date.from(Instant.now().plus(fromNow));
    }
}
