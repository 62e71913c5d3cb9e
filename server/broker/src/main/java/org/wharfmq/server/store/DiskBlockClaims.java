package org.wharfmq.server.store;

import net.openhft.posix.OpenFlag;
import net.openhft.posix.PosixAPI;

import java.io.File;

/**
 * Allocates disk blocks of the journal's current file ahead of its records, with fallocate(2): why, in
 * {@link Journal#append}'s claim. One file at a time, the journal writer's; not thread-safe. Tests replace it to
 * make the disk run out at a chosen record.
 */
class DiskBlockClaims implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(DiskBlockClaims.class.getName());

    /** Disk claimed past what the next record needs, at a time: a claim every megabyte of records. */
    static final long STEP_BYTES = 1 << 20;
    /** fallocate(2) mode: allocate the blocks, leave the file's size to Chronicle. */
    private static final int FALLOC_FL_KEEP_SIZE = 1;
    private static final int ENOSPC = 28;
    private static final int EDQUOT = 122;
    /** Cleared when fallocate is not available here (not Linux, no native access, a filesystem without it). */
    private static volatile boolean available = true;

    private File file;
    private int fd = -1;

    /**
     * Allocates {@code length} bytes of {@code file} from offset {@code from}.
     *
     * @return false when blocks cannot be claimed here at all (the journal then goes on without claiming)
     * @throws JournalFullException when the disk has no room for them
     */
    boolean claim(File file, long from, long length) {
        if (!available) {
            return false;
        }
        try {
            PosixAPI posix = PosixAPI.posix();
            if (!file.equals(this.file)) {
                close();
                fd = posix.open(file.getPath(), OpenFlag.O_RDWR, 0);
                if (fd < 0) {
                    throw new IllegalStateException("open " + file + ": " + posix.lastErrorStr());
                }
                this.file = file;
            }
            if (posix.fallocate(fd, FALLOC_FL_KEEP_SIZE, from, length) == 0) {
                return true;
            }
            int error = posix.lastError();
            if (error == ENOSPC || error == EDQUOT) {
                throw new JournalFullException("The disk of the journal (" + file.getParentFile().getParent()
                        + ") is full: no room for the next record. Free disk space or consume messages; the journal "
                        + "goes on once there is room.");
            }
            throw new IllegalStateException("fallocate: " + posix.strerror(error));
        } catch (JournalFullException full) {
            throw full;
        } catch (RuntimeException | LinkageError e) {
            available = false;
            LOG.log(System.Logger.Level.INFO, "The journal cannot claim disk blocks ahead of its records (" + e
                    + "); it works without, but if another program fills the disk between two of its free-space "
                    + "checks, it stops until a restart.");
            return false;
        }
    }

    /** How far past what a record needs each claim reaches. */
    long stepBytes() {
        return STEP_BYTES;
    }

    /** Lets go of the file (at a roll and at the journal's close). */
    @Override
    public void close() {
        if (fd >= 0) {
            PosixAPI.posix().close(fd);
            fd = -1;
        }
        file = null;
    }
}
