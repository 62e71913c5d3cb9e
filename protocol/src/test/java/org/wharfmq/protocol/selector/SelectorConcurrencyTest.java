package org.wharfmq.protocol.selector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** One compiled selector shared by many delivery threads must give every thread the right answers. */
class SelectorConcurrencyTest {

    private static final int THREADS = 8;
    private static final int ITERATIONS = 20_000;

    @Test
    void sharedSelectorEvaluatesCorrectlyFromManyThreads() throws Exception {
        Selector selector = Selector.parse(
                "color IN ('red', 'blue') AND size * 2 BETWEEN 4 AND 20 AND name LIKE 'item-%-_' AND ref IS NOT NULL");
        // each thread owns messages whose expected result depends on the thread and the iteration, so a selector
        // that leaked state between threads or calls would produce a mismatch
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        CountDownLatch ready = new CountDownLatch(THREADS);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Integer>> results = new ArrayList<>();
        try {
            for (int t = 0; t < THREADS; t++) {
                int thread = t;
                results.add(pool.submit(() -> {
                    MapContext matching = MapContext.of(
                            "color", thread % 2 == 0 ? "red" : "blue", "size", 2 + thread, "name", "item-" + thread + "-x",
                            "ref", thread);
                    MapContext notMatching = MapContext.of(
                            "color", "green", "size", 2 + thread, "name", "item-" + thread + "-x", "ref", thread);
                    MapContext unknown = MapContext.of(
                            "color", "red", "name", "item-" + thread + "-x", "ref", thread);
                    ready.countDown();
                    start.await();
                    int mismatches = 0;
                    for (int i = 0; i < ITERATIONS; i++) {
                        switch (i % 3) {
                            case 0 -> mismatches += selector.matches(matching) ? 0 : 1;
                            case 1 -> mismatches += selector.matches(notMatching) ? 1 : 0;
                            default -> mismatches += selector.matches(unknown) ? 1 : 0;
                        }
                    }
                    return mismatches;
                }));
            }
            assertTrue(ready.await(30, TimeUnit.SECONDS), "worker threads did not start");
            start.countDown();
            int total = 0;
            for (Future<Integer> result : results) {
                total += result.get(60, TimeUnit.SECONDS);
            }
            assertEquals(0, total, "wrong results under concurrent evaluation");
        } finally {
            pool.shutdownNow();
        }
    }
}
