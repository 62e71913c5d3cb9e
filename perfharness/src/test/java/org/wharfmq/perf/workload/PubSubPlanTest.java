package org.wharfmq.perf.workload;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The processes of a publish/subscribe step: PS-N's 1,000 subscribers fit a 2-core machine's few JVMs. */
class PubSubPlanTest {

    /** 1,000 subscribers: four JVMs of 250, 25 sessions to a connection (40 connections), every one on PS/N. */
    @Test
    void aThousandSubscribersAreFourJvmsOfFortyConnections() {
        PubSubPlan plan = new PubSubPlan(Workload.PS_N, 1000, 0);
        List<List<String>> jvms = plan.subscriberArgs();
        assertEquals(4, jvms.size());
        int subscribers = 0;
        for (List<String> args : jvms) {
            int threads = Integer.parseInt(args.get(args.indexOf("-nt") + 1));
            assertEquals(250, threads, args.toString());
            assertEquals("25", args.get(args.indexOf("-sc") + 1), "sessions per connection");
            assertEquals("PS/N", args.get(args.indexOf("-d") + 1));
            subscribers += threads;
        }
        assertEquals(1000, subscribers);
        List<String> publisher = plan.publisherArgs(false);
        assertTrue(publisher.containsAll(List.of("-nt", "1", "-fp", "4")), "one publisher, paced by the four JVMs: " + publisher);
    }
}
