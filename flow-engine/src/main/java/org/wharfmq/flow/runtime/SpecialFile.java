package org.wharfmq.flow.runtime;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/** What a file that is neither a regular file, a directory nor a link is, in words, for a refusal. */
final class SpecialFile {

    /** The file-type bits of a Unix mode, and the types among them. */
    private static final int TYPE = 0170000;
    private static final int FIFO = 0010000;
    private static final int CHARACTER_DEVICE = 0020000;
    private static final int BLOCK_DEVICE = 0060000;
    private static final int SOCKET = 0140000;

    private SpecialFile() {
    }

    /** "a FIFO (named pipe)", "a socket", "a character device", "a block device", else "a special file". */
    static String kind(Path file) {
        int mode;
        try {
            mode = (Integer) Files.getAttribute(file, "unix:mode", LinkOption.NOFOLLOW_LINKS);
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException | ClassCastException e) {
            return "a special file (a FIFO, a socket or a device)";
        }
        return switch (mode & TYPE) {
            case FIFO -> "a FIFO (named pipe)";
            case SOCKET -> "a socket";
            case CHARACTER_DEVICE -> "a character device";
            case BLOCK_DEVICE -> "a block device";
            default -> "a special file (a FIFO, a socket or a device)";
        };
    }
}
