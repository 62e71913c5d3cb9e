package org.wharfmq.server.replication;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The bytes a replica lacks, from its match index and the batches the active member committed. */
class ReplicaBacklogTest {

    @Test
    void aReplicaLacksTheBytesCommittedAfterTheIndexItHolds() {
        ReplicaBacklog backlog = new ReplicaBacklog();
        assertEquals(0, backlog.behind(0), "nothing committed");
        backlog.committed(5, 100);
        backlog.committed(9, 50); // a batch in pieces: entries 6 to 9, recorded at its last
        backlog.committed(10, 7);
        assertEquals(0, backlog.behind(10), "in sync");
        assertEquals(0, backlog.behind(12), "ahead of what is committed (appended, not yet committed)");
        assertEquals(7, backlog.behind(9));
        assertEquals(57, backlog.behind(7), "inside the batch in pieces: the whole batch is lacking");
        assertEquals(57, backlog.behind(5));
        assertEquals(157, backlog.behind(2), "before this member's first batch: everything it committed");
    }

    @Test
    void aReplicaFurtherBehindThanTheRingLacksAtLeastWhatTheRingHolds() {
        ReplicaBacklog backlog = new ReplicaBacklog();
        for (long index = 1; index <= ReplicaBacklog.SLOTS + 10; index++) {
            backlog.committed(index, 1);
        }
        assertEquals(ReplicaBacklog.SLOTS - 1, backlog.behind(0), "the ring holds indexes 11 to SLOTS + 10");
        assertEquals(10, backlog.behind(ReplicaBacklog.SLOTS));
    }
}
