package org.wharfmq.flow.runtime;

import java.util.concurrent.ThreadFactory;

/**
 * What the host of a running flow lends it besides its connections: the threads its readers and instances run on
 * (named, made daemons and given the flow's class loader by {@link RunningFlow}), how its messages' bytes bodies
 * cross the JMS API ({@link JmsBodies}) and how its non-transactional readers take their queues
 * ({@link QueueConsumers}).
 *
 * @param threads   makes the flow's reader and instance threads
 * @param bodies    reads the bodies of the messages its inputs receive from the host's provider and writes those it
 *                  sends there
 * @param consumers makes the consumers of its non-transactional readers of queues
 */
public record FlowHosting(ThreadFactory threads, JmsBodies bodies, QueueConsumers consumers) {

    /** Plain threads, copied bodies and consumers of the readers' sessions: any JMS provider. */
    public static final FlowHosting PLAIN = new FlowHosting(Thread::new, JmsBodies.COPYING, QueueConsumers.JMS);
}
