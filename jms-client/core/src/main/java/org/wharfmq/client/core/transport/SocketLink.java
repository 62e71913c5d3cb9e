package org.wharfmq.client.core.transport;

import org.wharfmq.client.core.ClientConfiguration;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.PreferHeapByteBufAllocator;
import io.netty.util.internal.PlatformDependent;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.frame.FrameDecoder;
import org.wharfmq.protocol.frame.FrameEncoder;
import org.wharfmq.protocol.frame.FrameArray;
import org.wharfmq.protocol.frame.FrameTooLongException;
import org.wharfmq.protocol.frame.FrameType;
import org.wharfmq.protocol.frame.LargeFrameBuffers;
import org.wharfmq.protocol.frame.LargeFrameMemory;
import org.wharfmq.protocol.frame.MalformedFrameException;
import org.wharfmq.protocol.message.TransmissionHeader;

import org.wharfmq.client.core.ClientException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A {@link FrameLink} over a TCP socket in blocking mode, the {@code tcp://} transport.
 *
 * <p><b>Writing.</b> The application thread that writes a frame encodes it and writes it to the socket itself,
 * holding the link's write lock; frames {@link #writeSoon} left waiting go out in the same system call. A full
 * socket buffer blocks the writer, which is the back-pressure a producer should feel.
 *
 * <p>A {@link Socket}, not a {@link java.nio.channels.SocketChannel}: a channel is closed when a thread using it
 * is interrupted, so an application that interrupts one of its threads while it sends would lose the whole
 * connection. The price is that a message is copied into the link's send buffer instead of written from its
 * own; messages are allocated on the heap ({@link #alloc()}), where that copy is the only one. A socket too is
 * closed when a <em>virtual</em> thread blocked in it is interrupted (JEP 444), so a virtual thread never writes
 * the socket: a platform thread of {@link #PLATFORM_WRITERS} writes for it while it waits, as a platform thread
 * would wait for its own write (a hand-over per write, the price virtual threads pay here).
 *
 * <p><b>Reading: leader/follower.</b> Whoever holds the read turn reads the socket, splits the bytes into frames and
 * hands each to the listener. An application thread about to wait for a frame (a receive, the answer to a
 * persistent send or a commit) takes the turn if it is free and reads itself ({@link #readWhileWaiting}), in
 * slices of at most {@value ClientConfiguration#LEAD_SLICE_MILLIS} ms so that it sees its own deadline and a close; the frame it
 * waits for then needs no hand-over from another thread. A thread that finds the turn taken follows: it sleeps
 * as before, woken by the frame delivered for it or, when the turn is let go, to take it. The link's own reader
 * thread ({@code wharf-client-reader-*}) reads only when no application thread has asked for
 * {@value ClientConfiguration#READER_IDLE_MILLIS} ms, or always once a MessageListener is in use ({@link #readerOnly}), so that
 * frames nobody waits for are still read; it alone reports the end of the link. A reading thread never blocks
 * writing to the socket: a frame written on it waits and is sent by the {@link LinkTimer}'s thread, so the
 * socket keeps being drained even when its send buffer is full. Frames that wait for a ride ({@link #writeSoon},
 * {@link #writeLater}) leave at the latest with the JVM's timed flush ({@link TimedFlushes}).
 *
 * <p>Why not a Netty event loop, as the server uses: with an event loop, each frame an application thread writes
 * is a task for that loop, and the loop must be woken to write it, so each message cost a client one more thread
 * wake-up and more system calls; leaving the loop out saved about 15 % of all the JVMs' CPU per RR-4 round trip
 * (docs/performance-log.md). Here a message costs its write and its read; the reader thread's hand-over of a frame
 * to the waiting thread (a wake-up and a sleep) only when another thread held the turn.
 */
final class SocketLink implements FrameLink {

    private static final int READ_BUFFER = ClientConfiguration.READ_BUFFER_BYTES;
    private static final long LEAD_SLICE_MILLIS = ClientConfiguration.LEAD_SLICE_MILLIS;
    private static final long READER_IDLE_NANOS = TimeUnit.MILLISECONDS.toNanos(ClientConfiguration.READER_IDLE_MILLIS);
    private static final int MIN_READ = ClientConfiguration.MIN_READ_BYTES;
    private static final AtomicLong LINKS = new AtomicLong();
    /** {@link #end}'s value when the application closed the link. */
    private static final Object LOCAL_CLOSE = new Object();
    /** {@link #end}'s value when the heartbeat found the server silent. */
    private static final Object SILENCE = new Object();
    /** {@link #end}'s value when the server closed the connection. */
    private static final Object END_OF_STREAM = new Object();

    private static final int COPY_LIMIT = ClientConfiguration.COPY_LIMIT_BYTES;
    private static final int STAGED_BUFFER = ClientConfiguration.STAGED_BUFFER_BYTES;

    private final Socket socket;
    /** The TCP socket: {@link #socket} itself on a plain link, the socket TLS is layered on otherwise. */
    private final Socket transport;
    private final InputStream input;
    private final OutputStream output;
    private final FrameListener listener;
    /** Heap buffers: a socket stream reads and writes byte arrays, so a direct buffer would cost one more copy. */
    private final ByteBufAllocator alloc = new PreferHeapByteBufAllocator(PooledByteBufAllocator.DEFAULT);
    private final Thread reader;
    /**
     * The turn to read the socket: held by the reader thread, or by an application thread that waits for a frame
     * and reads it itself ({@link #readWhileWaiting}). Its holder owns {@link #in} and {@link #needed}.
     */
    private final ReentrantLock readTurn = new ReentrantLock();
    /** How to wake each application thread that waits while another holds the turn, so that one takes it over. */
    private final Queue<Runnable> followers = new ConcurrentLinkedQueue<>();
    /** When an application thread last asked for the turn: the reader thread leaves the socket to them meanwhile. */
    private volatile long lastLeadNanos;
    /** Set once a listener is used on the connection: from then on only the reader thread reads. */
    private volatile boolean readerOnly;
    /** Bytes read and not yet delivered; owned by the holder of {@link #readTurn}. */
    private ByteBuf in;
    /** Bytes the incomplete frame at the reader index of {@link #in} still lacks, at least. */
    private int needed;
    /** The longest frame read ({@link #frameLimit}); owned by the holder of {@link #readTurn}. */
    private int maxFrameLength = ClientConfiguration.HANDSHAKE_FRAME_BYTES;
    /**
     * The messages of the last DELIVER_KEEP frames, by slot, for the DELIVER_SAME frames that name them (arrays nothing
     * writes again: each message delivered from one shares it); owned by the holder of {@link #readTurn}.
     */
    private final byte[][] kept = new byte[ClientConfiguration.KEPT_DELIVERIES][];
    /** The buffers large frames are read into, kept for the next; owned by the holder of {@link #readTurn}. */
    private final LargeFrameBuffers largeFrames = new LargeFrameBuffers(LargeFrameMemory.JVM);
    /** The socket's read timeout as last set; owned by the holder of {@link #readTurn}. */
    private int readTimeoutMillis;
    /** Frames waiting to leave with the next write; polled only by the holder of {@link #writeLock}. */
    private final Queue<Frame> waiting = PlatformDependent.newMpscQueue();
    private final ReentrantLock writeLock = new ReentrantLock();
    /** The bytes of the next write, on the heap; owned by the holder of {@link #writeLock}. */
    private ByteBuf staged = Unpooled.buffer(STAGED_BUFFER);
    /**
     * Whether this link waits for the JVM's timed flush ({@link TimedFlushes}): set by the frame that starts to wait
     * when none did, cleared by the flush before it writes, so a frame it does not take marks the link again.
     */
    private final AtomicBoolean flushMarked = new AtomicBoolean();
    /**
     * Whether a frame of {@link #writeSoon} may be waiting, which a {@link #flush} must send; those of
     * {@link #writeLater} alone leave it false. Set after the frame is queued, cleared by a writer before it takes
     * the waiting frames, so a frame it does not take leaves it set.
     */
    private volatile boolean flushWanted;
    private final SoonBytes soonBytes = new SoonBytes();
    /** Why the link ended, first reason wins: a Throwable or one of the markers above; null while open. */
    private final AtomicReference<Object> end = new AtomicReference<>();
    private final CountDownLatch closed = new CountDownLatch(1);
    private volatile long lastReadNanos = System.nanoTime();
    private volatile long lastWriteNanos = System.nanoTime();
    private volatile ScheduledFuture<?> heartbeat;
    /** When the heartbeat last checked the link; the timer thread's alone. */
    private long lastCheckNanos = System.nanoTime();

    private SocketLink(Socket socket, Socket transport, FrameListener listener, String remote) throws IOException {
        this.socket = socket;
        this.transport = transport;
        this.input = socket.getInputStream();
        this.output = socket.getOutputStream();
        this.listener = listener;
        this.in = alloc.heapBuffer(READ_BUFFER);
        this.lastLeadNanos = System.nanoTime() - READER_IDLE_NANOS; // nobody has asked: the reader reads at once
        this.reader = new Thread(this::readLoop, "wharf-client-reader-" + remote + "-" + LINKS.incrementAndGet());
        this.reader.setDaemon(true);
    }

    /**
     * Connects to {@code host:port} and starts the reader.
     *
     * @param tls null for a plain connection; else the TLS settings, the handshake done before the reader starts
     * @throws IOException as the socket reports it: {@link UnknownHostException}, a refused connection
     *                     ({@link java.net.ConnectException}), a timeout ({@link SocketTimeoutException}), a failed
     *                     TLS handshake ({@link javax.net.ssl.SSLException})
     * @throws ClientException when the TLS key or trust store cannot be opened
     */
    static SocketLink connect(String host, int port, ClientTls tls, FrameListener listener, int timeoutMillis)
            throws IOException, ClientException {
        InetSocketAddress remote = new InetSocketAddress(host, port);
        if (remote.isUnresolved()) {
            throw new UnknownHostException(host);
        }
        Socket socket = tls == null ? new Socket() : ClientTls.newSocket();
        SocketLink link;
        try {
            socket.setTcpNoDelay(true);
            socket.setKeepAlive(true);
            socket.connect(remote, timeoutMillis);
            Socket connected = tls == null ? socket : tls.handshake(socket, host, port, timeoutMillis);
            link = new SocketLink(connected, socket, listener, host + ":" + port);
        } catch (IOException | ClientException | RuntimeException e) {
            socket.close();
            throw e;
        }
        link.reader.start();
        return link;
    }

    // ---- writing ----

    @Override
    public void write(Frame frame) {
        if (readTurn.isHeldByCurrentThread()) {
            // a reading thread must not block on a full send buffer: the server may be waiting for it to read
            waiting.offer(frame);
            LinkTimer.execute(this::writeWaitingWhileFree);
            return;
        }
        if (isVirtual(Thread.currentThread())) {
            onPlatformThread(() -> writeNow(frame));
            return;
        }
        writeNow(frame);
    }

    private void writeNow(Frame frame) {
        writeLock.lock();
        try {
            writeLocked(frame);
        } finally {
            writeLock.unlock();
        }
        writeWaitingWhileFree();
    }

    @Override
    public void writeSoon(Frame frame) {
        if (soonBytes.overLimitWith(frame)) {
            write(frame);
            return;
        }
        waiting.offer(frame);
        flushWanted = true;
        armTimedFlush();
    }

    @Override
    public void writeLater(Frame frame) {
        if (soonBytes.overLimitWith(frame)) {
            write(frame);
            return;
        }
        waiting.offer(frame);
        armTimedFlush();
    }

    /** Has the waiting frames written within {@value ClientConfiguration#PIGGYBACK_MILLIS} ms if nothing else writes them. */
    private void armTimedFlush() {
        if (!flushMarked.get() && flushMarked.compareAndSet(false, true)) {
            TimedFlushes.mark(this);
        }
    }

    /** The timed flush ({@link TimedFlushes}, on the timer thread): writes what waits unless another thread writes. */
    void timedFlush() {
        flushMarked.set(false);
        writeWaitingWhileFree();
    }

    /**
     * A frame this thread queued is gone from {@link #waiting} only once a holder of the write lock took it, and that
     * holder keeps the lock until it has written it: so with the queue empty and the lock free, it is written. Else
     * this thread takes the lock (waiting for a writer that has it) and writes what is left.
     */
    @Override
    public void writeQueued() {
        if (waiting.isEmpty() && !writeLock.isLocked()) {
            return;
        }
        if (isVirtual(Thread.currentThread())) {
            onPlatformThread(this::writeQueuedLocking);
            return;
        }
        writeQueuedLocking();
    }

    private void writeQueuedLocking() {
        writeLock.lock();
        try {
            if (!waiting.isEmpty()) {
                writeLocked(null);
            }
        } finally {
            writeLock.unlock();
        }
        writeWaitingWhileFree();
    }

    /**
     * Writes the waiting frames unless another thread is writing, which then writes them when it lets go of the
     * lock; never blocks; does nothing when only {@link #writeLater}'s acknowledgements wait (they leave before the
     * session's next message, {@link #writeQueued}). Twenty-five subscribers sharing a connection used to queue for
     * its lock to write an acknowledgement each as they went back to wait: at 1000 subscribers a quarter of their
     * JVM's CPU went on that lock; and then wrote them, a system call (and a read for the server) per subscriber's
     * wake-up. A request/reply client seldom gets here with anything waiting: its acknowledgement leaves with its
     * next request or reply.
     */
    @Override
    public void flush() {
        if (!flushWanted) {
            return;
        }
        if (isVirtual(Thread.currentThread())) {
            if (!waiting.isEmpty()) {
                onPlatformThread(this::writeWaitingWhileFree);
            }
            return;
        }
        writeWaitingWhileFree();
    }

    /**
     * Threads that write the socket for virtual threads ({@code wharf-client-writer-*}, daemons, shared by every
     * link of the JVM, made as needed and gone after a minute idle): one blocked by a slow server holds up only the
     * write it serves.
     */
    private static final ExecutorService PLATFORM_WRITERS = new ThreadPoolExecutor(0, Integer.MAX_VALUE,
            60, TimeUnit.SECONDS, new SynchronousQueue<>(), new ThreadFactory() {
                private final AtomicLong count = new AtomicLong();

                @Override
                public Thread newThread(Runnable task) {
                    Thread thread = new Thread(task, "wharf-client-writer-" + count.incrementAndGet());
                    thread.setDaemon(true);
                    return thread;
                }
            });

    /**
     * Runs {@code write} on a platform thread and waits for it, keeping the caller's interrupt for the caller:
     * interrupted meanwhile, the caller still waits (the write is under way and the connection must outlive it)
     * and finds its interrupt set afterwards, as a platform thread does after its own blocking write.
     */
    private static void onPlatformThread(Runnable write) {
        Future<?> done = PLATFORM_WRITERS.submit(write);
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    done.get();
                    return;
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    Throwable cause = e.getCause();
                    if (cause instanceof Error error) {
                        throw error;
                    }
                    throw cause instanceof RuntimeException runtime ? runtime : new IllegalStateException(cause);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Whether a thread is writing to the socket now (for tests). */
    boolean isWriting() {
        return writeLock.isLocked();
    }

    /**
     * Writes waiting frames for as long as there are some and no other thread holds the write lock. Every holder
     * calls this after letting go, so a frame queued by a thread that found the lock taken is written by the
     * holder (its queueing precedes the failed attempt, which precedes the holder's release and second look).
     * The one timer thread serves every link of the JVM, so it never waits for a writer that a slow server may
     * hold up.
     */
    private void writeWaitingWhileFree() {
        while (!waiting.isEmpty() && writeLock.tryLock()) {
            try {
                writeLocked(null);
            } finally {
                writeLock.unlock();
            }
        }
    }

    /**
     * Writes the waiting frames, then {@code frame} (if not null): in one system call, unless a message larger than
     * {@value ClientConfiguration#COPY_LIMIT_BYTES} bytes is among them. Releases every message buffer.
     */
    private void writeLocked(Frame frame) {
        if (frame != null) {
            waiting.offer(frame); // behind this thread's earlier frames; released with them if writing fails
        }
        try {
            soonBytes.sending();
            flushWanted = false;
            for (Frame next; (next = waiting.poll()) != null; ) {
                stage(next);
            }
            writeStaged();
        } catch (IOException | RuntimeException e) {
            failed(e);
            releaseWaiting();
        } finally {
            if (staged.capacity() > 4 * COPY_LIMIT) {
                staged = Unpooled.buffer(STAGED_BUFFER);
            }
            staged.clear();
        }
    }

    /** Appends {@code frame} to the staged bytes, or writes them and then its large message; releases its message. */
    private void stage(Frame frame) throws IOException {
        ByteBuf message = FrameEncoder.messageOf(frame);
        try {
            if (end.get() != null) {
                return; // closed: the frame is dropped, as a closed socket would drop it
            }
            FrameEncoder.writeHeader(frame, staged);
            if (message == null) {
                return;
            }
            int index = message.readerIndex();
            int length = message.readableBytes();
            TransmissionHeader.Addressed addressed = FrameEncoder.addressedOf(frame);
            if (addressed != null) { // its transmission header first, then the body as it is
                addressed.writeHead(staged);
                index = addressed.bodyIndex();
                length = addressed.bodyLength();
            }
            if (length <= COPY_LIMIT) {
                staged.writeBytes(message, index, length);
            } else {
                writeStaged();
                message.getBytes(index, output, length);
                lastWriteNanos = System.nanoTime();
            }
        } finally {
            if (message != null) {
                message.release();
            }
        }
    }

    private void writeStaged() throws IOException {
        if (staged.isReadable()) {
            output.write(staged.array(), staged.arrayOffset() + staged.readerIndex(), staged.readableBytes());
            staged.clear();
            lastWriteNanos = System.nanoTime();
        }
    }

    // ---- reading ----

    /**
     * The reader thread: reads and delivers while no application thread does. While application threads wait for
     * frames (and so read them themselves), it sleeps; it takes the socket back once none has asked for
     * {@value ClientConfiguration#READER_IDLE_MILLIS} ms, so that frames nobody waits for (pings, a consumer's next messages) are
     * still read. It alone reports the end of the link to the listener.
     */
    private void readLoop() {
        try {
            while (end.get() == null) {
                long sinceLead = System.nanoTime() - lastLeadNanos;
                // a follower is about to take the turn (it was woken when the turn was let go)
                if (!readerOnly && (sinceLead < READER_IDLE_NANOS || !followers.isEmpty())) {
                    LockSupport.parkNanos(this,
                            sinceLead < READER_IDLE_NANOS ? READER_IDLE_NANOS - sinceLead : READER_IDLE_NANOS);
                    continue;
                }
                readTurn.lock();
                try {
                    if (end.get() == null) {
                        readAndDeliver(0);
                    }
                } finally {
                    readTurn.unlock();
                    promote();
                }
            }
        } catch (IOException | RuntimeException e) {
            end.compareAndSet(null, e);
        } finally {
            closeSocket();
            readTurn.lock(); // an application thread may still be in its last read
            try {
                in.release();
                largeFrames.release();
            } finally {
                readTurn.unlock();
            }
            Object reason = end.get();
            try {
                if (reason == SILENCE) {
                    listener.onSilence();
                } else if (reason instanceof Throwable cause) {
                    listener.onFailure(cause);
                }
            } finally {
                listener.onClosed();
                closed.countDown();
                promote();
            }
        }
    }

    /**
     * One read into {@link #in}, waiting at most {@code timeoutMillis} (0: without limit), and the delivery of every
     * complete frame; the caller holds the turn.
     */
    private void readAndDeliver(int timeoutMillis) throws IOException {
        if (timeoutMillis != readTimeoutMillis) {
            socket.setSoTimeout(timeoutMillis); // an option set under the socket's locks: only when it changes
            readTimeoutMillis = timeoutMillis;
        }
        in = makeRoom(in, needed);
        if (in.writeBytes(input, in.writableBytes()) < 0) {
            end.compareAndSet(null, END_OF_STREAM);
            closeSocket();
            return;
        }
        lastReadNanos = System.nanoTime();
        needed = deliverFrames(in);
    }

    @Override
    public boolean readWhileWaiting(long maxNanos) {
        lastLeadNanos = System.nanoTime();
        if (readerOnly || end.get() != null || isVirtual(Thread.currentThread()) || !readTurn.tryLock()) {
            return false;
        }
        try {
            if (end.get() != null) {
                return false;
            }
            readAndDeliver((int) Math.max(1, Math.min(LEAD_SLICE_MILLIS, TimeUnit.NANOSECONDS.toMillis(maxNanos))));
        } catch (SocketTimeoutException slice) {
            // nothing came within the slice: the caller looks at its deadline and comes back
        } catch (IOException | RuntimeException e) {
            // the reader thread reports the end to the listener, which wakes every waiting thread
            if (end.compareAndSet(null, e)) {
                closeSocket();
            }
            LockSupport.unpark(reader);
        } finally {
            readTurn.unlock();
            promote();
        }
        return true;
    }

    /**
     * {@code Thread.isVirtual()} (Java 21) where it exists. A virtual thread never reads or writes the socket: Java
     * closes a socket when a virtual thread blocked in it is interrupted, and an application's interrupt must not
     * cost the whole connection.
     */
    private static final MethodHandle IS_VIRTUAL = isVirtualHandle();

    private static MethodHandle isVirtualHandle() {
        try {
            return MethodHandles.publicLookup().findVirtual(Thread.class, "isVirtual",
                    MethodType.methodType(boolean.class));
        } catch (NoSuchMethodException | IllegalAccessException before21) {
            return null;
        }
    }

    static boolean isVirtual(Thread thread) {
        if (IS_VIRTUAL == null) {
            return false;
        }
        try {
            return (boolean) IS_VIRTUAL.invokeExact(thread);
        } catch (Throwable e) {
            return false;
        }
    }

    @Override
    public boolean follow(Runnable wake) {
        if (readerOnly || end.get() != null) {
            return true; // the reader thread reads; the caller is woken by what it delivers
        }
        followers.add(wake);
        if (!readTurn.isLocked()) {
            followers.remove(wake); // free again already: the caller takes it rather than sleep
            return false;
        }
        return true;
    }

    @Override
    public void unfollow(Runnable wake) {
        if (!followers.isEmpty()) {
            followers.remove(wake);
        }
    }

    @Override
    public void promote() {
        if (!followers.isEmpty() && !readTurn.isLocked()) {
            Runnable next = followers.poll();
            if (next != null) {
                // the woken follower is about to take the turn: the reader thread leaves it to that thread (as if it
                // had just asked), instead of taking it when the follower was slow to wake on a loaded machine
                lastLeadNanos = System.nanoTime();
                next.run();
            }
        }
    }

    @Override
    public void readerOnly() {
        readerOnly = true;
        LockSupport.unpark(reader);
    }

    /**
     * Hands every complete frame in {@code in} to the listener; returns how many more bytes the incomplete frame
     * left at the reader index needs (0 when none is there or its length is not read yet).
     */
    private int deliverFrames(ByteBuf in) {
        // a frame longer than maxFrameLength is refused before a buffer of its size is taken (largeFrameBuffer)
        while (in.readableBytes() >= 4) {
            int length = in.getInt(in.readerIndex());
            if (length < 1 || length > maxFrameLength) {
                throw length < 1
                        ? new MalformedFrameException("frame length " + length + " is not a valid length (at least 1, the type byte)")
                        : new FrameTooLongException(length, maxFrameLength);
            }
            int available = in.readableBytes() - 4;
            if (available < length) {
                return length - available;
            }
            listener.onFrame(decodeInPlace(in, in.readerIndex() + 4, length));
        }
        return 0;
    }

    /**
     * Decodes the frame of {@code length} bytes at {@code start} straight from {@code in}, its writer index held at
     * the frame's end meanwhile, and leaves the reader index after it: no slice per frame. A DELIVER of a BytesMessage
     * read into the shared read buffer takes a copy of its message, which its body then stays in
     * ({@link Frame.Deliver#readIntoOwnArray}); any other keeps a retained slice of {@code in}, so {@code in} is never
     * compacted while one is alive ({@link #makeRoom}). A large frame has a buffer of its own already
     * ({@link #largeFrameBuffer}): it is not copied again. A DELIVER_KEEP is a DELIVER whose copy the link also keeps
     * in its slot, a DELIVER_SAME one whose message is the copy its slot keeps ({@link #kept}).
     */
    private Frame decodeInPlace(ByteBuf in, int start, int length) {
        int end = start + length;
        byte type = in.getByte(start);
        if (type == FrameType.DELIVER_SAME.code() || type == FrameType.DELIVER_KEEP.code()) {
            Frame.Deliver shared = type == FrameType.DELIVER_SAME.code()
                    ? Frame.DeliverSame.readKept(in, start, length, kept)
                    : Frame.DeliverKeep.readKept(in, start, length, kept);
            in.readerIndex(end);
            return shared;
        }
        Frame.Deliver copied = length < LargeFrameBuffers.LARGE_FRAME_BYTES - 4
                ? Frame.Deliver.readIntoOwnArray(in, start, length) : null;
        if (copied != null) {
            in.readerIndex(end);
            return copied;
        }
        int written = in.writerIndex();
        in.writerIndex(end).readerIndex(start);
        try {
            return FrameDecoder.decodeFrame(in);
        } finally {
            in.writerIndex(written).readerIndex(end);
        }
    }

    /**
     * Returns a buffer with the unread bytes of {@code in} and room for at least {@code needed} more bytes (and
     * for a read of {@link ClientConfiguration#MIN_READ_BYTES}). Compacts {@code in} in place when no delivered message still refers to it;
     * otherwise copies the unread bytes to a fresh buffer and lets the messages keep the old one.
     */
    private ByteBuf makeRoom(ByteBuf in, int needed) {
        int want = Math.max(needed, MIN_READ);
        if (in.writableBytes() >= want) {
            return in;
        }
        int frameBytes = in.readableBytes() + needed;
        if (needed > 0 && frameBytes >= LargeFrameBuffers.LARGE_FRAME_BYTES) {
            return in.writableBytes() >= needed ? in : largeFrameBuffer(in, frameBytes);
        }
        if (in.refCnt() == 1) {
            if (!in.isReadable() && in.capacity() > 4 * READ_BUFFER) {
                in.release(); // done with a large frame: do not keep its buffer
                return alloc.heapBuffer(READ_BUFFER);
            }
            in.discardReadBytes();
            in.ensureWritable(want);
            return in;
        }
        ByteBuf fresh = alloc.heapBuffer(Math.max(READ_BUFFER, in.readableBytes() + want));
        fresh.writeBytes(in);
        in.release();
        return fresh;
    }

    /**
     * A buffer for the large frame of {@code frameBytes} whose first bytes {@code in} holds at its reader index, with
     * those bytes: one of the link's kept buffers ({@link LargeFrameBuffers}), else an array of the frame's size (the
     * whole frame will be held anyway) that is never used again
     * ({@link FrameArray}), so that its message's body may stay in it. Reads stop at its end, so a frame is read into
     * it whole without being copied again. A frame is at most {@link #maxFrameLength}: what the server declared
     * it would send (its maxMessageLength), or in the handshake {@link ClientConfiguration#HANDSHAKE_FRAME_BYTES}.
     */
    private ByteBuf largeFrameBuffer(ByteBuf in, int frameBytes) {
        ByteBuf frame = largeFrames.take(alloc, frameBytes);
        if (frame == null) {
            frame = FrameArray.allocate(frameBytes);
        }
        frame.writeBytes(in);
        in.release();
        return frame;
    }

    // ---- heartbeat and close ----

    @Override
    public ByteBufAllocator alloc() {
        return alloc;
    }

    @Override
    public int keptDeliveries() {
        return kept.length;
    }

    @Override
    public void startHeartbeat(int millis) {
        long intervalNanos = TimeUnit.MILLISECONDS.toNanos(millis);
        long period = Math.max(1, millis / 4);
        heartbeat = LinkTimer.scheduleAtFixedRate(() -> checkIdle(intervalNanos), period, period);
        if (end.get() != null) {
            heartbeat.cancel(false); // closed meanwhile, perhaps before the heartbeat existed to be cancelled
        }
    }

    private void checkIdle(long intervalNanos) {
        long now = System.nanoTime();
        // a check that comes more than an interval late found this JVM stalled (a pause, a starved machine), not the
        // server silent: its reader may not have run either, so the silence is judged from the next check on, after
        // the PING below has gone out
        boolean late = now - lastCheckNanos > intervalNanos;
        lastCheckNanos = now;
        if (!late && now - lastReadNanos > 3 * intervalNanos) {
            if (end.compareAndSet(null, SILENCE)) {
                closeSocket(); // the reader reports it
            }
            return;
        }
        // a thread holding the lock is writing already; a ping would only queue behind it
        if (now - lastWriteNanos >= intervalNanos && writeLock.tryLock()) {
            try {
                writeLocked(Frame.Ping.INSTANCE);
            } finally {
                writeLock.unlock();
            }
            writeWaitingWhileFree();
        }
    }

    @Override
    public void frameLimit(int maxFrameLength) {
        assert readTurn.isHeldByCurrentThread() : "the frame limit is the reading thread's";
        this.maxFrameLength = maxFrameLength;
    }

    @Override
    public boolean isOpen() {
        return end.get() == null;
    }

    @Override
    public void close(long waitMillis) {
        if (end.compareAndSet(null, LOCAL_CLOSE)) {
            closeSocket();
        }
        // the reader reports the close; not awaited by a thread that holds the read turn, which the reader needs
        if (Thread.currentThread() != reader && !readTurn.isHeldByCurrentThread()) {
            try {
                closed.await(waitMillis, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** A write failed: the reader, woken by the close, reports the cause. */
    private void failed(Throwable cause) {
        if (end.compareAndSet(null, cause)) {
            closeSocket();
        }
    }

    private void closeSocket() {
        ScheduledFuture<?> beat = heartbeat;
        if (beat != null) {
            beat.cancel(false);
        }
        closeSockets(); // wakes the reader and any blocked writer
        LockSupport.unpark(reader); // it sleeps while application threads read
        if (!writeLock.isHeldByCurrentThread() && writeLock.tryLock()) {
            try {
                releaseWaiting();
            } finally {
                writeLock.unlock();
            }
        }
    }

    /**
     * Closes the socket. A TLS socket sends close_notify under its record lock, which a writer blocked on a full
     * socket holds, and the send itself can block on a full socket: so only an application's close with no writer
     * inside (this link's write lock taken) closes it in order; otherwise (a failure, a silent server, a blocked
     * writer) the TCP socket under it is closed first, which ends a blocked write at once, and the server sees the
     * connection end without close_notify (the protocol's CLOSE frame is what says goodbye).
     */
    private void closeSockets() {
        if (socket == transport) {
            closeQuietly(socket);
            return;
        }
        boolean locked = end.get() == LOCAL_CLOSE && !writeLock.isHeldByCurrentThread() && writeLock.tryLock();
        try {
            if (!locked) {
                closeQuietly(transport);
            }
            closeQuietly(socket);
        } finally {
            if (locked) {
                writeLock.unlock();
            }
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    /** Releases the message buffers of frames that will never be written. */
    private void releaseWaiting() {
        for (Frame frame; (frame = waiting.poll()) != null; ) {
            ByteBuf body = FrameEncoder.messageOf(frame);
            if (body != null) {
                body.release();
            }
        }
    }
}
