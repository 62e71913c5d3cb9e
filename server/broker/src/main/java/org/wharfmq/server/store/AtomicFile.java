package org.wharfmq.server.store;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * Replaces a small file of the data directory whole, atomically: written to {@code NAME.tmp}, forced to the disk,
 * renamed over the old one, the directory forced, so a crash leaves the old file or the new one, never a part of
 * either ({@link QueueDefinitionFile}, the channels' definitions).
 */
public final class AtomicFile {

    private AtomicFile() {
    }

    /**
     * Writes {@code text} (UTF-8) as {@code file}'s whole content.
     *
     * @param ownerOnly whether only the file's owner may read it (where the file system has POSIX permissions): for a
     *                  file that holds a secret
     * @throws IOException when it cannot be written (the old file is then left as it was)
     */
    public static void write(Path file, String text, boolean ownerOnly) throws IOException {
        write(file, text.getBytes(StandardCharsets.UTF_8), ownerOnly);
    }

    /**
     * Writes {@code content} as {@code file}'s whole content (also how a replica writes the versions of a file the
     * replication brings it).
     *
     * @param ownerOnly whether only the file's owner may read it (where the file system has POSIX permissions)
     * @throws IOException when it cannot be written (the old file is then left as it was)
     */
    public static void write(Path file, byte[] content, boolean ownerOnly) throws IOException {
        Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
        Files.createDirectories(file.getParent());
        if (ownerOnly && FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
            Files.deleteIfExists(temporary);
            Files.createFile(temporary, PosixFilePermissions.asFileAttribute(
                    PosixFilePermissions.fromString("rw-------")));
        }
        try (FileChannel out = FileChannel.open(temporary, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            out.write(java.nio.ByteBuffer.wrap(content));
            out.force(true);
        }
        Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        try (FileChannel directory = FileChannel.open(file.getParent(), StandardOpenOption.READ)) {
            directory.force(true); // the rename itself survives a crash
        }
    }
}
