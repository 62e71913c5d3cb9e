package org.wharfmq.flow.node;

import org.junit.jupiter.api.Test;
import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.FlowValidationException;
import org.wharfmq.flow.TransactionMode;
import org.wharfmq.flow.runtime.RunningFlow;

import javax.jms.ConnectionFactory;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What building a flow refuses in an HTTP Input node's settings, and that such a flow cannot start where there is no
 * HTTP listener (before it connects anywhere).
 */
class HttpInputNodeSettingsTest {

    private static FlowDefinition flow(HttpInputNode input) {
        return FlowDefinition.builder("f")
                .node("in", input)
                .node("reply", new HttpReplyNode())
                .wire("in", "out", "reply")
                .build();
    }

    private static String refusal(HttpInputNode input) {
        return assertThrows(FlowValidationException.class, () -> flow(input)).getMessage();
    }

    @Test
    void aPathOutsideFlowsOrWithDotsOrAQueryIsRefused() {
        for (String path : new String[] {"/metrics", "/flows/", "/flows/a/../../api", "/flows/a?x=1", "flows/a",
                "/flows//a"}) {
            assertEquals("Flow 'f', node 'in': an HTTPInput node's path is a plain path under /flows/ (such as "
                    + "/flows/orders), without query, '//' or '..', was '" + path + "'.",
                    refusal(HttpInputNode.path(path)));
        }
        flow(HttpInputNode.path("/flows/orders/eu")); // a plain one builds
    }

    @Test
    void aTimeoutLimitOrTransactionModeOutOfRangeIsRefused() {
        assertTrue(refusal(HttpInputNode.path("/flows/a").timeout(Duration.ZERO)).contains("timeout must be above "
                + "zero"));
        assertTrue(refusal(HttpInputNode.path("/flows/a").maxRequestBytes(-1)).contains("maxRequestBytes cannot be "
                + "negative"));
        assertTrue(refusal(HttpInputNode.path("/flows/a").transactionMode(TransactionMode.AUTOMATIC))
                .contains("transactionMode is YES or NO"));
    }

    @Test
    void aFlowWithAnHttpInputCannotStartWithoutAnHttpListener() {
        ConnectionFactory unused = (ConnectionFactory) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {ConnectionFactory.class}, (proxy, method, args) -> {
                    throw new AssertionError("it should be refused before it connects");
                });
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> RunningFlow.start(
                flow(HttpInputNode.path("/flows/a")), unused, Map.of(), 1, false, getClass().getClassLoader()));
        assertEquals("Flow 'f' has HTTPInput 'in' (path /flows/a), but it runs where there is no HTTP listener: "
                + "deploy it in a server whose configuration has an http: block (docs/flows.md, \"HTTP input and reply nodes\").",
                e.getMessage());
    }
}
