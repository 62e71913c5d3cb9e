package org.wharfmq.perf.workload;

import org.wharfmq.server.config.TlsConfig;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A throwaway TLS identity for a benchmark server ({@code wharf perf run --tls ENGINE}): a self-signed EC P-256
 * certificate for 127.0.0.1 and localhost, made with the JDK's keytool into a temporary PKCS#12 store, which the
 * drivers also use as their trust store. A measurement of TLS's cost, not a way to run a server.
 */
final class SelfSignedTls {

    /** The password of the temporary store; it guards nothing of value. */
    static final String PASSWORD = "wharf-perf";

    private final Path store;

    private SelfSignedTls(Path store) {
        this.store = store;
    }

    /** Makes the store with keytool. */
    static SelfSignedTls create() throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("wharf-perf-tls");
        Path store = dir.resolve("server.p12");
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        Process p = new ProcessBuilder(keytool.toString(), "-genkeypair", "-alias", "wharf", "-keyalg", "EC",
                "-groupname", "secp256r1", "-dname", "CN=localhost", "-ext", "san=ip:127.0.0.1,dns:localhost",
                "-validity", "2", "-storetype", "PKCS12", "-keystore", store.toString(), "-storepass", PASSWORD,
                "-keypass", PASSWORD).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes());
        if (p.waitFor() != 0) {
            throw new IOException("keytool could not make the benchmark's TLS certificate: " + output);
        }
        return new SelfSignedTls(store);
    }

    /** The TLS listener's settings: any free port, the engine asked for ({@code jdk} or {@code openssl}). */
    TlsConfig config(String engine) {
        return TlsConfig.builder().port(0).engine(TlsConfig.engine(engine)).protocols(List.of("TLSv1.3", "TLSv1.2"))
                .keyStore(store).keyStorePassword(PASSWORD).build();
    }

    /** The store: the key and certificate of a server, the trust of a client. */
    Path store() {
        return store;
    }

    /** The URL options that make a client trust this certificate. */
    String clientOptions() {
        return "trustStore=" + store + "&trustStorePassword=" + PASSWORD;
    }
}
