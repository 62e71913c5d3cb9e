package org.wharfmq.server.replication;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A sink that keeps every batch applied, as text, in order; its snapshot is that list. A test's batch is one record
 * ({@link #batch}): the active member may carry several batches in one entry.
 */
final class RecordingSink implements ReplicaSink {

    private final List<String> batches = new ArrayList<>();
    private long lastIndex = -1;
    private boolean failNext;
    private boolean failAtNextPiece;
    /** Snapshots loaded: counted under the lock the batches are read under (ReplicatedLogTest's barrier). */
    private int snapshotsLoaded;

    @Override
    public synchronized void apply(long index, String origin, ByteBuffer records) throws IOException {
        if (failNext) {
            throw new IOException("the test's sink refuses batch " + index);
        }
        if (index <= lastIndex) {
            throw new AssertionError("batch " + index + " applied after " + lastIndex);
        }
        lastIndex = index;
        ByteBuffer framed = records.duplicate();
        while (framed.hasRemaining()) {
            byte[] bytes = new byte[framed.getInt()];
            framed.get(bytes);
            batches.add(new String(bytes, StandardCharsets.UTF_8));
        }
    }

    /**
     * A test's batch: one record of {@code text}, framed as the journal writer frames its records (a 4-byte length,
     * then the bytes), so that batches the active member carries in one entry are told apart again here.
     */
    static ByteBuffer batch(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(4 + bytes.length).putInt(bytes.length).put(bytes).flip();
    }

    /** Asked at every piece of a batch in pieces. */
    @Override
    public synchronized boolean takes(String origin) {
        if (failAtNextPiece) {
            throw new IllegalStateException("the test's sink refuses a piece");
        }
        return true;
    }

    @Override
    public synchronized void applyFile(long index, String origin, String name, ByteBuffer content) {
        throw new AssertionError("the test appended no file, but file " + name + " came at " + index);
    }

    @Override
    public synchronized boolean writeSnapshot(OutputStream out) throws IOException {
        DataOutputStream data = new DataOutputStream(out);
        data.writeLong(lastIndex);
        data.writeInt(batches.size());
        for (String b : batches) {
            byte[] bytes = b.getBytes(StandardCharsets.UTF_8);
            data.writeInt(bytes.length);
            data.write(bytes);
        }
        data.flush();
        return true;
    }

    @Override
    public synchronized void loadSnapshot(InputStream in) throws IOException {
        DataInputStream data = new DataInputStream(in);
        lastIndex = data.readLong();
        int n = data.readInt();
        for (int i = 0; i < n; i++) {
            batches.add(new String(data.readNBytes(data.readInt()), StandardCharsets.UTF_8));
        }
        snapshotsLoaded++;
    }

    @Override
    public synchronized void reset() {
        batches.clear();
        lastIndex = -1;
    }

    /** The next batch applied fails, as a full or broken disk would. */
    synchronized void failNext() {
        failNext = true;
    }

    /** The next piece of a batch in pieces applied fails, as a full disk would. */
    synchronized void failAtNextPiece() {
        failAtNextPiece = true;
    }

    synchronized List<String> batches() {
        return List.copyOf(batches);
    }

    synchronized int size() {
        return batches.size();
    }

    /** Snapshots loaded into this sink (at its member's start, or installed by the leader). */
    synchronized int snapshotsLoaded() {
        return snapshotsLoaded;
    }
}
