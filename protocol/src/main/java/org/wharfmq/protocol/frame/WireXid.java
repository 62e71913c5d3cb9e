package org.wharfmq.protocol.frame;

import io.netty.buffer.ByteBuf;

import java.util.Arrays;
import java.util.HexFormat;

/**
 * An XA transaction branch identifier as the XA frames carry it: {@code int formatId, bytes globalTransactionId,
 * bytes branchQualifier} (each {@code bytes} an int length, then at most {@value #MAX_BYTES} bytes). A value: two
 * are equal when all three parts are, which is how the server finds a branch whichever connection names it. The
 * client turns its {@code javax.transaction.xa.Xid}s into these and back; the protocol itself does not depend on the
 * transaction API.
 *
 * @param formatId            the transaction manager's format identifier (-1 is the XA null Xid, never sent)
 * @param globalTransactionId the global transaction id (gtrid), 1 to 64 bytes
 * @param branchQualifier     the branch qualifier (bqual), 0 to 64 bytes
 */
public record WireXid(int formatId, byte[] globalTransactionId, byte[] branchQualifier) {

    /** The longest gtrid and bqual XA allows ({@code Xid.MAXGTRIDSIZE}, {@code Xid.MAXBQUALSIZE}). */
    public static final int MAX_BYTES = 64;

    /**
     * @throws MalformedFrameException when the gtrid is empty or either part is longer than {@value #MAX_BYTES} bytes
     */
    public WireXid {
        if (globalTransactionId == null || globalTransactionId.length == 0 || globalTransactionId.length > MAX_BYTES) {
            throw new MalformedFrameException("an Xid's global transaction id must have 1 to " + MAX_BYTES
                    + " bytes, not " + (globalTransactionId == null ? "none" : globalTransactionId.length));
        }
        if (branchQualifier == null || branchQualifier.length > MAX_BYTES) {
            throw new MalformedFrameException("an Xid's branch qualifier must have 0 to " + MAX_BYTES + " bytes, not "
                    + (branchQualifier == null ? "none" : branchQualifier.length));
        }
    }

    /** Writes the Xid in its wire layout. */
    public void write(ByteBuf out) {
        out.writeInt(formatId);
        WireBytes.write(out, globalTransactionId);
        WireBytes.write(out, branchQualifier);
    }

    /** Reads an Xid written by {@link #write}. */
    public static WireXid read(ByteBuf in) {
        return new WireXid(in.readInt(), WireBytes.read(in), WireBytes.read(in));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof WireXid x && formatId == x.formatId && Arrays.equals(globalTransactionId, x.globalTransactionId)
                && Arrays.equals(branchQualifier, x.branchQualifier);
    }

    @Override
    public int hashCode() {
        return (formatId * 31 + Arrays.hashCode(globalTransactionId)) * 31 + Arrays.hashCode(branchQualifier);
    }

    /** The form errors and logs name a branch by: {@code Xid[formatId=..., gtrid=<hex>, bqual=<hex>]}. */
    @Override
    public String toString() {
        HexFormat hex = HexFormat.of();
        return "Xid[formatId=" + formatId + ", gtrid=" + hex.formatHex(globalTransactionId) + ", bqual="
                + hex.formatHex(branchQualifier) + "]";
    }
}
