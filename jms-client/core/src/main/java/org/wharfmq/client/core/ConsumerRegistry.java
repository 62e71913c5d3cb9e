package org.wharfmq.client.core;

import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.message.WireDestination;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A connection's consumers and queue browsers by consumer id (one id space for both), where its {@link LinkHandler}
 * hands each DELIVER, PULL_DONE and CONSUMER_FAILED; and the queues the server has accepted a plain consumer on, where
 * another is created without waiting for the answer. A final class the handler calls directly: the receive path's
 * one call the JIT cannot bind in advance is the one to the consumer's {@link DeliveryTarget}, seen with one class.
 * Thread-safe: registered by the application's threads, read by the link's reading thread.
 */
public final class ConsumerRegistry {
    private final ConcurrentHashMap<Integer, DeliveryTarget> consumers = new ConcurrentHashMap<>();
    /** Open queue browser cursors: kept apart, so that the consumers' delivery call sees one class. */
    private final ConcurrentHashMap<Integer, DeliveryTarget> browsers = new ConcurrentHashMap<>();
    private final Set<WireDestination> consumableQueues = ConcurrentHashMap.newKeySet();

    /** A DELIVER, on the reading thread: to its consumer or browser, or released when that is closed. */
    void deliver(Frame.Deliver deliver) {
        DeliveryTarget consumer = consumers.get(deliver.consumerId());
        if (consumer != null) {
            consumer.deliver(deliver);
            return;
        }
        DeliveryTarget browser = browsers.get(deliver.consumerId());
        if (browser != null) {
            browser.deliver(deliver);
        } else {
            deliver.message().release(); // the consumer was closed; the server takes these back
        }
    }

    void pullDone(Frame.PullDone done) {
        DeliveryTarget consumer = consumers.get(done.consumerId());
        if (consumer != null) {
            consumer.pullDone(done.pullId());
            return;
        }
        DeliveryTarget browser = browsers.get(done.consumerId());
        if (browser != null) {
            browser.pullDone(done.pullId());
        }
    }

    /**
     * A consumer created without waiting was refused (its queue was deleted since, say): its next receive raises
     * the error, and every later consumer waits for the server's answer again until one is accepted.
     *
     * @return false when no consumer has that id (it is closed already: the caller logs it)
     */
    boolean failed(Frame.ConsumerFailed failed) {
        consumableQueues.clear();
        DeliveryTarget consumer = consumers.get(failed.consumerId());
        if (consumer == null) {
            return false;
        }
        consumer.failed(failed.code(), failed.message());
        return true;
    }

    public void registerConsumer(int id, DeliveryTarget consumer) {
        consumers.put(id, consumer);
    }

    public void unregisterConsumer(int id, DeliveryTarget consumer) {
        consumers.remove(id, consumer);
    }

    public void registerBrowser(int id, DeliveryTarget browser) {
        browsers.put(id, browser);
    }

    public void unregisterBrowser(int id, DeliveryTarget browser) {
        browsers.remove(id, browser);
    }

    /**
     * Whether the server has accepted a plain consumer on {@code queue} on this connection before: another one
     * there is then created without waiting for the answer, saving a round trip per consumer in the request/reply
     * pattern that opens a consumer per request.
     */
    public boolean consumerAcceptedBefore(WireDestination queue) {
        return consumableQueues.contains(queue);
    }

    /** Records that the server accepted a plain consumer on {@code queue}. */
    public void consumerAccepted(WireDestination queue) {
        consumableQueues.add(queue);
    }

    /** Forgets that consumers were accepted on {@code queue}, which this connection has deleted. */
    public void queueGone(WireDestination queue) {
        consumableQueues.remove(queue);
    }

    /** Another server, perhaps, after a reconnection: its queues are to be found again. */
    void forgetAcceptedQueues() {
        consumableQueues.clear();
    }

    /** Wakes the threads waiting on the browsers (the consumers are woken by their sessions). */
    void wakeBrowsers() {
        browsers.values().forEach(DeliveryTarget::wake);
    }

    /** A reconnection re-creates the connection: the browsers' requests on the old link go unanswered. */
    void browsersLinkReplaced() {
        browsers.values().forEach(DeliveryTarget::linkReplaced);
    }
}
