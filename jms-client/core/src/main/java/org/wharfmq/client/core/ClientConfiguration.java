package org.wharfmq.client.core;

import org.wharfmq.protocol.ProtocolVersion;

/**
 * Every tunable of the client, named and documented with its default, in one place (as the server's
 * {@code org.wharfmq.server.Configuration}). The first group are defaults of broker URL options
 * ({@code tcp://host:port?option=value}, {@code docs/jms-client.md}), which an application changes per connection
 * factory; the rest are fixed timings and sizes of the transport, kept here so that a reader finds why each has
 * its value. The limits of ObjectMessage deserialisation are options too; their defaults and reasons are in
 * the JMS facade's {@code org.wharfmq.jms.message.DeserializationLimit}, one per option.
 *
 * <p>The client never repeats a server default to follow it: what the server decides (the heartbeat interval it
 * agrees to, the largest message it accepts) it says in {@code HELLO_OK}, and rules both ends share live in the
 * protocol module ({@link org.wharfmq.protocol.Heartbeat}). The one number equal to a server default,
 * {@link #DEFAULT_MAX_RECEIVE_LENGTH}, is the client's own bound, chosen so that against a default server it changes
 * nothing.
 */
public final class ClientConfiguration {

    // ---- defaults of broker URL options ----

    /** The URL a connection factory uses when none is given: {@value}. */
    public static final String DEFAULT_URL = "tcp://localhost:" + ProtocolVersion.DEFAULT_PORT;

    /** {@code prefetch}: messages the server may push to a consumer ahead of the application: {@value}. */
    public static final int DEFAULT_PREFETCH = 1000;

    /**
     * {@code consumerWindowBytes}: bytes of messages (their encoded lengths) the server may push to a consumer ahead of
     * the application, besides {@code prefetch}'s count: {@value} (8 MiB). Whichever of the two is reached first bounds
     * the consumer, so messages of up to about 8 KB keep the whole prefetch window of 1000 while large ones are bounded
     * by bytes (four 2 MB messages, not 1000); a consumer is always sent at least one message, whatever its size.
     * 0: the prefetch count alone (as a server before protocol version 3 bounds every consumer). The server caps it at
     * its maxConsumerWindowBytes. A browse has the same window ({@link CoreBrowser}).
     */
    public static final int DEFAULT_CONSUMER_WINDOW_BYTES = 8 * 1024 * 1024;

    /**
     * How many bytes of consumed messages a consumer's or a browse's credit goes back in, besides
     * {@link #creditBatch}: half the window in bytes it was granted (at least 1), so the server refills the window
     * before it runs dry; no bound for one without a window in bytes (0). The window granted is the smaller of its
     * {@code consumerWindowBytes} and the server's maxConsumerWindowBytes ({@link ConnectedLink#grantedWindowBytes}):
     * half of a larger window than the server fills would never be consumed, and the consumer would stall.
     */
    public static long creditBatchBytes(int windowBytes) {
        return windowBytes <= 0 ? Long.MAX_VALUE : Math.max(1, windowBytes / 2);
    }

    /**
     * How many consumed messages a consumer's or a browse's credit goes back in, and a DUPS_OK session's
     * acknowledgements: half its {@code prefetch} window (at least 1), so the server refills the window before it runs
     * dry and one CREDIT frame serves many messages.
     */
    public static int creditBatch(int prefetch) {
        return Math.max(1, prefetch / 2);
    }

    /**
     * Deliveries a consumer's or a browse's buffer may hold unread beyond twice its prefetch window before the client
     * takes the server for broken: {@value}. A server sends a consumer at most its window of messages not yet
     * consumed, and one more per PULL (one PULL at a time); a server that sends past {@link #maxBuffered} ends the
     * connection, without reconnecting, rather than fill the application's memory (docs/security.md, "What a hostile
     * server can do to a client").
     */
    public static final int DELIVERY_SLACK = 16;

    /** The most deliveries a consumer or browse of {@code prefetch} holds unread: twice that and {@link #DELIVERY_SLACK}. */
    public static int maxBuffered(int prefetch) {
        return (int) Math.min(Integer.MAX_VALUE, 2L * Math.max(0, prefetch) + DELIVERY_SLACK);
    }

    /** {@code heartbeat}: the heartbeat interval the client asks for, in ms: {@value} (the server may lower it). */
    public static final int DEFAULT_HEARTBEAT_MILLIS = 10_000;

    /** {@code connectTimeout}: longest a connection attempt (TCP connect and handshake) takes, in ms: {@value}. */
    public static final int DEFAULT_CONNECT_TIMEOUT_MILLIS = 10_000;

    /** {@code requestTimeout}: longest the client waits for the answer to any request, in ms: {@value}. */
    public static final int DEFAULT_REQUEST_TIMEOUT_MILLIS = 30_000;

