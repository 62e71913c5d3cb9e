package org.wharfmq.flow.runtime;

import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Properties;

/**
 * Where a FileInput node is in the file it reads: the file's name, size and modification time (so that a file of
 * the same name put there later is not taken for it), the records done, the byte offset after the last of them,
 * and how many of them failed. Kept in a hidden file of the watched directory,
 * {@code .wharf-FLOW-NODE.checkpoint}, replaced atomically (written beside it, forced to disk, renamed over it)
 * after each record's transaction commits, but a file's last (the file's move to the archive or backout folder,
 * forced to disk, says that one is done). Confined to the node's reader thread.
 *
 * <p>The watched directory is one others write into, so neither name is trusted to be the node's own file: a
 * symbolic link (or anything but a regular file) there is never followed, read or written through. A checkpoint that
 * is not a regular file, or is longer than any checkpoint, is ignored (logged), and the next one written replaces it.
 *
 * @param file     the file's name in the watched directory
 * @param size     its size when it was taken
 * @param modified its modification time then, in ms
 * @param records  records done
 * @param offset   the byte offset after the last record done
 * @param failed   records that took the backout path (the file then ends in the backout folder)
 */
record FileCheckpoint(String file, long size, long modified, long records, long offset, long failed) {

    /** The checkpoint file of one FileInput node. */
    static Path location(Path directory, String flow, String node) {
        return directory.resolve(".wharf-" + flow + "-" + node + ".checkpoint");
    }

    private static final System.Logger LOG = System.getLogger(FileCheckpoint.class.getName());
    /** The longest checkpoint file read: far longer than one written (its file name is escaped ASCII). */
    static final int MAX_BYTES = 64 * 1024;

    /**
     * The checkpoint at {@code location}, or null when there is none, or when what is there is not a checkpoint this
     * node could have written: not a regular file (a symbolic link to a file outside, a FIFO), or longer than
     * {@link #MAX_BYTES}.
     */
    static FileCheckpoint read(Path location) throws IOException {
        BasicFileAttributes attributes;
        try {
            attributes = Files.readAttributes(location, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException none) {
            return null;
        }
        byte[] content = null;
        if (attributes.isRegularFile()) {
            try (InputStream in = Files.newInputStream(location, LinkOption.NOFOLLOW_LINKS)) {
                content = in.readNBytes(MAX_BYTES + 1);
            }
        }
        if (content == null || content.length > MAX_BYTES) {
            LOG.log(System.Logger.Level.WARNING, "The FileInput checkpoint " + location + " is ignored: it is "
                    + (content != null ? "longer than " + MAX_BYTES + " bytes"
                    : attributes.isSymbolicLink() ? "a symbolic link, never followed" : "not a regular file")
                    + ", so not a checkpoint the node wrote. The file it would be about is read from its first record;"
                    + " the next checkpoint replaces it. Let only the flow host's account create files whose names"
                    + " start with '.' in the watched directory.");
            return null;
        }
        Properties p = new Properties();
        p.load(new StringReader(new String(content, StandardCharsets.UTF_8)));
        return new FileCheckpoint(p.getProperty("file"), Long.parseLong(p.getProperty("size")),
                Long.parseLong(p.getProperty("modified")), Long.parseLong(p.getProperty("records")),
                Long.parseLong(p.getProperty("offset")), Long.parseLong(p.getProperty("failed")));
    }

    /** Whether this checkpoint is about that file as it is now. */
    boolean isOf(String name, long fileSize, long fileModified) {
        return file.equals(name) && size == fileSize && modified == fileModified;
    }

    /** After one more record, ending at {@code end}. */
    FileCheckpoint next(long end, boolean recordFailed) {
        return new FileCheckpoint(file, size, modified, records + 1, end, failed + (recordFailed ? 1 : 0));
    }

    /**
     * Replaces the checkpoint at {@code location} with this one, atomically and durably: written anew beside it (what
     * was there under that name removed first, a symbolic link included, never written through), then renamed over
     * it (which replaces a link there, not its target).
     */
    void write(Path location) throws IOException {
        String text = "file=" + escape(file) + "\nsize=" + size + "\nmodified=" + modified + "\nrecords=" + records
                + "\noffset=" + offset + "\nfailed=" + failed + "\n";
        Path next = location.resolveSibling(location.getFileName() + ".next");
        Files.deleteIfExists(next);
        try (FileChannel channel = FileChannel.open(next, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            ByteBuffer bytes = ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
            while (bytes.hasRemaining()) {
                channel.write(bytes);
            }
            channel.force(true);
        }
        Files.move(next, location, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    private static String escape(String text) {
        StringBuilder out = new StringBuilder();
        for (char c : text.toCharArray()) {
            if (c == '\\' || c == '=' || c == ':' || c == '#' || c == '!' || c <= ' ' || c > '~') {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }
}
