package org.wharfmq.server.admin;

/**
 * The admin command queue's wire contract (docs/operations.md, "Over the wire"). A request is a message on
 * {@code SYSTEM.ADMIN.COMMAND.QUEUE} with a JMSReplyTo, the command in the string property {@value #COMMAND} and its
 * arguments in properties named {@code Wharf...} (this class names the common ones; a contributor names its own).
 * The answer, sent to the JMSReplyTo with the request's JMSMessageID as JMSCorrelationID, is a TextMessage whose body
 * is a JSON object:
 * <pre>
 *   {"ok": true,  "command": "display-queues", "result": ...}
 *   {"ok": false, "command": "delete-queue", "error": "Queue 'ORDERS' holds 12 messages ...", "reason": "REFUSED"}
 * </pre>
 * with the boolean property {@value #OK} and, for a failure, the string property {@value #ERROR} set to the reason:
 * {@value #UNKNOWN} (no such queue, connection, subscription or command), {@value #REFUSED} (in use, not allowed, a
 * limit), {@value #INVALID} (bad arguments), {@value #FAILED} (anything else, such as a journal that does not
 * answer), or a reason of the command's own ({@code REMOTE_DEPLOY_DISABLED}).
 */
public final class AdminProtocol {

    /** Request property: the command, e.g. {@code display-queues}. */
    public static final String COMMAND = "WharfCommand";
    /** Reply property: whether the command succeeded. */
    public static final String OK = "WharfOk";
    /** Reply property of a failure: its reason. */
    public static final String ERROR = "WharfError";

    /** Request property: a queue's name. */
    public static final String QUEUE = "WharfQueue";
    /** Request property: a queue pattern, as the security file writes them ({@code ORDERS.*}). */
    public static final String PATTERN = "WharfPattern";
    // A queue's settings (define-queue, alter-queue) are properties named after their keys in config/wharf.yaml:
    // WharfMaxDepth for maxDepth (AdminRequest.propertyOf), one for each key QueueConfiguration declares.

    /** Request property (boolean): delete a queue even if it holds messages or has consumers. */
    public static final String FORCE = "WharfForce";
    /** Request property (long): the most messages to browse, move or copy. */
    public static final String LIMIT = "WharfLimit";
    /** Request property: a JMS message selector. */
    public static final String SELECTOR = "WharfSelector";
    /** Request property (boolean): show message bodies in hexadecimal, text ones included. */
    public static final String HEX = "WharfHex";
    /** Request property: the source queue of a move or copy. */
    public static final String FROM = "WharfFrom";
    /** Request property: the target queue of a move or copy. */
    public static final String TO = "WharfTo";
    /** Request property (long): a connection's number. */
    public static final String CONNECTION = "WharfConnection";
    /** Request property: a durable subscription's name. */
    public static final String SUBSCRIPTION = "WharfSubscription";
    /** Request property: a client ID. */
    public static final String CLIENT_ID = "WharfClientId";
    /** A queue alias's target queue. */
    public static final String TARGET = "WharfTarget";
    /** A remote definition's queue on the other queue manager (none: a queue-manager alias). */
    public static final String REMOTE_QUEUE = "WharfRemoteQueue";
    /** A remote definition's queue manager. */
    public static final String REMOTE_QUEUE_MANAGER = "WharfRemoteQueueManager";
    /** The transmission queue a remote definition names. */
    public static final String TRANSMISSION_QUEUE = "WharfTransmissionQueue";

    /** Reply field and reason: no such queue, connection, subscription or command. */
    public static final String UNKNOWN = "UNKNOWN";
    /** Reason: in use, not allowed, or a limit reached. */
    public static final String REFUSED = "REFUSED";
    /** Reason: the request's sender may not administer the queue manager ({@link SenderCheck}). */
    public static final String NOT_AUTHORISED = "NOT_AUTHORISED";
    /** Reason: the arguments are wrong. */
    public static final String INVALID = "INVALID";
    /** Reason: anything else. */
    public static final String FAILED = "FAILED";

    private AdminProtocol() {
    }
}
