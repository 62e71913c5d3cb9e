package org.wharfmq.protocol.auth;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;

/**
 * The client's side of one SCRAM-SHA-256 exchange (RFC 5802, RFC 7677), without channel binding: {@link #clientFirst},
 * then {@link #clientFinal} with the server's first message, then {@link #verifyServerFinal} with its last, which
 * proves the server knows the user's key too (a server that merely accepts anything fails there). The password is
 * used to derive the keys and then forgotten; it never leaves this object. One exchange per instance; not thread-safe.
 */
public final class ScramClient {

    private final String user;
    private final String clientNonce;
    private final String clientFirstBare;
    private char[] password;
    private byte[] expectedServerSignature;

    /** An exchange for {@code user} with a fresh random nonce; {@code password} is copied and cleared after use. */
    public ScramClient(String user, char[] password) {
        this(user, password, ScramNonces.next());
    }

    /** An exchange with the given nonce: for the RFC's test vectors only. */
    ScramClient(String user, char[] password, String nonce) {
        this.user = user;
        this.password = password.clone();
        this.clientNonce = nonce;
        this.clientFirstBare = "n=" + ScramFunctions.saslName(user) + ",r=" + nonce;
    }

    /** The client-first-message: the gs2 header (no channel binding), the user and the client's nonce. */
    public byte[] clientFirst() {
        return (ScramFunctions.GS2_HEADER + clientFirstBare).getBytes(StandardCharsets.UTF_8);
    }

    /**
     * The client-final-message, carrying the proof that the client knows the password, for the server's first message.
     *
     * @throws ScramException when the server's message is malformed, its nonce does not extend the client's, or its
     *                        iteration count is outside [{@link ScramCredential#MIN_ITERATIONS},
     *                        {@link ScramCredential#MAX_ITERATIONS}]
     */
    public byte[] clientFinal(byte[] serverFirstMessage) throws ScramException {
        if (password == null) {
            throw new IllegalStateException("clientFinal is called once per exchange");
        }
        String serverFirst = ScramFunctions.utf8(serverFirstMessage, "the server-first-message");
        Map<String, String> a = ScramFunctions.attributes(serverFirst, "the server-first-message");
        String nonce = ScramFunctions.require(a, "r", "the server-first-message");
        if (!nonce.startsWith(clientNonce) || nonce.length() == clientNonce.length()) {
            throw new ScramException("the server's nonce does not extend the client's");
        }
        byte[] salt = ScramFunctions.unbase64(ScramFunctions.require(a, "s", "the server-first-message"), "the salt");
        int iterations;
        try {
            iterations = Integer.parseInt(ScramFunctions.require(a, "i", "the server-first-message"));
        } catch (NumberFormatException e) {
            throw new ScramException("the server's iteration count is not a number");
        }
        if (iterations < ScramCredential.MIN_ITERATIONS || iterations > ScramCredential.MAX_ITERATIONS) {
            throw new ScramException("the server asks for " + iterations + " iterations; a client accepts "
                    + ScramCredential.MIN_ITERATIONS + " to " + ScramCredential.MAX_ITERATIONS);
        }
        byte[] salted = ScramFunctions.saltedPassword(password, salt, iterations);
        Arrays.fill(password, '\0');
        password = null;
        byte[] clientKey = ScramFunctions.hmac(salted, "Client Key");
        byte[] storedKey = ScramFunctions.sha256(clientKey);
        String withoutProof = "c=" + ScramFunctions.base64(ScramFunctions.GS2_HEADER.getBytes(StandardCharsets.UTF_8))
                + ",r=" + nonce;
        String authMessage = clientFirstBare + "," + serverFirst + "," + withoutProof;
        byte[] proof = ScramFunctions.xor(clientKey, ScramFunctions.hmac(storedKey, authMessage));
        expectedServerSignature = ScramFunctions.hmac(ScramFunctions.hmac(salted, "Server Key"), authMessage);
        return (withoutProof + ",p=" + ScramFunctions.base64(proof)).getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Checks the server-final-message: the server's signature proves it holds the user's ServerKey.
     *
     * @throws ScramException when the signature is wrong or the server reports an error ({@code e=})
     */
    public void verifyServerFinal(byte[] serverFinalMessage) throws ScramException {
        if (expectedServerSignature == null) {
            throw new IllegalStateException("verifyServerFinal follows clientFinal");
        }
        Map<String, String> a = ScramFunctions.attributes(
                ScramFunctions.utf8(serverFinalMessage, "the server-final-message"), "the server-final-message");
        if (a.containsKey("e")) {
            throw new ScramException("the server refused the proof: " + a.get("e"));
        }
        byte[] signature = ScramFunctions.unbase64(ScramFunctions.require(a, "v", "the server-final-message"),
                "the server signature");
        if (!ScramFunctions.same(signature, expectedServerSignature)) {
            throw new ScramException("the server's signature is wrong: it does not know user '" + user
                    + "''s key (a server impersonating the real one?)");
        }
    }
}
