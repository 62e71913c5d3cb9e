package org.wharfmq.flow;

import javax.jms.ConnectionFactory;

/**
 * An authenticated HTTP caller as the queue manager knows it, for an invocation that sends as its caller
 * ({@link org.wharfmq.flow.node.HttpInputNode.RunAs#CALLER}): connections as the caller, and its permissions asked
 * before each send, so that a refusal is the caller's 403 at once (a send in a transaction is otherwise refused only
 * at its commit). Made by whoever serves the path (the flow host); thread-safe.
 */
public interface HttpCaller {

    /** The caller's user name. */
    String user();

    /** Connections as the caller: the queue manager checks its permissions and stamps it as JMSXUserID. */
    ConnectionFactory connectionFactory();

    /**
     * Why the caller may not send to {@code queue} (or publish to the topic), naming the user, the permission, the
     * destination and the fix; null when it may.
     */
    String refusal(String destination, boolean topic);
}
