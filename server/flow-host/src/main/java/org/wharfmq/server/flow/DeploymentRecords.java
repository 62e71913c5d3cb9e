package org.wharfmq.server.flow;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The deployments made with {@code wharf flow deploy}, remembered in the data directory so they survive a
 * restart: beside each uploaded jar {@code DATA/flows/JAR} lies {@code DATA/flows/JAR.deployment.json}. A record
 * is written (atomically: a temporary file renamed over it) once the flow is known to build, and deleted when the
 * flow is undeployed or replaced; a server that stops keeps both. Used only under {@link FlowHost}'s lock.
 */
final class DeploymentRecords {

    /** What follows the jar's file name in its record's file name. */
    static final String SUFFIX = ".deployment.json";

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    /**
     * A deployment made with {@code wharf flow deploy}.
     *
     * @param flow       the flow's name (for people reading the file; the jar decides the name at redeploy)
     * @param className  the jar's FlowFactory class
     * @param instances  instances per input node
     * @param jar        the jar's file name, in the same folder as the record
     * @param deployedAt when it was deployed (ms since the epoch): at start, later deployments replace earlier ones
     *                   of the same name, as they did while the server ran
     */
    record Deployment(String flow, String className, int instances, String jar, long deployedAt) {
    }

    /** A record read back at start, and its file. */
    record Stored(Deployment deployment, Path file) {
    }

    private final Path directory;

    DeploymentRecords(Path directory) {
        this.directory = directory;
    }

    /** The record file that belongs to {@code jar}. */
    static Path recordOf(Path jar) {
        return jar.resolveSibling(jar.getFileName() + SUFFIX);
    }

    /** Writes the record of a flow running from {@code jar} (in the records' folder) and returns its file. */
    Path write(Path jar, String flow, String className, int instances) throws IOException {
        Path file = recordOf(jar);
        Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
        JSON.writeValue(temporary.toFile(), new Deployment(flow, className, instances,
                jar.getFileName().toString(), System.currentTimeMillis()));
        try {
            Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING);
        }
        return file;
    }

    /**
     * Every record, oldest deployment first.
     *
     * @throws IllegalStateException naming the file, when a record cannot be read
     */
    List<Stored> load() {
        List<Stored> records = new ArrayList<>();
        if (!Files.isDirectory(directory)) {
            return records;
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(directory, "*" + SUFFIX)) {
            for (Path file : files) {
                try {
                    records.add(new Stored(JSON.readValue(file.toFile(), Deployment.class), file));
                } catch (IOException e) {
                    throw new IllegalStateException("Cannot read the flow deployment record " + file.toAbsolutePath()
                            + " (" + e.getMessage() + "). Delete it and its jar to start without that flow, then "
                            + "deploy it again with 'wharf flow deploy'.", e);
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("Cannot list the flow deployment records in " + directory.toAbsolutePath()
                    + ": " + e, e);
        }
        records.sort(Comparator.comparingLong((Stored s) -> s.deployment().deployedAt())
                .thenComparing(s -> s.file().getFileName().toString()));
        return records;
    }
}
