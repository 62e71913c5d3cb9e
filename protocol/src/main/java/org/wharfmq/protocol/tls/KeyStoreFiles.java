package org.wharfmq.protocol.tls;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.UnrecoverableKeyException;

/**
 * Opens a key or trust store file (PKCS#12 by default) as the server's {@code tls:} settings and the client's URL
 * options name them. A failure is an {@link IllegalArgumentException} whose message says which setting, which file
 * and what to do: the file is missing, the password is wrong, or it is not a store of that type. Each end wraps it
 * in its own exception (the server's configuration error, the client's JMSException).
 */
public final class KeyStoreFiles {

    /** The store type used when none is given: PKCS#12, the JDK's default since Java 9. */
    public static final String DEFAULT_TYPE = "PKCS12";

    private KeyStoreFiles() {
    }

    /**
     * Loads a store.
     *
     * @param setting         how the user named the file, e.g. {@code tls.keyStore} or {@code URL option keyStore}
     * @param file            the file
     * @param type            the store type (null = {@value #DEFAULT_TYPE})
     * @param passwordSetting how the user names the password, for the wrong-password message
     * @param password        the password (null = none)
     * @throws IllegalArgumentException saying what is wrong and how to fix it
     */
    public static KeyStore load(String setting, Path file, String type, String passwordSetting, String password) {
        String storeType = type == null || type.isBlank() ? DEFAULT_TYPE : type;
        KeyStore store;
        try {
            store = KeyStore.getInstance(storeType);
        } catch (java.security.KeyStoreException e) {
            throw new IllegalArgumentException("Store type '" + storeType + "' of " + setting + " is not known to this "
                    + "Java (use PKCS12 or JKS).", e);
        }
        try (InputStream in = Files.newInputStream(file)) {
            store.load(in, chars(password));
            return store;
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("The file of " + setting + ", " + file.toAbsolutePath()
                    + ", does not exist.", e);
        } catch (IOException e) {
            if (e.getCause() instanceof UnrecoverableKeyException || String.valueOf(e.getMessage()).contains("password")) {
                throw new IllegalArgumentException("Cannot open " + setting + " " + file + ": the password ("
                        + passwordSetting + ") is wrong" + (password == null ? " or missing" : "") + ".", e);
            }
            throw new IllegalArgumentException("Cannot read " + setting + " " + file + " as a " + storeType + " store: "
                    + e.getMessage() + ".", e);
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("Cannot read " + setting + " " + file + " as a " + storeType + " store: "
                    + e.getMessage() + ".", e);
        }
    }

    /** A password as the key store API takes it; null stays null. */
    public static char[] chars(String password) {
        return password == null ? null : password.toCharArray();
    }
}
