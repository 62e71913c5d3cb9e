package org.wharfmq.perf.driver;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The problems a run reports: the first ones described, the rest counted, so a long list cannot be misread. */
class RunControlTest {

    @Test
    void problemsPastTheListedOnesAreCountedWithTheTotalsOfEachKind() {
        RunControl control = new RunControl(1);
        for (int i = 0; i < 18; i++) {
            control.loss("no reply to request " + i);
        }
        for (int i = 0; i < 18; i++) {
            control.duplicate("reply to request " + i + " left on REPLY");
        }
        List<String> problems = control.problems();
        assertEquals(21, problems.size(), problems.toString());
        assertEquals("duplicate: reply to request 1 left on REPLY", problems.get(19));
        assertEquals("and 16 more problems not listed (in all: 18 losses, 18 duplicates, 0 unexpected)",
                problems.get(20));
    }

    /** A worker's failure names the error and what is at its root, a broker's refusal often only its consequence. */
    @Test
    void aFailureNamesItsRootCause() throws Exception {
        RunControl control = new RunControl(1);
        javax.jms.JMSException refused = new javax.jms.JMSException("COMMIT FAILED: Transaction marked rollback only");
        refused.initCause(new javax.transaction.xa.XAException("COMMIT FAILED"));
        refused.getCause().initCause(new OutOfMemoryError("Java heap space"));
        control.failed("resp-0", refused);
        control.failed("resp-1", new javax.jms.JMSException("closed"));
        assertEquals(List.of("resp-0 failed: javax.jms.JMSException: COMMIT FAILED: Transaction marked rollback only (at the root: "
                + "java.lang.OutOfMemoryError: Java heap space)", "resp-1 failed: javax.jms.JMSException: closed"), control.problems());
    }

    @Test
    void aShortListHasNoCountLine() {
        RunControl control = new RunControl(1);
        control.loss("no reply to request 3");
        assertEquals(List.of("loss: no reply to request 3"), control.problems());
    }
}
