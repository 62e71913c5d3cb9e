package org.wharfmq.perf.workload;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What the runner says of a process that ended without the line it waited for. */
class OutputLinesTest {

    /**
     * A server that died of an exception at its start is told by the exception and its cause, not by the last frames of
     * its stack trace (session 32's quick report: F-JMS's other provider ended with eight frames and no reason).
     */
    @Test
    void aProcessThatDiedOfAnExceptionIsToldByItsExceptionNotItsFrames() {
        OutputLines out = new OutputLines(line -> { });
        out.accept("starting");
        out.accept("Exception in thread \"main\" java.lang.IllegalStateException: the admin plugin could not start");
        for (int i = 0; i < 12; i++) {
            out.accept("\tat org.wharfmq.Some.frame" + i + "(Some.java:" + i + ")");
        }
        out.accept("Caused by: org.wharfmq.client.core.ClientException: no answer to the handshake within 10000 ms");
        out.accept("\tat org.wharfmq.client.core.CoreConnection.connect(CoreConnection.java:112)");
        out.accept("\t... 9 more");
        out.end();
        String said = assertThrows(TimeoutException.class, () -> out.await("wharf-perf: server ready", Duration.ofSeconds(1),
                "wharf-provider")).getMessage();
        assertTrue(said.startsWith("wharf-provider ended without printing 'wharf-perf: server ready'; its last lines: starting | "
                + "Exception in thread \"main\" java.lang.IllegalStateException: the admin plugin could not start | Caused by: "), said);
        assertTrue(said.endsWith("no answer to the handshake within 10000 ms"), said);
        assertFalse(said.contains("\tat "), said);
    }

    @Test
    void theTailIsTheLastLinesOfAnOrdinaryOutput() {
        OutputLines out = new OutputLines(line -> { });
        for (int i = 1; i <= 10; i++) {
            out.accept("line " + i);
        }
        assertEquals("line 3 | line 4 | line 5 | line 6 | line 7 | line 8 | line 9 | line 10", out.tail());
    }
}
