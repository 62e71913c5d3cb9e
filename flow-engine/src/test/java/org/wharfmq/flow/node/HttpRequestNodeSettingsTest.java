package org.wharfmq.flow.node;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.flow.Domain;
import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.FlowValidationException;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What building a flow refuses in an HTTP Request node's settings, naming the node and the fix. */
class HttpRequestNodeSettingsTest {

    @TempDir
    Path dir;

    private static String refusal(HttpRequestNode node) {
        return assertThrows(FlowValidationException.class, () -> FlowDefinition.builder("f")
                .node("in", InputNode.queue("IN"))
                .node("call", node)
                .wire("in", "out", "call")
                .build()).getMessage();
    }

    @Test
    void aUrlThatIsNotHttpIsRefused() {
        assertEquals("Flow 'f', node 'call': an HTTPRequest node calls http or https URLs only, not "
                + "'file:///etc/passwd'.", refusal(HttpRequestNode.get("file:///etc/passwd")));
    }

    @Test
    void aTrustStoreThatCannotBeReadOrLoadedStopsTheBuild() throws Exception {
        Path missing = dir.resolve("missing.p12");
        assertEquals("Flow 'f', node 'call': cannot read the trust store " + missing.toAbsolutePath()
                        + ": no such readable file.",
                refusal(HttpRequestNode.post("https://localhost/").trustStore(missing, "x".toCharArray())));
        Path garbage = Files.writeString(dir.resolve("garbage.p12"), "not a key store");
        String why = refusal(HttpRequestNode.post("https://localhost/").trustStore(garbage, "x".toCharArray()));
        assertTrue(why.startsWith("Flow 'f', node 'call': cannot load the trust store "
                + garbage.toAbsolutePath() + " (PKCS12 or JKS, with its password): "), why);
    }

    @Test
    void timeoutsAndRetriesOutOfRangeAreRefused() {
        assertEquals("Flow 'f', node 'call': an HTTPRequest node's timeouts must be above zero (connect PT0S, "
                + "request PT1M).", refusal(HttpRequestNode.get("http://localhost/").connectTimeout(Duration.ZERO)));
        assertEquals("Flow 'f', node 'call': an HTTPRequest node's retries (-1) and retry delay (PT1S) cannot be "
                + "negative.", refusal(HttpRequestNode.get("http://localhost/").retries(-1, Duration.ofSeconds(1))));
    }

    @Test
    void aRecordsResponseWithoutItsLayoutIsRefused() {
        assertEquals("Flow 'f', node 'call': an HTTPRequest node whose response is in the RECORDS domain needs the "
                + "records' layout: responseRecords(format) instead of responseDomain(RECORDS).",
                refusal(HttpRequestNode.get("http://localhost/").responseDomain(Domain.RECORDS)));
    }
}
