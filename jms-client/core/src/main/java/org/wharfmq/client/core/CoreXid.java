package org.wharfmq.client.core;

import org.wharfmq.protocol.frame.WireXid;

import javax.transaction.xa.Xid;
import java.util.Arrays;

/**
 * An Xid as {@link CoreXaResource#recover} returns it: one the queue manager holds a prepared branch of. Equal to any
 * Xid with the same three parts, whatever its class, as a transaction manager compares them.
 */
final class CoreXid implements Xid {

    private final WireXid wire;

    CoreXid(WireXid wire) {
        this.wire = wire;
    }

    @Override
    public int getFormatId() {
        return wire.formatId();
    }

    @Override
    public byte[] getGlobalTransactionId() {
        return wire.globalTransactionId().clone();
    }

    @Override
    public byte[] getBranchQualifier() {
        return wire.branchQualifier().clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Xid x && x.getFormatId() == getFormatId()
                && Arrays.equals(x.getGlobalTransactionId(), wire.globalTransactionId())
                && Arrays.equals(x.getBranchQualifier(), wire.branchQualifier());
    }

    @Override
    public int hashCode() {
        return wire.hashCode();
    }

    @Override
    public String toString() {
        return wire.toString();
    }
}
