package org.wharfmq.protocol.auth;

/**
 * A SCRAM exchange failed: a message is malformed, a nonce does not continue the exchange, or a proof is wrong.
 * The message says which, for the log of the side that found it; the peer is told only that authentication failed.
 */
public final class ScramException extends Exception {

    /** @param reason what was wrong, for the log */
    public ScramException(String reason) {
        super(reason);
    }
}
