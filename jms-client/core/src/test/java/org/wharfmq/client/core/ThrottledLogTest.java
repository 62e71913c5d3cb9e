package org.wharfmq.client.core;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The first line at once, then at most one per interval, counting those in between (a clock the test moves). */
class ThrottledLogTest {

    @Test
    void logsTheFirstThenOneLinePerIntervalWithTheCountOfTheOthers() {
        List<String> lines = new ArrayList<>();
        AtomicLong now = new AtomicLong();
        ThrottledLog log = new ThrottledLog(lines::add, 60_000, now::get);
        for (int i = 1; i <= 500; i++) {
            int n = i;
            log.warn(() -> "answer " + n);
        }
        assertEquals(List.of("answer 1"), lines);
        now.addAndGet(TimeUnit.SECONDS.toNanos(59));
        log.warn(() -> "answer 501");
        assertEquals(1, lines.size(), "within the interval: counted, not logged");
        now.addAndGet(TimeUnit.SECONDS.toNanos(1));
        log.warn(() -> "answer 502");
        assertEquals("answer 502 (and 500 more like it since the last such line, not logged one by one: at most one"
                + " line every 60 s per connection)", lines.get(1));
        now.addAndGet(TimeUnit.SECONDS.toNanos(60));
        log.warn(() -> "answer 503");
        assertEquals("answer 503", lines.get(2), "none skipped since the last line");
    }
}
