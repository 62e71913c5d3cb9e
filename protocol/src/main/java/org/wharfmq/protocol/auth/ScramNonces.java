package org.wharfmq.protocol.auth;

import java.security.SecureRandom;

/** The random part each side adds to a SCRAM exchange: 24 bytes from {@link SecureRandom}, base64 (never a ','). */
final class ScramNonces {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final int NONCE_BYTES = 24;

    private ScramNonces() {
    }

    static String next() {
        byte[] bytes = new byte[NONCE_BYTES];
        RANDOM.nextBytes(bytes);
        return ScramFunctions.base64(bytes);
    }
}
