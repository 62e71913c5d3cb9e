package org.wharfmq.protocol.auth;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.function.Function;

/**
 * The server's side of one SCRAM-SHA-256 exchange (RFC 5802, RFC 7677), without channel binding:
 * {@link #serverFirst} answers the client-first-message, {@link #serverFinal} checks the client's proof and returns
 * the server's signature. An unknown user is not revealed: the exchange goes on with a decoy credential (a salt
 * derived from a per-server secret and the name, so asking twice gives the same salt, and the iteration count known
 * users have) and fails at the proof, as a wrong password does. One exchange per instance; not thread-safe.
 */
public final class ScramServer {

    private final Function<String, ScramCredential> credentials;
    private final byte[] decoySecret;
    private final int decoyIterations;
    private final String serverNonce;
    private String user;
    private boolean known;
    private ScramCredential credential;
    private String clientFirstBare;
    private String serverFirst;
    private String nonce;
    private String channelBinding;

    /**
     * @param credentials the stored credential of a user, or null when there is no such user
     * @param decoySecret a secret of the server's (random per start will do) from which unknown users' decoy salts
     *                    are derived
     */
    public ScramServer(Function<String, ScramCredential> credentials, byte[] decoySecret) {
        this(credentials, decoySecret, ScramCredential.MIN_ITERATIONS);
    }

    /**
     * As {@link #ScramServer(Function, byte[])}, an unknown user's decoy asking for {@code decoyIterations}: the count
     * the known users' verifiers have (else the count in {@code server-first-message} tells an unknown user from a
     * known one).
     */
    public ScramServer(Function<String, ScramCredential> credentials, byte[] decoySecret, int decoyIterations) {
        this(credentials, decoySecret, decoyIterations, ScramNonces.next());
    }

    /** An exchange with the given nonce: for the RFC's test vectors only. */
    ScramServer(Function<String, ScramCredential> credentials, byte[] decoySecret, String nonce) {
        this(credentials, decoySecret, ScramCredential.MIN_ITERATIONS, nonce);
    }

    private ScramServer(Function<String, ScramCredential> credentials, byte[] decoySecret, int decoyIterations,
                        String nonce) {
        this.credentials = credentials;
        this.decoySecret = decoySecret.clone();
        this.decoyIterations = decoyIterations;
        this.serverNonce = nonce;
    }

    /**
     * The server-first-message (the combined nonce, the user's salt and iteration count) for a client-first-message.
     *
     * @throws ScramException when the message is malformed, asks for channel binding or an authorisation identity
     */
    public byte[] serverFirst(byte[] clientFirstMessage) throws ScramException {
        if (serverFirst != null) {
            throw new IllegalStateException("serverFirst is called once per exchange");
        }
        String clientFirst = ScramFunctions.utf8(clientFirstMessage, "the client-first-message");
        if (clientFirst.startsWith("p=")) {
            throw new ScramException("the client asks for channel binding, which this server does not offer");
        }
        if (!clientFirst.startsWith("n,") && !clientFirst.startsWith("y,")) {
            throw new ScramException("the client-first-message does not start with a gs2 header (n,, or y,,)");
        }
        int bare = clientFirst.indexOf(',', 2);
        if (bare != 2) {
            throw new ScramException("the client-first-message names an authorisation identity (a=), which is not supported");
        }
        channelBinding = clientFirst.substring(0, 3);
        clientFirstBare = clientFirst.substring(3);
        Map<String, String> a = ScramFunctions.attributes(clientFirstBare, "the client-first-message");
        user = ScramFunctions.unSaslName(ScramFunctions.require(a, "n", "the client-first-message"));
        String clientNonce = ScramFunctions.require(a, "r", "the client-first-message");
        credential = credentials.apply(user);
        known = credential != null;
        if (!known) {
            credential = decoy(user);
        }
        nonce = clientNonce + serverNonce;
        serverFirst = "r=" + nonce + ",s=" + ScramFunctions.base64(credential.salt()) + ",i=" + credential.iterations();
        return serverFirst.getBytes(StandardCharsets.UTF_8);
    }

    /** The user the client-first-message named; null before {@link #serverFirst}. */
    public String user() {
        return user;
    }

    /**
     * Checks the client's proof and returns the server-final-message (the server's signature, for the client to check).
     *
     * @throws ScramException when the message is malformed, its nonce is not this exchange's (a replayed or foreign
     *                        client-final), the user is unknown or the proof is wrong (the password is)
     */
    public byte[] serverFinal(byte[] clientFinalMessage) throws ScramException {
        if (serverFirst == null) {
            throw new IllegalStateException("serverFinal follows serverFirst");
        }
        String clientFinal = ScramFunctions.utf8(clientFinalMessage, "the client-final-message");
        Map<String, String> a = ScramFunctions.attributes(clientFinal, "the client-final-message");
        String binding = ScramFunctions.require(a, "c", "the client-final-message");
        if (!binding.equals(ScramFunctions.base64(channelBinding.getBytes(StandardCharsets.UTF_8)))) {
            throw new ScramException("the client-final-message's channel binding (c=) does not repeat its gs2 header");
        }
        if (!nonce.equals(ScramFunctions.require(a, "r", "the client-final-message"))) {
            throw new ScramException("the client-final-message's nonce is not this exchange's (a replayed or foreign"
                    + " message)");
        }
        int proofAt = clientFinal.lastIndexOf(",p=");
        if (proofAt < 0 || !a.containsKey("p")) {
            throw new ScramException("the client-final-message lacks its proof (p=) at the end");
        }
        byte[] proof = ScramFunctions.unbase64(a.get("p"), "the proof");
        String authMessage = clientFirstBare + "," + serverFirst + "," + clientFinal.substring(0, proofAt);
        byte[] storedKey = credential.storedKey();
        if (proof.length != storedKey.length) {
            throw new ScramException("the proof has " + proof.length + " bytes, not " + storedKey.length);
        }
        byte[] clientKey = ScramFunctions.xor(proof, ScramFunctions.hmac(storedKey, authMessage));
        boolean proven = ScramFunctions.same(ScramFunctions.sha256(clientKey), storedKey);
        if (!known) {
            throw new ScramException("there is no user '" + user + "'");
        }
        if (!proven) {
            throw new ScramException("the proof is wrong (wrong password)");
        }
        return ("v=" + ScramFunctions.base64(ScramFunctions.hmac(credential.serverKey(), authMessage)))
                .getBytes(StandardCharsets.UTF_8);
    }

    private ScramCredential decoy(String name) {
        byte[] seed = ScramFunctions.hmac(decoySecret, "decoy:" + name);
        return new ScramCredential(decoyIterations, Arrays.copyOf(seed, ScramCredential.SALT_BYTES),
                ScramFunctions.hmac(seed, "stored"), ScramFunctions.hmac(seed, "server"));
    }
}
