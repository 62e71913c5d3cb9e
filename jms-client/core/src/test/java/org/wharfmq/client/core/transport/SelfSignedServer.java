package org.wharfmq.client.core.transport;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.HashMap;
import java.util.Map;

/**
 * A throwaway TLS server identity for the transport's tests: a self-signed EC certificate for 127.0.0.1 made with the
 * JDK's keytool into a PKCS#12 store, the JDK's TLS server sockets made from it, and the client options that trust it.
 */
final class SelfSignedServer {

    static final String PASSWORD = "changeit";

    private final Path store;

    private SelfSignedServer(Path store) {
        this.store = store;
    }

    /** Makes the store in {@code dir}. */
    static SelfSignedServer create(Path dir) throws IOException, InterruptedException {
        Path store = dir.resolve("server.p12");
        Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "server", "-keyalg", "EC", "-dname", "CN=localhost", "-ext", "san=ip:127.0.0.1",
                "-validity", "1", "-storetype", "PKCS12", "-keystore", store.toString(), "-storepass", PASSWORD)
                .redirectErrorStream(true).start();
        String output = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (keytool.waitFor() != 0) {
            throw new IOException("keytool could not make the test's certificate: " + output);
        }
        return new SelfSignedServer(store);
    }

    /** A JDK TLS server socket on the loopback address, any free port, with this identity. */
    SSLServerSocket serverSocket() throws IOException, GeneralSecurityException {
        KeyStore keys = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            keys.load(in, PASSWORD.toCharArray());
        }
        KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        factory.init(keys, PASSWORD.toCharArray());
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(factory.getKeyManagers(), null, null);
        return (SSLServerSocket) context.getServerSocketFactory().createServerSocket(0, 1,
                InetAddress.getLoopbackAddress());
    }

    /** Client TLS settings trusting this certificate, with {@code more} options (name, value, name, value...). */
    ClientTls clientTls(String... more) {
        Map<String, String> options = new HashMap<>(Map.of("trustStore", store.toString(), "trustStorePassword", PASSWORD));
        for (int i = 0; i < more.length; i += 2) {
            options.put(more[i], more[i + 1]);
        }
        return ClientTls.of(options);
    }
}
