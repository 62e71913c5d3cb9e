package org.wharfmq.server.store;

/**
 * A persistent message was refused because the journal reached its configured limit ({@code journalMaxBytes}) or
 * the disk is nearly full. Nothing already written is affected; consumers, commits and acknowledgements go on, and
 * sends succeed again once consumption and reclamation have made room.
 */
public final class JournalFullException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    JournalFullException(String message) {
        super(message, null, false, false);
    }

    @Override
    public String toString() {
        return getMessage();
    }
}
