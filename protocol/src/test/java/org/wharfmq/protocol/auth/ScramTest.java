package org.wharfmq.protocol.auth;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/** SCRAM-SHA-256 against RFC 7677's test vector, and every way an exchange must fail. */
class ScramTest {

    private static final byte[] SECRET = "server secret".getBytes(StandardCharsets.UTF_8);
    private static final char[] PENCIL = "pencil".toCharArray();

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    /** RFC 7677 section 3: user "user", password "pencil", both nonces fixed. */
    @Test
    void rfc7677TestVector() throws Exception {
        ScramCredential credential = ScramCredential.derive(PENCIL, Base64.getDecoder().decode("W22ZaJ0SNY7soEsUEjb6gQ=="), 4096);
        ScramClient client = new ScramClient("user", PENCIL, "rOprNGfwEbeRWgbNEkqO");
        ScramServer server = new ScramServer(Map.of("user", credential)::get, SECRET, "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0");

        byte[] clientFirst = client.clientFirst();
        assertEquals("n,,n=user,r=rOprNGfwEbeRWgbNEkqO", text(clientFirst));
        byte[] serverFirst = server.serverFirst(clientFirst);
        assertEquals("r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096", text(serverFirst));
        assertEquals("user", server.user());
        byte[] clientFinal = client.clientFinal(serverFirst);
        assertEquals("c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
                + "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=", text(clientFinal));
        byte[] serverFinal = server.serverFinal(clientFinal);
        assertEquals("v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=", text(serverFinal));
        client.verifyServerFinal(serverFinal);
    }

    @Test
    void aRandomExchangeSucceedsWithTheRightPassword() throws Exception {
        ScramCredential stored = ScramCredential.create("s3cret, with = signs".toCharArray(), 4096, new SecureRandom());
        ScramServer server = new ScramServer(Map.of("a,b=c", stored)::get, SECRET);
        ScramClient client = new ScramClient("a,b=c", "s3cret, with = signs".toCharArray());
        byte[] serverFinal = server.serverFinal(client.clientFinal(server.serverFirst(client.clientFirst())));
        assertEquals("a,b=c", server.user(), "the escaped name comes back as it was");
        client.verifyServerFinal(serverFinal);
    }

    @Test
    void aWrongPasswordFailsAtTheProof() throws Exception {
        ScramServer server = new ScramServer(Map.of("user", ScramCredential.derive(PENCIL, utf8("salt"), 4096))::get, SECRET);
        ScramClient client = new ScramClient("user", "pen".toCharArray());
        byte[] clientFinal = client.clientFinal(server.serverFirst(client.clientFirst()));
        ScramException e = assertThrows(ScramException.class, () -> server.serverFinal(clientFinal));
        assertTrue(e.getMessage().contains("proof is wrong"), e.getMessage());
    }

    @Test
    void anUnknownUserGetsAStableDecoySaltAndFailsAtTheProof() throws Exception {
        ScramServer first = new ScramServer(name -> null, SECRET);
        ScramServer second = new ScramServer(name -> null, SECRET);
        ScramClient client = new ScramClient("nobody", PENCIL);
        String salt1 = text(first.serverFirst(client.clientFirst())).replaceAll(".*,s=([^,]*),.*", "$1");
        String salt2 = text(second.serverFirst(new ScramClient("nobody", PENCIL).clientFirst())).replaceAll(".*,s=([^,]*),.*", "$1");
        assertEquals(salt1, salt2, "asking twice must not reveal that the user does not exist");
        ScramClient c = new ScramClient("nobody", PENCIL);
        ScramServer s = new ScramServer(name -> null, SECRET);
        byte[] clientFinal = c.clientFinal(s.serverFirst(c.clientFirst()));
        assertThrows(ScramException.class, () -> s.serverFinal(clientFinal));
    }

    @Test
    void aReplayedClientFinalFailsOnItsNonce() throws Exception {
        Map<String, ScramCredential> users = Map.of("user", ScramCredential.derive(PENCIL, utf8("salt"), 4096));
        ScramClient client = new ScramClient("user", PENCIL);
        byte[] clientFirst = client.clientFirst();
        ScramServer original = new ScramServer(users::get, SECRET);
        byte[] clientFinal = client.clientFinal(original.serverFirst(clientFirst));
        original.serverFinal(clientFinal);
        // an eavesdropper replays both client messages on a new connection: the server's nonce differs
        ScramServer replayed = new ScramServer(users::get, SECRET);
        replayed.serverFirst(clientFirst);
        ScramException e = assertThrows(ScramException.class, () -> replayed.serverFinal(clientFinal));
        assertTrue(e.getMessage().contains("nonce"), e.getMessage());
    }

    @Test
    void aServerThatDoesNotKnowTheKeyIsCaughtByTheClient() throws Exception {
        ScramClient client = new ScramClient("user", PENCIL);
        ScramServer impostor = new ScramServer(Map.of("user", ScramCredential.derive("other".toCharArray(), utf8("salt"), 4096))::get, SECRET);
        client.clientFinal(impostor.serverFirst(client.clientFirst()));
        assertThrows(ScramException.class, () -> client.verifyServerFinal(utf8("v=" + Base64.getEncoder().encodeToString(new byte[32]))));
        assertThrows(IllegalStateException.class, () -> new ScramClient("user", PENCIL).verifyServerFinal(utf8("v=AAAA")));
    }

    @Test
    void malformedMessagesAreRefusedWithAReason() {
        ScramServer server = new ScramServer(name -> null, SECRET);
        for (String bad : new String[]{"", "x,,n=user,r=abc", "p=tls-unique,,n=user,r=abc", "n,a=admin,n=user,r=abc",
                "n,,n=user", "n,,r=abc", "n,,m=ext,n=user,r=abc", "n,,n=us=er,r=abc", "n,,n=user,r=abc,r=def", "n,,garbage"}) {
            assertThrows(ScramException.class, () -> new ScramServer(name -> null, SECRET).serverFirst(utf8(bad)), bad);
        }
        ScramClient client = new ScramClient("user", PENCIL);
        client.clientFirst();
        assertThrows(ScramException.class, () -> client.clientFinal(utf8("r=someone-elses-nonce,s=c2FsdA==,i=4096")));
        ScramClient lowIterations = new ScramClient("user", PENCIL, "abc");
        assertThrows(ScramException.class, () -> lowIterations.clientFinal(utf8("r=abcdef,s=c2FsdA==,i=1")),
                "a server must not make a client's proof cheap to attack");
        ScramClient badSalt = new ScramClient("user", PENCIL, "abc");
        assertThrows(ScramException.class, () -> badSalt.clientFinal(utf8("r=abcdef,s=!!!,i=4096")));
        assertThrows(IllegalStateException.class, () -> server.serverFinal(utf8("c=biws,r=x,p=y")));
    }

    @Test
    void aClientFinalWithoutProofOrWithTheWrongBindingIsRefused() throws Exception {
        Map<String, ScramCredential> users = Map.of("user", ScramCredential.derive(PENCIL, utf8("salt"), 4096));
        ScramServer server = new ScramServer(users::get, SECRET, "SRV");
        server.serverFirst(utf8("n,,n=user,r=CLI"));
        assertThrows(ScramException.class, () -> server.serverFinal(utf8("c=biws,r=CLISRV")));
        ScramServer other = new ScramServer(users::get, SECRET, "SRV");
        other.serverFirst(utf8("n,,n=user,r=CLI"));
        assertThrows(ScramException.class, () -> other.serverFinal(utf8("c=eSws,r=CLISRV,p=AAAA")));
    }
}
