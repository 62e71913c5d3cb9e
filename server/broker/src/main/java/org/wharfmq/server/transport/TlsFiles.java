package org.wharfmq.server.transport;

import org.wharfmq.protocol.tls.KeyStoreFiles;
import org.wharfmq.server.config.ConfigurationException;

import javax.crypto.Cipher;
import javax.crypto.EncryptedPrivateKeyInfo;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.KeySpec;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.Collection;

/**
 * Reads the files the {@code tls:} settings name: PKCS#12 stores, PEM certificates and PEM PKCS#8 private keys
 * (plain or encrypted), and checks a key belongs to its certificate. Every failure is a
 * {@link ConfigurationException} naming the setting and the file.
 */
final class TlsFiles {

    private static final String BEGIN_KEY = "-----BEGIN PRIVATE KEY-----";
    private static final String BEGIN_ENCRYPTED_KEY = "-----BEGIN ENCRYPTED PRIVATE KEY-----";
    /** The key algorithms a PKCS#8 key may use, each with a signature that proves key and certificate match. */
    private static final String[][] KEY_ALGORITHMS = {
            {"RSA", "SHA256withRSA"}, {"EC", "SHA256withECDSA"}, {"Ed25519", "Ed25519"}};

    private static final String PBES2_OID = "1.2.840.113549.1.5.13";

    private TlsFiles() {
    }

    /** Loads a PKCS#12 store. */
    static KeyStore pkcs12(String setting, Path file, String passwordSetting, String password) {
        try {
            return KeyStoreFiles.load(setting, file, KeyStoreFiles.DEFAULT_TYPE, passwordSetting, password);
        } catch (IllegalArgumentException e) {
            throw new ConfigurationException(e.getMessage(), e);
        }
    }

    /** A password as the key store API takes it. */
    static char[] chars(String password) {
        return KeyStoreFiles.chars(password);
    }

    /** The certificates of a PEM file, in file order. */
    static X509Certificate[] certificates(String setting, Path file) {
        try (InputStream in = open(setting, file)) {
            Collection<? extends Certificate> all = CertificateFactory.getInstance("X.509").generateCertificates(in);
            if (all.isEmpty()) {
                throw new ConfigurationException("Setting " + setting + ": " + file + " holds no PEM certificate "
                        + "(-----BEGIN CERTIFICATE-----).");
            }
            return all.stream().map(X509Certificate.class::cast).toArray(X509Certificate[]::new);
        } catch (IOException | GeneralSecurityException e) {
            throw new ConfigurationException("Setting " + setting + ": cannot read " + file + " as PEM certificates: "
                    + e.getMessage(), e);
        }
    }

    /** The PKCS#8 private key of a PEM file, decrypted with {@code password} when it is encrypted. */
    static PrivateKey privateKey(String setting, Path file, String password) {
        String pem;
        try (InputStream in = open(setting, file)) {
            pem = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new ConfigurationException("Setting " + setting + ": cannot read " + file + ": " + e.getMessage(), e);
        }
        boolean encrypted = pem.contains(BEGIN_ENCRYPTED_KEY);
        String begin = encrypted ? BEGIN_ENCRYPTED_KEY : BEGIN_KEY;
        int start = pem.indexOf(begin);
        int end = start < 0 ? -1 : pem.indexOf("-----END", start + begin.length());
        if (start < 0 || end < 0) {
            throw new ConfigurationException("Setting " + setting + ": " + file + " holds no PKCS#8 private key ("
                    + BEGIN_KEY + "). Convert an RSA or EC key with: openssl pkcs8 -topk8 -nocrypt -in key.pem -out key8.pem");
        }
        byte[] der = Base64.getMimeDecoder().decode(pem.substring(start + begin.length(), end));
        KeySpec spec;
        if (encrypted) {
            if (password == null) {
                throw new ConfigurationException("Setting " + setting + ": the key in " + file + " is encrypted; set "
                        + "tls.privateKeyPassword.");
            }
            try {
                EncryptedPrivateKeyInfo info = new EncryptedPrivateKeyInfo(der);
                // PBES2 (what openssl pkcs8 -topk8 writes) is named by its parameters: PBEWithHmacSHA256AndAES_256
                String algorithm = info.getAlgName().contains("PBES2") || info.getAlgName().equals(PBES2_OID)
                        ? info.getAlgParameters().toString() : info.getAlgName();
                SecretKeyFactory factory = SecretKeyFactory.getInstance(algorithm);
                Cipher cipher = Cipher.getInstance(algorithm);
                cipher.init(Cipher.DECRYPT_MODE, factory.generateSecret(new PBEKeySpec(password.toCharArray())),
                        info.getAlgParameters());
                spec = info.getKeySpec(cipher);
            } catch (IOException | GeneralSecurityException e) {
                throw new ConfigurationException("Setting " + setting + ": cannot decrypt the key in " + file
                        + ": the password (tls.privateKeyPassword) is wrong, or the encryption is not supported ("
                        + e.getMessage() + ").", e);
            }
        } else {
            spec = new PKCS8EncodedKeySpec(der);
        }
        for (String[] algorithm : KEY_ALGORITHMS) {
            try {
                return KeyFactory.getInstance(algorithm[0]).generatePrivate(spec);
            } catch (GeneralSecurityException notThisOne) {
                // try the next algorithm
            }
        }
        throw new ConfigurationException("Setting " + setting + ": the key in " + file + " is not an RSA, EC or Ed25519 "
                + "PKCS#8 key.");
    }

    /**
     * Checks the private key belongs to the certificate: signs a challenge with the one and verifies it with the other
     * (what a TLS handshake would fail at, only later and with a vaguer error on the client's side).
     */
    static void requireMatch(PrivateKey key, X509Certificate certificate, String setting) {
        for (String[] algorithm : KEY_ALGORITHMS) {
            if (!algorithm[0].equalsIgnoreCase(key.getAlgorithm())) {
                continue;
            }
            try {
                byte[] challenge = "wharf key check".getBytes(StandardCharsets.US_ASCII);
                Signature signer = Signature.getInstance(algorithm[1]);
                signer.initSign(key);
                signer.update(challenge);
                byte[] signature = signer.sign();
                Signature verifier = Signature.getInstance(algorithm[1]);
                verifier.initVerify(certificate.getPublicKey());
                verifier.update(challenge);
                if (verifier.verify(signature)) {
                    return;
                }
            } catch (GeneralSecurityException e) {
                // a key of another type than the certificate's: a mismatch, reported below
            }
            break;
        }
        throw new ConfigurationException("The private key in " + setting + " does not belong to its certificate ("
                + certificate.getSubjectX500Principal().getName() + "): give the key the certificate was issued for.");
    }

    private static InputStream open(String setting, Path file) throws IOException {
        try {
            return Files.newInputStream(file);
        } catch (NoSuchFileException e) {
            throw new ConfigurationException("The file of setting " + setting + ", " + file.toAbsolutePath()
                    + ", does not exist.");
        }
    }
}
