package org.wharfmq.perf.workload;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class JitCounterTest {

    @Test
    void aCompilerThreadThatStopsTakesNoTimeBack() {
        CpuSampler.JitCounter counter = new CpuSampler.JitCounter();
        assertEquals(5.0, counter.update(5.0));
        assertEquals(7.0, counter.update(7.0));
        assertEquals(7.0, counter.update(3.0), "a thread with 4 s stopped: the sum of the live ones fell to 3 s");
        assertEquals(8.5, counter.update(4.5), "what the live ones used since counts again");
        assertTrue(Double.isNaN(counter.update(Double.NaN)), "unknown stays unknown");
        assertEquals(9.0, counter.update(5.0));
    }
}
