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

    @Test
    void aShortListHasNoCountLine() {
        RunControl control = new RunControl(1);
        control.loss("no reply to request 3");
        assertEquals(List.of("loss: no reply to request 3"), control.problems());
    }
}
