package org.wharfmq.client.core;

/**
 * A COMMIT's link was lost after it was sent and before the server answered, or its answer did not come within
 * requestTimeout: the transaction may have been (or may yet be) committed or rolled back, and nobody on this side
 * knows which. A new transaction has begun; the message says what each outcome means.
 */
public final class TransactionOutcomeUnknownException extends ClientException {
    private static final long serialVersionUID = 1L;

    public TransactionOutcomeUnknownException(String message) {
        super(message, null);
    }
}