    /**
     * {@code maxReceiveLength}: the longest message the client receives from a server, in bytes: {@value} (100 MiB, a
     * queue manager's default maxMessageLength, so that against a server with the default nothing it may deliver is
     * refused). After {@code HELLO_OK} the client reads frames of at most the lower of this and the maxMessageLength
     * the server declared there, plus a frame's fields
     * ({@link org.wharfmq.protocol.message.MessageLengthLimit#FRAME_OVERHEAD_BYTES}): a server, or a man in the middle
     * of a plain connection, that declares 2 GiB cannot make the client take more memory per frame than this. A longer
     * frame ends the connection, unread and without reconnecting, naming this option; an application that receives
     * longer messages from a server configured for them raises it (docs/security.md, "What a hostile server can do to
     * a client"). An in-VM ({@code vm://}) connection takes what its server declares: that server runs in the same
     * process, configured by whoever runs it.
     */
    public static final int DEFAULT_MAX_RECEIVE_LENGTH = 100 * 1024 * 1024;

    /** {@code clientName}: the name the server shows for a connection: {@value}. */
    public static final String DEFAULT_CLIENT_NAME = "wharf-jms";

    // ---- reconnecting (docs/jms-client.md, "Reconnect"; docs/resilience.md) ----

    /**
     * {@code reconnectAttempts}: how many times a lost connection tries to connect again (each attempt once round the
     * URL's addresses) before the ExceptionListener hears of the loss: {@value}; -1 = for ever, 0 = not at all. With
     * the intervals below that is about five minutes of trying, enough for a server restart, a failover to a standby or
     * a short network outage, and short enough that an application whose server is gone for good hears of it. IBM MQ's
     * automatic client reconnection tries for 30 minutes (MQReconnectTimeout 1800 s); Artemis does not reconnect by
     * default (reconnectAttempts 0) and retries every 2 s when told to.
     */
    public static final int DEFAULT_RECONNECT_ATTEMPTS = 25;

    /**
     * {@code reconnectInterval}: the wait before the second attempt, in ms: {@value}; each later wait is twice the one
     * before, up to {@link #DEFAULT_RECONNECT_MAX_INTERVAL_MILLIS}. The first attempt is made at once: a dropped network
     * path or a server that closed the connection on its way down is back, or refuses at once, so trying costs nothing.
     * IBM MQ waits about a second before its first attempt, Artemis its retryInterval of 2 s.
     */
    public static final int DEFAULT_RECONNECT_INTERVAL_MILLIS = 1000;

    /**
     * {@code reconnectMaxInterval}: the longest wait between two attempts, in ms: {@value}. A server that comes back is
     * found within about this long; IBM MQ's waits grow to about 25 s.
     */
    public static final int DEFAULT_RECONNECT_MAX_INTERVAL_MILLIS = 15_000;

    /**
     * Each wait between attempts is lengthened by up to this share of it at random: {@value} %, so that the many clients
     * of a restarted server spread their reconnections rather than all arriving in the same instant.
     */
    public static final int RECONNECT_JITTER_PERCENT = 20;

    /**
     * While a member of a replicated queue manager answers a reconnection NOT_ACTIVE (a replica: the group is there,
     * an election or a takeover is under way), the next round comes after at most this, in ms ({@value}; the
     * {@code reconnectInterval} when shorter), neither counted against {@code reconnectAttempts} nor lengthening the
     * waits: the new active member's listener opens any moment, and a client backing off would find it up to
     * {@code reconnectMaxInterval} late. A replica refuses before authentication, so a round costs it little.
     */
    public static final int NOT_ACTIVE_RETRY_MILLIS = 100;

    /**
     * How long a reconnection keeps to {@link #NOT_ACTIVE_RETRY_MILLIS} after the first NOT_ACTIVE it met, in ms
     * ({@value}: an election and a takeover on a loaded machine); after it, rounds count and back off as any, so a
     * group that cannot elect (two members of three down) lets its clients give up as a server that is down does.
     */
    public static final int NOT_ACTIVE_RETRY_WINDOW_MILLIS = 30_000;

    // ---- the transport: fixed ----

    /**
     * Longest a frame written with {@code writeSoon} or {@code writeLater} (an AUTO_ACKNOWLEDGE acknowledgement) waits
     * for another frame to carry it: {@value} ms. A responder's acknowledgement then rides with its reply, one packet
     * for both; a subscriber's leaves before its session's next message at the latest, with those of the others of
     * its connection.
     */
    public static final long PIGGYBACK_MILLIS = 20;

    /**
     * Most message bytes that frames written with {@code writeSoon} may hold back: {@value}. Past this the frame is
     * written at once, so a transaction of many sends streams to the server rather than piling up in memory.
     */
    public static final int SOON_LIMIT_BYTES = 64 * 1024;

    /**
     * Event loop threads that every in-VM ({@code vm://}) connection of a JVM shares: {@value}. An in-VM connection's
     * server end runs on its client's loop, so with one loop for them all a frame one in-VM client sends reaches
     * another in-VM client's consumer on the thread that handled the send, and a loop kept busy by its clients sleeps
     * less: with Netty's default of two loops per core, each delivery to another connection crossed to that one's loop
     * and woke it (twice per request/reply round trip), which cost RR-1 half its CPU per round trip
     * (docs/performance-log.md, session 27).
     */
    public static final int IN_VM_LOOPS = 1;

