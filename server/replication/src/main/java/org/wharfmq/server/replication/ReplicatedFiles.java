package org.wharfmq.server.replication;

import org.wharfmq.server.store.AtomicFile;
import org.wharfmq.server.store.QueueDefinitionFile;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The files a replicated queue manager keeps beside its journal in each member's data directory and carries through
 * its log, whole, at every change: today the definitions made at run time ({@link QueueDefinitionFile#FILE_NAME}).
 * On a replica they are written as the log brings them, and they are part of its snapshot; every start deletes them
 * with the journal, and the log brings them back.
 *
 * <p>Only the names listed here are written, whatever an entry names: a log entry never chooses a path.
 *
 * <p>Owned by the member's sink (one thread at a time, under the member's lock).
 */
final class ReplicatedFiles {

    /** Every file carried, by its name in the data directory. */
    static final List<String> NAMES = List.of(QueueDefinitionFile.FILE_NAME);

    private final Path dataDirectory;

    ReplicatedFiles(Path dataDirectory) {
        this.dataDirectory = dataDirectory;
    }

    /** Whether the data directory holds one of the files (a queue manager of its own ran there). */
    boolean any() {
        return NAMES.stream().anyMatch(name -> Files.exists(dataDirectory.resolve(name)));
    }

    /** Replaces file {@code name} with {@code content}, atomically. */
    void write(String name, ByteBuffer content) throws IOException {
        byte[] bytes = new byte[content.remaining()];
        content.duplicate().get(bytes);
        AtomicFile.write(path(name), bytes, false);
    }

    /** Deletes every file: the log (or a snapshot) is about to bring them again. */
    void reset() throws IOException {
        for (String name : NAMES) {
            Files.deleteIfExists(dataDirectory.resolve(name));
        }
    }

    /** Writes the files there are, each as (true, name, length, bytes), then false. */
    void writeSnapshot(DataOutputStream out) throws IOException {
        for (String name : NAMES) {
            Path file = dataDirectory.resolve(name);
            if (Files.exists(file)) {
                byte[] bytes = Files.readAllBytes(file);
                out.writeBoolean(true);
                out.writeUTF(name);
                out.writeInt(bytes.length);
                out.write(bytes);
            }
        }
        out.writeBoolean(false);
        out.flush();
    }

    /** Replaces the files with those {@link #writeSnapshot} wrote. */
    void loadSnapshot(DataInputStream in) throws IOException {
        reset();
        while (in.readBoolean()) {
            String name = in.readUTF();
            byte[] bytes = in.readNBytes(in.readInt());
            write(name, ByteBuffer.wrap(bytes));
        }
    }

    private Path path(String name) throws IOException {
        if (!NAMES.contains(name)) {
            throw new IOException("The replicated log carries a file named '" + name + "', which is not one a member "
                    + "keeps (" + NAMES + "): every member must run the same Wharf version.");
        }
        return dataDirectory.resolve(name);
    }
}
