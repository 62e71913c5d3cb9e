package org.wharfmq.jms.all;

import example.PingApp;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.server.TestServer;

import javax.jms.Message;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The one-jar client as someone without Maven uses it: {@link PingApp} runs in a child JVM whose class path is that
 * jar and the application's own jar, nothing else, against a real server in this JVM. And what the jar holds: the
 * client, the protocol and the JMS API, Netty only relocated (an application's own Netty cannot clash with it).
 * jms-client/jakarta-all runs this test transformed (PingApp importing jakarta.jms) against the jakarta one-jar client.
 */
@Tag("slow")
class PlainJarIT {

    private static final Path ALL_JAR = Path.of(System.getProperty("wharf.allJar"));
    private static final Path THIN_CLIENT_JAR = Path.of(System.getProperty("wharf.thinClientJar"));
    private static final Path API_JAR = Path.of(System.getProperty("wharf.apiJar"));
    /** javax/jms/ here, jakarta/jms/ once transformed. */
    private static final String API_PACKAGE = Message.class.getPackageName().replace('.', '/') + "/";
    private static final long CHILD_SECONDS = 60;

    @TempDir
    static Path work;
    private static TestServer server;
    private static Path appJar;

    @BeforeAll
    static void start() throws Exception {
        server = TestServer.start();
        appJar = appJar(work.resolve("app.jar"));
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void anApplicationRunsOnTheOneJarAlone() throws Exception {
        Child app = run(List.of(ALL_JAR, appJar), "PLAIN.JAR");
        assertEquals(0, app.exitCode, app.output);
        assertTrue(app.output.contains("received 'ping' through " + Message.class.getPackageName()), app.output);
        assertEquals(0, server.server().queueManager().depth("PLAIN.JAR"), "the server still holds the application's message");
    }

    /** The test above can fail: the thin client jar with its API but without what it depends on does not run. */
    @Test
    void theClientJarWithoutItsDependenciesDoesNot() throws Exception {
        Child app = run(List.of(THIN_CLIENT_JAR, API_JAR, appJar), "THIN.JAR");
        assertNotEquals(0, app.exitCode, app.output);
        assertTrue(app.output.contains("NoClassDefFoundError"), app.output);
    }

    @Test
    void theJarHoldsTheClientAndItsApiAndNettyOnlyRelocated() throws IOException {
        List<String> outside = new ArrayList<>();
        Set<String> names = new TreeSet<>();
        try (JarFile jar = new JarFile(ALL_JAR.toFile())) {
            jar.stream().map(JarEntry::getName).forEach(name -> {
                names.add(name);
                if (name.endsWith(".class") && !name.startsWith("org/wharfmq/") && !name.startsWith(API_PACKAGE)) {
                    outside.add(name);
                }
            });
        }
        assertEquals(List.of(), outside, "classes outside org.wharfmq and " + API_PACKAGE);
        for (String expected : List.of("org/wharfmq/jms/WharfConnectionFactory.class", "org/wharfmq/protocol/frame/Frame.class",
                API_PACKAGE + "ConnectionFactory.class", "org/wharfmq/shaded/io/netty/buffer/ByteBuf.class")) {
            assertTrue(names.contains(expected), expected + " missing from " + ALL_JAR);
        }
        assertFalse(names.contains("module-info.class"), "the API's module descriptor would make the jar a named module");
    }

    /** The application's classes, in a jar of their own, as its author would build it. */
    private static Path appJar(Path jar) throws IOException {
        String entry = PingApp.class.getName().replace('.', '/') + ".class";
        try (OutputStream file = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(file)) {
            out.putNextEntry(new JarEntry(entry));
            try (var in = PingApp.class.getClassLoader().getResourceAsStream(entry)) {
                in.transferTo(out);
            }
            out.closeEntry();
        }
        return jar;
    }

    private static Child run(List<Path> classPath, String queue) throws IOException, InterruptedException {
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", String.join(File.pathSeparator, classPath.stream().map(Path::toString).toList()),
                PingApp.class.getName(), server.server().tcpUrl(), queue);
        Path log = Files.createTempFile(work, queue, ".log");
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        boolean exited = process.waitFor(CHILD_SECONDS, TimeUnit.SECONDS);
        if (!exited) {
            process.destroyForcibly().waitFor();
        }
        String output = command + "\n" + Files.readString(log, StandardCharsets.UTF_8);
        assertTrue(exited, "the application did not exit within " + CHILD_SECONDS + " s: " + output);
        return new Child(process.exitValue(), output);
    }

    private record Child(int exitCode, String output) {
    }
}
