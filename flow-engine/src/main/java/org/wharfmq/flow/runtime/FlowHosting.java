package org.wharfmq.flow.runtime;

import java.util.concurrent.ThreadFactory;

/**
 * What the host of a running flow lends it besides its connections: the threads its readers and instances run on
 * (named, made daemons and given the flow's class loader by {@link RunningFlow}), how its messages' bytes bodies
 * cross the JMS API ({@link JmsBodies}), how its non-transactional readers take their queues
 * ({@link QueueConsumers}), how its readers' sends outside a transaction reach the provider ({@link PlainSends}), and
 * the longest message its server takes.
 *
 * @param threads   makes the flow's reader and instance threads
 * @param bodies    reads the bodies of the messages its inputs receive from the host's provider and writes those it
 *                  sends there
 * @param consumers makes the consumers of its non-transactional readers of queues
 * @param sends     makes its readers' sends outside a transaction go the host's way
 * @param maxMessageBytes the longest message body the server takes (its maxMessageLength): a FileInput node reads no
 *                  file or line longer into memory, since it could not be sent
 */
public record FlowHosting(ThreadFactory threads, JmsBodies bodies, QueueConsumers consumers, PlainSends sends,
                          int maxMessageBytes) {

    /**
     * Plain threads, copied bodies, and consumers and sends of the readers' sessions: any JMS provider, whose message limit is
     * taken to be Wharf's default ({@link FlowConfiguration#DEFAULT_MAX_MESSAGE_BYTES}).
     */
    public static final FlowHosting PLAIN = new FlowHosting(Thread::new, JmsBodies.COPYING, QueueConsumers.JMS,
            PlainSends.JMS, FlowConfiguration.DEFAULT_MAX_MESSAGE_BYTES);
}
