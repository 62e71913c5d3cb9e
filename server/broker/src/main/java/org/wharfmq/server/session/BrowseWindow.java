package org.wharfmq.server.session;

/**
 * A browser's window in bytes (docs/protocol.md, "Browsing"): the messages it was shown and has not yet settled, their
 * encoded lengths (the bytes of DELIVER after its delivery count), and the bound on them. The browser shows one more
 * message only while it holds fewer bytes than {@link #maxBytes} ({@link #full}), so at most one message beyond them
 * and always at least one; a PULL shows one whatever it holds.
 *
 * <p>A browse is read in order, and its client returns one credit for each message it has read, so a CREDIT of
 * {@code n} settles the {@code n} oldest messages shown and their bytes with them ({@link #settle}): the server needs
 * no word from the client about bytes, and a client cannot settle what it was not shown. Each message is remembered as
 * one long until settled: its length, and whether it is a copy read back from the queue's page files ({@link #settle}
 * says how many such bytes to give back to the server's memory budget).
 *
 * <p>Owned by its browser, on the browser's connection's event loop.
 */
final class BrowseWindow {

    /** No bound in bytes: a browser outside a connection that caps it. */
    static final long UNBOUNDED = Long.MAX_VALUE;

    private final long maxBytes;
    /** The messages shown and not settled, oldest at {@link #head}: {@code length << 1 | paged}, a ring. */
    private long[] shown = new long[16];
    private int head;
    private int size;
    private long heldBytes;

    /** @param maxBytes the bytes of messages it may hold shown and not settled; {@link #UNBOUNDED}: none */
    BrowseWindow(long maxBytes) {
        this.maxBytes = maxBytes;
    }

    /** Whether it holds its whole window or more: nothing more is shown until a CREDIT settles some (a PULL aside). */
    boolean full() {
        return heldBytes >= maxBytes;
    }

    /** The bytes it may still be shown before it is {@link #full} (the message that crosses them is shown too). */
    long room() {
        return Math.max(0, maxBytes - heldBytes);
    }

    /** A message of {@code bytes} was shown; {@code paged}: a copy read back from the page files. */
    void shown(int bytes, boolean paged) {
        if (size == shown.length) {
            long[] grown = new long[size * 2];
            for (int i = 0; i < size; i++) {
                grown[i] = shown[(head + i) % shown.length];
            }
            shown = grown;
            head = 0;
        }
        shown[(head + size) % shown.length] = (long) bytes << 1 | (paged ? 1 : 0);
        size++;
        heldBytes += bytes;
    }

    /**
     * A CREDIT of {@code messages}: settles that many of the oldest messages shown (all it holds when it holds fewer).
     *
     * @return the bytes of copies read back from the page files among them, which the server holds no more
     */
    long settle(int messages) {
        long paged = 0;
        for (int n = Math.min(messages, size); n > 0; n--) {
            long entry = shown[head];
            head = (head + 1) % shown.length;
            size--;
            long bytes = entry >>> 1;
            heldBytes -= bytes;
            if ((entry & 1) != 0) {
                paged += bytes;
            }
        }
        return paged;
    }
}
