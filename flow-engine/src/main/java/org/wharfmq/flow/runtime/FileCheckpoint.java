package org.wharfmq.flow.runtime;

import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Properties;

/**
 * Where a FileInput node is in the file it reads: the file's name, size and modification time (so that a file of
 * the same name put there later is not taken for it), the records done, the byte offset after the last of them,
 * how many of them failed, and whether the file's last record is done (only its move to the archive or backout
 * folder is left). Kept as a persistent message on the node's checkpoint queue ({@link CheckpointQueue}), as the
 * text {@link #text()} writes and {@link #parse} reads; before that, in a hidden file of the watched directory,
 * {@code .wharf-FLOW-NODE.checkpoint}, which {@link #read} reads once to take it over.
 *
 * <p>The watched directory is one others write into, so that file is not trusted to be the node's own: a symbolic
 * link (or anything but a regular file) there is never followed or read, and one longer than any checkpoint is
 * ignored (logged).
 *
 * @param file     the file's name in the watched directory
 * @param size     its size when it was taken
 * @param modified its modification time then, in ms
 * @param records  records done
 * @param offset   the byte offset after the last record done
 * @param failed   records that took the backout path (the file then ends in the backout folder)
 * @param done     whether the file's last record is done: the file is only to be moved
 */
record FileCheckpoint(String file, long size, long modified, long records, long offset, long failed, boolean done) {

    /** The checkpoint file a FileInput node kept before its checkpoints were messages. */
    static Path legacyLocation(Path directory, String flow, String node) {
        return directory.resolve(".wharf-" + flow + "-" + node + ".checkpoint");
    }

    /** The first checkpoint of a file: nothing done. */
    static FileCheckpoint start(String file, long size, long modified) {
        return new FileCheckpoint(file, size, modified, 0, 0, 0, false);
    }

    private static final System.Logger LOG = System.getLogger(FileCheckpoint.class.getName());
    /** The longest checkpoint file read: far longer than one written (its file name is escaped ASCII). */
    static final int MAX_BYTES = 64 * 1024;

    /**
     * The legacy checkpoint file at {@code location}, or null when there is none, or when what is there is not a
     * checkpoint the node could have written: not a regular file (a symbolic link to a file outside, a FIFO), or
     * longer than {@link #MAX_BYTES}.
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
                    + ", so not a checkpoint the node wrote. The file it would be about is read from its first record."
                    + " Let only the flow host's account create files whose names start with '.' in the watched"
                    + " directory.");
            return null;
        }
        return parse(new String(content, StandardCharsets.UTF_8));
    }

    /**
     * The checkpoint {@link #text()} wrote (a legacy file has no {@code done}: false).
     *
     * @throws IllegalArgumentException when {@code text} is not one
     */
    static FileCheckpoint parse(String text) {
        Properties p = new Properties();
        try {
            p.load(new StringReader(text));
            return new FileCheckpoint(java.util.Objects.requireNonNull(p.getProperty("file"), "file"),
                    Long.parseLong(p.getProperty("size")), Long.parseLong(p.getProperty("modified")),
                    Long.parseLong(p.getProperty("records")), Long.parseLong(p.getProperty("offset")),
                    Long.parseLong(p.getProperty("failed")), Boolean.parseBoolean(p.getProperty("done")));
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException("not a FileInput checkpoint (" + e + ")", e);
        }
    }

    /** Whether this checkpoint is about that file as it is now. */
    boolean isOf(String name, long fileSize, long fileModified) {
        return file.equals(name) && size == fileSize && modified == fileModified;
    }

    /** After one more record, ending at {@code end}; {@code last} when it was the file's last. */
    FileCheckpoint next(long end, boolean recordFailed, boolean last) {
        return new FileCheckpoint(file, size, modified, records + 1, end, failed + (recordFailed ? 1 : 0), last);
    }

    /** The checkpoint as the text of its message (a properties file's). */
    String text() {
        return "file=" + escape(file) + "\nsize=" + size + "\nmodified=" + modified + "\nrecords=" + records
                + "\noffset=" + offset + "\nfailed=" + failed + "\ndone=" + done + "\n";
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
