package org.wharfmq.protocol.auth;

import org.junit.jupiter.api.Test;

import java.security.SecureRandom;

import static org.junit.jupiter.api.Assertions.*;

/** The stored form of a password: PostgreSQL's verifier format, both ways, and what it refuses. */
class ScramCredentialTest {

    @Test
    void aVerifierReadsBackAsTheSameCredential() {
        ScramCredential c = ScramCredential.create("pw".toCharArray(), 5000, new SecureRandom());
        String verifier = c.verifier();
        assertTrue(verifier.startsWith("SCRAM-SHA-256$5000:"), verifier);
        assertEquals(c, ScramCredential.parse(verifier));
        assertFalse(c.toString().contains(verifier.substring(verifier.indexOf('$', 15))), "toString hides the keys");
    }

    @Test
    void aPostgresVerifierOfTheRfcVectorParses() {
        ScramCredential c = ScramCredential.derive("pencil".toCharArray(),
                java.util.Base64.getDecoder().decode("W22ZaJ0SNY7soEsUEjb6gQ=="), 4096);
        assertEquals(c, ScramCredential.parse(c.verifier()));
    }

    @Test
    void clearTextAndBrokenVerifiersAreRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ScramCredential.parse("secret"));
        assertTrue(e.getMessage().contains("user add"), e.getMessage());
        assertFalse(e.getMessage().contains("secret"), "never quotes what may be a password");
        assertThrows(IllegalArgumentException.class, () -> ScramCredential.parse("SCRAM-SHA-256$4096:abc"));
        assertThrows(IllegalArgumentException.class, () -> ScramCredential.parse("SCRAM-SHA-256$1:c2FsdA==$"
                + "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="), "too few iterations");
        assertThrows(IllegalArgumentException.class, () -> ScramCredential.parse("SCRAM-SHA-256$4096:c2FsdA==$AAAA:AAAA"),
                "keys of the wrong length");
    }
}
