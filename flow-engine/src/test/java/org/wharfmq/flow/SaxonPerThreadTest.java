package org.wharfmq.flow;

import net.sf.saxon.s9api.SaxonApiException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * XPath expressions and stylesheets keep one Saxon evaluator per thread: several threads evaluating at once each get
 * their own message's answer, and an evaluator used again starts as a new one (its message gone, the time read
 * again, the stylesheet's global variables evaluated against the new message).
 */
class SaxonPerThreadTest {

    private static final int THREADS = 4;
    private static final int ROUNDS = 2_000;

    private static FlowMessage order(int id) {
        return FlowMessage.ofBytes(Domain.XML, ("<Order><Id>" + id + "</Id><Items><Item>" + id + "</Item></Items>"
                + "</Order>").getBytes(StandardCharsets.UTF_8));
    }

    /** Runs {@code work} on {@link #THREADS} threads at once (thread i with its own index) and fails on a failure. */
    private static void atOnce(ThreadWork work) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(THREADS);
        CyclicBarrier start = new CyclicBarrier(THREADS);
        try {
            List<Future<Void>> done = new ArrayList<>();
            for (int i = 0; i < THREADS; i++) {
                int thread = i;
                done.add(threads.submit((Callable<Void>) () -> {
                    start.await(10, TimeUnit.SECONDS);
                    work.run(thread);
                    return null;
                }));
            }
            for (Future<Void> each : done) {
                each.get(60, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
        }
    }

    private interface ThreadWork {
        void run(int thread) throws Exception;
    }

    @Test
    void eachThreadKeepsItsOwnEvaluator() throws Exception {
        SaxonPerThread<Object> evaluators = new SaxonPerThread<>(Object::new);
        Object mine = evaluators.get();
        assertSame(mine, evaluators.get(), "kept for the thread's next use");
        Object[] other = new Object[1];
        Thread thread = new Thread(() -> other[0] = evaluators.get());
        thread.start();
        thread.join();
        assertNotSame(mine, other[0], "never shared between threads");
    }

    @Test
    void threadsEvaluatingOneExpressionAtOnceEachGetTheirOwnMessagesAnswer() throws Exception {
        XPathQuery id = XPathQuery.compile("/Order/Id");
        XPathQuery odd = XPathQuery.compile("/Order/Id mod 2 = 1");
        XPathQuery sum = XPathQuery.compile("sum(/Order/Id | //Item)");
        atOnce(thread -> {
            for (int round = 0; round < ROUNDS; round++) {
                int own = thread * ROUNDS + round;
                FlowMessage message = order(own);
                assertEquals(String.valueOf(own), id.string(message), "thread " + thread + " round " + round);
                assertEquals(own % 2 == 1, odd.test(message), "thread " + thread + " round " + round);
                assertEquals(String.valueOf(2L * own), sum.evaluate(message).toString(),
                        "thread " + thread + " round " + round);
            }
        });
    }

    @Test
    void anEvaluatorUsedAgainReadsTheTimeAgain() throws Exception {
        XPathQuery now = XPathQuery.compile("string(current-dateTime())");
        FlowMessage message = order(1);
        OffsetDateTime first = OffsetDateTime.parse(now.string(message));
        while (!OffsetDateTime.now().isAfter(first.plusNanos(2_000_000))) {
            Thread.onSpinWait(); // the clock, not another thread, is waited for
        }
        OffsetDateTime second = OffsetDateTime.parse(now.string(message));
        assertTrue(second.isAfter(first), "current-dateTime() is one evaluation's, not the selector's: " + first
                + " then " + second);
    }

    @Test
    void anEvaluatorKeepsNoMessageBetweenEvaluations() {
        XPathQuery id = XPathQuery.compile("for $item in //Item return string($item)");
        assertEquals("5", id.evaluate(order(5)).toString());
        var context = id.threadSelector().getUnderlyingXPathContext();
        assertNull(context.getContextItem(), "the message's tree is let go");
        for (var value : context.getXPathContextObject().getStackFrame().getStackFrameValues()) {
            assertNull(value, "nor the variables bound to its nodes");
        }
        assertEquals("6", id.evaluate(order(6)).toString());
    }

    @Test
    void threadsTransformingAtOnceEachGetTheirOwnMessagesResultWithItsGlobalVariables(@TempDir Path dir)
            throws Exception {
        XsltStylesheet stylesheet = XsltStylesheet.compile(Files.writeString(dir.resolve("id.xsl"), """
                <xsl:stylesheet version="2.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
                  <xsl:output method="xml" omit-xml-declaration="yes"/>
                  <xsl:variable name="id" select="/Order/Id"/>
                  <xsl:template match="/">
                    <Out global="{$id}"><xsl:value-of select="sum(//Item)"/></Out>
                  </xsl:template>
                </xsl:stylesheet>""").toUri().toURL());
        atOnce(thread -> {
            for (int round = 0; round < ROUNDS / 8; round++) {
                int own = thread * ROUNDS + round;
                FlowMessage output = FlowMessage.ofBytes(Domain.XML, new byte[0]);
                stylesheet.transform(order(own), output);
                assertEquals("<Out global=\"" + own + "\">" + own + "</Out>",
                        new String(output.bodyBytes(), StandardCharsets.UTF_8), "thread " + thread + " round " + round);
            }
        });
    }

    @Test
    void aFailedTransformationLeavesTheTransformerReadyForTheNextMessage(@TempDir Path dir) throws Exception {
        XsltStylesheet stylesheet = XsltStylesheet.compile(Files.writeString(dir.resolve("stop.xsl"), """
                <xsl:stylesheet version="2.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
                  <xsl:output method="text"/>
                  <xsl:template match="/">
                    <xsl:if test="/Order/Id = 0"><xsl:message terminate="yes">no order 0</xsl:message></xsl:if>
                    <xsl:value-of select="/Order/Id"/>
                  </xsl:template>
                </xsl:stylesheet>""").toUri().toURL());
        FlowMessage output = FlowMessage.ofBytes(Domain.XML, new byte[0]);
        assertThrows(SaxonApiException.class,
                () -> stylesheet.transform(order(0), output));
        stylesheet.transform(order(3), output);
        assertEquals("3", new String(output.bodyBytes(), StandardCharsets.UTF_8));
    }
}
