package org.wharfmq.server.replication;

/**
 * An append refused because this member is not the active instance (the Raft leader), or stopped being it before
 * the batch was committed by a majority. Whether such a batch is in the log is unknown until the next leader has
 * committed its first entry: then it is there on every member, or on none.
 */
public final class NotActiveException extends IllegalStateException {

    private final String active;

    NotActiveException(String message, String active) {
        super(message);
        this.active = active;
    }

    /** The id of the member this one last heard is active, or null if it knows of none. */
    public String active() {
        return active;
    }
}