    /**
     * Longest frame (type byte and payload) a client reads from a server before {@code HELLO_OK}: {@value} bytes. The
     * handshake's frames are a few hundred bytes (the server reads at most 8 KiB of the client's); a longer one ends
     * the link unread, so a server or a man in the middle that has not logged the client in cannot make it take more
     * memory than this. From {@code HELLO_OK} on, the limit is the lower of the server's declared maxMessageLength and
     * the client's {@code maxReceiveLength}, plus
     * {@link org.wharfmq.protocol.message.MessageLengthLimit#FRAME_OVERHEAD_BYTES} (docs/security.md, "What a hostile
     * server can do to a client").
     */
    public static final int HANDSHAKE_FRAME_BYTES = 64 * 1024;

    /**
     * How often the client logs an answer or a refusal its server sent for something that no longer waits (a request
     * that timed out, a consumer already closed), in ms: {@value}. The first of a connection is logged at once (a
     * WARNING), the next ones counted and logged in one line, with their number and the last of them, once this long
     * has passed since the last line: a server that sends them without end (a hostile one) fills no log.
     */
    public static final long UNEXPECTED_ANSWER_LOG_MILLIS = 60_000;

    /** Size of a fresh socket read buffer: {@value} bytes; a larger frame gets a buffer of its own size. */
    public static final int READ_BUFFER_BYTES = 64 * 1024;

    /** Free space below which the reader moves on to a fresh read buffer rather than issue a short read: {@value}. */
    public static final int MIN_READ_BYTES = 4 * 1024;

    /**
     * Longest an application thread that holds the read turn reads the socket before it looks at its own deadline
     * again: {@value} ms (also how soon a consumer closed by another thread notices).
     */
    public static final long LEAD_SLICE_MILLIS = 100;

    /**
     * How long the connection's reader thread leaves the socket to application threads after one last asked to
     * read: {@value} ms. Shorter, and the reader takes frames that the waiting thread would have read itself (a
     * wake-up per message); longer, and a connection whose threads stopped asking reads late.
     */
    public static final long READER_IDLE_MILLIS = 20;

    /**
     * Property strings (names and string values, place by place) a consumer remembers of the message it decoded last,
     * to hand out again rather than decode when the next has the same ones: {@value}, those of its first 16
     * properties.
     */
    public static final int RECENT_PROPERTY_STRINGS = 32;

    /**
     * A link on a {@code NetworkLoop} (a sender channel's connection to its partner) whose drain finds fewer frames
     * than this waiting, {@value}, lets its loop look once more for what is ready before it writes: the loop's next
     * pass, which starts at once (its poll does not wait), and whatever that pass's reads queue goes in the same write.
     * RR-5's drains hold one to five messages: a third to a half fewer writes on the channel (3.5 to 5 messages a
     * write instead of 2.3 to 2.8), fewer reads and wake-ups of the partner, for one poll that does not wait; a lone
     * message waits for that poll only, never for a timer. A longer drain is worth a write already and goes at once
     * (docs/performance-log.md, session 40).
     */
    public static final int LOOK_AGAIN_BELOW_FRAMES = 8;

    /**
     * Messages a {@code tcp://} or {@code ssl://} link keeps for the server's DELIVER_SAME frames, one per slot:
     * {@value} (SHARE_DELIVERIES; docs/protocol.md, "Shared deliveries"). The server sends a short BytesMessage that
     * goes to several consumers of the connection once per slot, and the rest of its deliveries name the slot; the
     * link holds the last message of each slot, at most {@value} arrays of short messages (the server's copy limit).
     */
    public static final int KEPT_DELIVERIES = 16;

    /** Messages larger than this are written from their own buffer, not copied into the staging one: {@value}. */
    public static final int COPY_LIMIT_BYTES = 64 * 1024;

    /**
     * Size of the buffer a socket write is staged in: {@value}; on a blocking link it grows for a large batch, and is
     * replaced after. A plain link on a {@code NetworkLoop} copies a drain's frames into runs of this size.
     */
    public static final int STAGED_BUFFER_BYTES = 16 * 1024;

    /**
     * Bytes a link on a {@code NetworkLoop} may hold written and not yet taken by its socket before it reports itself
     * not writable: {@value}; it is writable again below half of it. Its writer holds back meanwhile.
     */
    public static final int LOOP_LINK_WATER_MARK_BYTES = 64 * 1024;

    /**
     * The bytes a TLS link on a {@code NetworkLoop} copies a drain's frames into per buffer, each wrapped as one TLS
     * record: {@value}, the most plaintext a record carries (and Netty's {@code SslHandler} wraps at once). Of a
     * message longer than this only what completes a buffer is copied.
     */
    public static final int TLS_RECORD_BYTES = 16 * 1024;

    private ClientConfiguration() {
    }
}
