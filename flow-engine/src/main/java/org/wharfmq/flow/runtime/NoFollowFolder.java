package org.wharfmq.flow.runtime;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.util.Set;

/**
 * A FileInput node's archive or backout folder, opened for one file's move without following a symbolic link in its
 * place. These folders are by default in the watched directory, which other programs write into: one of them that
 * replaced a folder by a link would otherwise have the server move the files it delivers, and write their reasons,
 * wherever the link leads (outside {@code flowHost.fileDirectories}, into any directory the server may write). Where
 * the platform has a {@link SecureDirectoryStream} (Linux, macOS) the folder is opened from its parent without
 * following a link, and the move and the reason file are made relative to the open folder, so a link swapped in
 * after the open is not followed either; elsewhere a folder that is a link is refused just before the move. A folder
 * that is missing (the link removed) is made again. Used by the node's reader thread only.
 */
final class NoFollowFolder implements Closeable {

    private final Path folder;
    /** The open folder, or null where the platform has no SecureDirectoryStream. */
    private final SecureDirectoryStream<Path> open;

    private NoFollowFolder(Path folder, SecureDirectoryStream<Path> open) {
        this.folder = folder;
        this.open = open;
    }

    /**
     * Opens {@code folder} (made when missing), not through a link.
     *
     * @param owner what uses it, for the refusal: e.g. "Flow 'orders' FileInput node 'in'"
     * @throws IOException when it is a link, naming it, why it is not followed and the fix; or cannot be opened
     */
    static NoFollowFolder open(Path folder, String owner) throws IOException {
        Path absolute = folder.toAbsolutePath();
        for (int attempt = 0; ; attempt++) {
            try (DirectoryStream<Path> parent = Files.newDirectoryStream(absolute.getParent())) {
                if (!(parent instanceof SecureDirectoryStream<Path> secure)) {
                    if (Files.isSymbolicLink(absolute)) {
                        throw refused(absolute, owner, null);
                    }
                    Files.createDirectories(absolute);
                    return new NoFollowFolder(absolute, null);
                }
                return new NoFollowFolder(absolute,
                        secure.newDirectoryStream(absolute.getFileName(), LinkOption.NOFOLLOW_LINKS));
            } catch (NoSuchFileException missing) {
                if (attempt > 0 || Files.exists(absolute, LinkOption.NOFOLLOW_LINKS)) {
                    throw missing;
                }
                try {
                    Files.createDirectory(absolute); // never through a link: one of that name fails it
                } catch (FileAlreadyExistsException madeMeanwhile) {
                    // opened (or refused) at the next attempt
                }
            } catch (FileSystemException e) {
                if (Files.isSymbolicLink(absolute)) {
                    throw refused(absolute, owner, e);
                }
                throw e;
            }
        }
    }

    private static IOException refused(Path folder, String owner, Exception cause) {
        String target;
        try {
            target = " (to " + Files.readSymbolicLink(folder) + ")";
        } catch (IOException | UnsupportedOperationException gone) {
            target = "";
        }
        return new IOException(owner + " will not move a file into " + folder + ": it is a symbolic link" + target
                + ", which is not followed, since whoever may write into the directory could lead the server's "
                + "files anywhere with one. Replace it by a folder (or remove it: the folder is made again); the "
                + "file stays where it is until then, and no record of it is processed again.", cause);
    }

    /**
     * Moves {@code file} into the folder under its own name (a name taken there gets {@code .} and the time in ms
     * after it).
     *
     * @return the file's path in the folder
     */
    Path moveIn(Path file) throws IOException {
        String name = file.getFileName().toString();
        if (exists(name)) {
            name = name + "." + System.currentTimeMillis();
        }
        if (open == null) {
            return Files.move(file, folder.resolve(name), StandardCopyOption.ATOMIC_MOVE);
        }
        try (DirectoryStream<Path> from = Files.newDirectoryStream(file.toAbsolutePath().getParent())) {
            if (!(from instanceof SecureDirectoryStream<Path> source)) {
                throw new IOException("The file system gave no secure stream for " + file.getParent() + " where it "
                        + "gave one for " + folder);
            }
            source.move(file.getFileName(), open, Path.of(name));
        }
        return folder.resolve(name);
    }

    /** Writes {@code text} as the new file {@code name} in the folder, whole: written aside, then renamed. */
    void write(String name, String text) throws IOException {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        Path aside = Path.of(name + ".part");
        if (open == null) {
            Path part = folder.resolve(aside);
            Files.deleteIfExists(part); // made anew: a link of that name is not followed
            Files.write(part, bytes, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
            Files.move(part, folder.resolve(name), StandardCopyOption.ATOMIC_MOVE);
            return;
        }
        try {
            open.deleteFile(aside); // made anew: a link of that name is not followed
        } catch (NoSuchFileException none) {
            // as expected
        }
        try (SeekableByteChannel channel = open.newByteChannel(aside, Set.of(StandardOpenOption.CREATE_NEW,
                StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS))) {
            ByteBuffer buffer = ByteBuffer.wrap(bytes);
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
        }
        open.move(aside, open, Path.of(name));
    }

    private boolean exists(String name) throws IOException {
        if (open == null) {
            return Files.exists(folder.resolve(name), LinkOption.NOFOLLOW_LINKS);
        }
        try {
            open.getFileAttributeView(Path.of(name), BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                    .readAttributes();
            return true;
        } catch (NoSuchFileException none) {
            return false;
        }
    }

    @Override
    public void close() throws IOException {
        if (open != null) {
            open.close();
        }
    }
}
