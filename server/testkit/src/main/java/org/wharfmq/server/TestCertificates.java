package org.wharfmq.server;

import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.openssl.jcajce.JceOpenSSLPKCS8EncryptorBuilder;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

import java.io.IOException;
import java.io.OutputStream;
import java.io.Writer;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Certificates made for a test run (never checked-in keys): a CA, and certificates it issues, valid, expired or for
 * another host, as PKCS#12 stores (in memory, or written) or PEM files into a directory of the test's. The TLS
 * listener's tests, the replication members' and the perf harness's replicated peer share it.
 */
public final class TestCertificates {

    /** The password of every store and encrypted key written here. */
    public static final String PASSWORD = "test-secret";
    private static final AtomicLong SERIAL = new AtomicLong(System.currentTimeMillis());

    /** A key pair with its certificate, and the chain up to (and with) its CA. */
    public record Issued(KeyPair keys, X509Certificate certificate, X509Certificate issuer) {

        /** Key and chain as a PKCS#12 store, the key protected by {@link #PASSWORD}. */
        public KeyStore keyStore() throws Exception {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            Certificate[] chain = issuer == null ? new Certificate[]{certificate} : new Certificate[]{certificate, issuer};
            store.setKeyEntry("key", keys.getPrivate(), PASSWORD.toCharArray(), chain);
            return store;
        }

        /** Writes key and chain as a PKCS#12 store protected by {@link #PASSWORD}. */
        public Path pkcs12(Path file) throws Exception {
            try (OutputStream out = Files.newOutputStream(file)) {
                keyStore().store(out, PASSWORD.toCharArray());
            }
            return file;
        }

        /** Writes the certificate chain as PEM. */
        public Path certificatePem(Path file) throws IOException {
            try (Writer w = Files.newBufferedWriter(file); JcaPEMWriter pem = new JcaPEMWriter(w)) {
                pem.writeObject(certificate);
                if (issuer != null) {
                    pem.writeObject(issuer);
                }
            }
            return file;
        }

        /** Writes the private key as PKCS#8 PEM, encrypted with {@link #PASSWORD} when {@code encrypted}. */
        public Path keyPem(Path file, boolean encrypted) throws Exception {
            try (Writer w = Files.newBufferedWriter(file); JcaPEMWriter pem = new JcaPEMWriter(w)) {
                pem.writeObject(new JcaPKCS8Generator(keys.getPrivate(), encrypted
                        ? new JceOpenSSLPKCS8EncryptorBuilder(JcaPKCS8Generator.AES_256_CBC)
                        .setProvider(new BouncyCastleProvider()).setPRF(JcaPKCS8Generator.PRF_HMACSHA256)
                        .setPassword(PASSWORD.toCharArray()).build() : null));
            }
            return file;
        }
    }

    private TestCertificates() {
    }

    /** A self-signed CA. */
    public static Issued ca(String name) throws Exception {
        KeyPair keys = keys();
        X500Name subject = new X500Name("CN=" + name + ",O=Wharf Test");
        X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(subject, serial(), date(Duration.ofDays(-1)),
                date(Duration.ofDays(30)), subject, keys.getPublic())
                .addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
        return new Issued(keys, sign(builder, keys), null);
    }

    /** A certificate {@code ca} issues for the subject, naming the hosts (DNS names or IP addresses), valid until {@code validFor} from now. */
    public static Issued issue(Issued ca, String subject, Duration validFor, String... hosts) throws Exception {
        KeyPair keys = keys();
        Instant now = Instant.now();
        Date notBefore = Date.from(validFor.isNegative() ? now.minus(Duration.ofDays(10)) : now.minus(Duration.ofDays(1)));
        X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(ca.certificate(), serial(), notBefore,
                date(validFor), new X500Name(subject), keys.getPublic());
        if (hosts.length > 0) {
            GeneralName[] names = new GeneralName[hosts.length];
            for (int i = 0; i < hosts.length; i++) {
                names[i] = new GeneralName(Character.isDigit(hosts[i].charAt(0)) ? GeneralName.iPAddress : GeneralName.dNSName, hosts[i]);
            }
            builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(names));
        }
        return new Issued(keys, sign(builder, ca.keys()), ca.certificate());
    }

    /** A PKCS#12 trust store holding the CA certificates. */
    public static KeyStore trustStore(X509Certificate... cas) throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        for (int i = 0; i < cas.length; i++) {
            store.setCertificateEntry("ca" + i, cas[i]);
        }
        return store;
    }

    /** Writes a PKCS#12 trust store holding the CA certificates, protected by {@link #PASSWORD}. */
    public static Path trustStore(Path file, X509Certificate... cas) throws Exception {
        try (OutputStream out = Files.newOutputStream(file)) {
            trustStore(cas).store(out, PASSWORD.toCharArray());
        }
        return file;
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
