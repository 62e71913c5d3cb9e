package org.wharfmq.server.replication;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Event;
import jdk.jfr.EventType;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/**
 * A Java Flight Recorder event for each entry the active member appends to the replicated log, off unless a recording
 * enables it ({@code org.wharfmq.ReplicatedEntry}; docs/performance.md, "Replicated queue manager"): its duration runs
 * from the submitting thread taking the entry to the entry committed by a majority and applied here, with the stages
 * before and within.
 */
@Name("org.wharfmq.ReplicatedEntry")
@Label("Replicated log entry")
@Category({"Wharf", "Replication"})
@Description("One entry appended by the active member: journal batches merged into it, bytes, and where its time went")
@Enabled(false)
@StackTrace(false)
final class ReplicatedEntryEvent extends Event {

    private static final EventType TYPE = EventType.getEventType(ReplicatedEntryEvent.class);

    @Label("Journal batches")
    int batches;

    @Label("Entries before it")
    @Description("Entries this member had handed to Ratis and not yet seen committed when it handed this one")
    int before;

    @Label("Journal records")
    int records;

    @Label("Bytes")
    @DataAmount
    long bytes;

    @Label("Queued")
    @Description("The first batch's wait for the submitting thread")
    @Timespan
    long queued;

    @Label("Submitted")
    @Description("Ratis taking the entry into the leader's log (its client executor's hand-off included)")
    @Timespan
    long submitted;

    @Label("Committed")
    @Description("From taken into the log to committed by a majority and applied here")
    @Timespan
    long committed;

    @Label("Failed")
    boolean failed;

    /** Whether a recording takes these events: else none is made. */
    static boolean recorded() {
        return TYPE.isEnabled();
    }
}
