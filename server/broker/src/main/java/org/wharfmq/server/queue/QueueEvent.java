package org.wharfmq.server.queue;

/**
 * Something an operator watches for happened to a queue: its depth reached the depth-high threshold, fell back to the
 * depth-low threshold, or a put found it full (IBM MQ's Queue Depth High, Queue Depth Low and Queue Full performance
 * events). Each is published once per crossing, not once per message while the queue stays there
 * (docs/operations.md, "Events").
 *
 * @param kind      what happened
 * @param queue     the queue's name
 * @param depth     its depth when it happened
 * @param maxDepth  its depth limit then
 * @param threshold the depth the event's setting stands for (depthHighEvent or depthLowEvent as a number of
 *                  messages; maxDepth for a queue-full event)
 * @param time      when, epoch ms by the queue manager's clock
 */
public record QueueEvent(Kind kind, String queue, long depth, long maxDepth, long threshold, long time) {

    /** The kinds of queue event, named as the event topic's last level and the event's {@code WHARF_EVENT} property. */
    public enum Kind {
        /** The depth reached the queue's depthHighEvent percentage of its maxDepth. */
        DEPTH_HIGH,
        /** After a DEPTH_HIGH event, the depth fell to the queue's depthLowEvent percentage of its maxDepth. */
        DEPTH_LOW,
        /** A put was refused because the queue held its maxDepth messages. */
        FULL
    }
}
