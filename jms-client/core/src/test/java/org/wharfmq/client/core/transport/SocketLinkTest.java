package org.wharfmq.client.core.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.wharfmq.client.core.ClientConfiguration;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.frame.FrameArray;
import org.wharfmq.protocol.frame.FrameDecoder;
import org.wharfmq.protocol.frame.FrameEncoder;
import org.wharfmq.protocol.frame.MalformedFrameException;
import org.wharfmq.protocol.message.BodyType;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The TCP link against a raw socket server: framing across reads, batched and large writes, piggybacking, interrupts, every way it ends. */
class SocketLinkTest {
    private ServerSocket server;
    private Socket peer;
    private final Recorder listener = new Recorder();
    private SocketLink link;

    @BeforeEach
    void connect() throws IOException, org.wharfmq.client.core.ClientException {
        server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        link = SocketLink.connect("127.0.0.1", server.getLocalPort(), null, listener, 5000);
        peer = server.accept();
        peer.setSoTimeout(10_000);
    }

    @AfterEach
    void close() throws IOException {
        link.close(5000);
        peer.close();
        server.close();
        listener.releaseAll();
    }

    @Test
    void framesLargerThanTheReadBufferAndManyPerReadArriveIntactWhileEarlierMessagesAreStillHeld() throws Exception {
        // 300 frames of 3,000 bytes, one of 1 MiB, then 300 more: the reader must move on to new buffers while
        // the messages it already delivered (retained slices of its buffer) are still unreleased
        // the first frame, within the handshake's limit, raises it as a HELLO_OK would
        listener.onFrame = f -> link.frameLimit(Integer.MAX_VALUE - 16);
        ByteBuf wire = Unpooled.buffer();
        List<Integer> sizes = new ArrayList<>();
        for (int i = 0; i < 601; i++) {
            int size = i == 300 ? (1 << 20) : 3000;
            sizes.add(size);
            ByteBuf body = Unpooled.buffer(size);
            for (int b = 0; b < size; b++) {
                body.writeByte(pattern(i, b));
            }
            FrameEncoder.writeHeader(new Frame.Deliver(i, i, 1, body), wire);
            wire.writeBytes(body);
        }
        peer.getOutputStream().write(wire.array(), wire.arrayOffset(), wire.readableBytes());
        peer.getOutputStream().flush();
        for (int i = 0; i < 601; i++) {
            Frame.Deliver d = assertInstanceOf(Frame.Deliver.class, listener.next());
            assertEquals(i, d.consumerId());
            assertEquals(sizes.get(i), d.message().readableBytes(), "frame " + i);
        }
        for (Frame f : listener.held) { // every body checked only now, after all the later reads
            checkPattern((Frame.Deliver) f);
        }
    }

    @Test
    void messagesHeldWhileOthersAreReleasedStayIntactAsTheLinkReadsOnPastThem() throws Exception {
        // 2,000 frames of 3,000 bytes, about 21 to a read buffer: every 50th message is held to the end, the others
        // released as they arrive, so the link compacts or moves on from its buffers while some messages in them are
        // held (and copies those whose first byte says BytesMessage): no held body may be written over
        int frames = 2000;
        listener.onFrame = f -> {
            Frame.Deliver d = (Frame.Deliver) f;
            if (d.consumerId() % 50 != 0) {
                checkPattern(d);
                d.message().release();
            }
        };
        ByteBuf wire = Unpooled.buffer();
        for (int i = 0; i < frames; i++) {
            ByteBuf body = Unpooled.buffer(3000);
            for (int b = 0; b < 3000; b++) {
                body.writeByte(pattern(i, b));
            }
            FrameEncoder.writeHeader(new Frame.Deliver(i, i, 1, body), wire);
            wire.writeBytes(body);
        }
        peer.getOutputStream().write(wire.array(), wire.arrayOffset(), wire.readableBytes());
        peer.getOutputStream().flush();
        for (int i = 0; i < frames; i++) {
            assertEquals(i, ((Frame.Deliver) listener.next()).consumerId());
        }
        synchronized (listener.held) {
            for (Frame f : listener.held) {
                Frame.Deliver d = (Frame.Deliver) f;
                if (d.consumerId() % 50 == 0) {
                    checkPattern(d);
                }
            }
        }
    }

    private static void checkPattern(Frame.Deliver d) {
        ByteBuf body = d.message();
        for (int b = 0; b < body.readableBytes(); b++) {
            if (body.getByte(body.readerIndex() + b) != pattern(d.consumerId(), b)) {
                throw new AssertionError("frame " + d.consumerId() + " byte " + b + " was overwritten");
            }
        }
    }

    @Test
    void aBytesMessageDeliveryIsCopiedIntoAnArrayOfItsOwnAndAnyOtherIsASliceOfTheReadBuffer() throws Exception {
        ByteBuf bytesMessage = Unpooled.buffer().writeByte(BodyType.BYTES.code()).writeBytes(new byte[]{7, 8, 9});
        ByteBuf textMessage = Unpooled.buffer().writeByte(BodyType.TEXT.code()).writeBytes(new byte[]{7, 8, 9});
        ByteBuf wire = Unpooled.buffer();
        for (Frame.Deliver d : List.of(new Frame.Deliver(1, 10, 1, bytesMessage), new Frame.Deliver(2, 11, 3, textMessage))) {
            FrameEncoder.writeHeader(d, wire);
            wire.writeBytes(d.message(), d.message().readerIndex(), d.message().readableBytes());
        }
        peer.getOutputStream().write(wire.array(), wire.arrayOffset(), wire.readableBytes());
        Frame.Deliver bytes = assertInstanceOf(Frame.Deliver.class, listener.next());
        assertEquals(List.of(1, 10L, 1), List.of(bytes.consumerId(), bytes.deliveryId(), bytes.deliveryCount()));
        assertTrue(FrameArray.holds(bytes.message()), "its own array, which its body can stay in");
        assertEquals(bytesMessage, bytes.message());
        assertEquals(1, bytes.message().refCnt(), "held by nothing but the frame");
        Frame.Deliver text = assertInstanceOf(Frame.Deliver.class, listener.next());
        assertEquals(List.of(2, 11L, 3), List.of(text.consumerId(), text.deliveryId(), text.deliveryCount()));
        assertFalse(FrameArray.holds(text.message()), "decoded from the read buffer, not copied first");
        assertEquals(textMessage, text.message());
    }

    @Test
    void aKeptMessageComesOnceAndEachDeliveryNamingItsSlotIsThatMessageInABufferOfItsOwn() throws Exception {
        // DELIVER_KEEP into slots 0 and 1, then DELIVER_SAME naming them, across 200 reads' worth of frames: the link
        // keeps the messages it was sent once, whatever it reads in between (docs/protocol.md, "Shared deliveries")
        assertEquals(ClientConfiguration.KEPT_DELIVERIES, link.keptDeliveries());
        listener.onFrame = f -> link.frameLimit(Integer.MAX_VALUE - 16);
        ByteBuf wire = Unpooled.buffer();
        int rounds = 200;
        for (int r = 0; r < rounds; r++) {
            for (int slot = 0; slot < 2; slot++) {
                int id = 2 * r + slot;
                ByteBuf body = Unpooled.buffer(3000).writeByte(BodyType.BYTES.code());
                for (int b = 1; b < 3000; b++) {
                    body.writeByte(pattern(id, b));
                }
                Frame.DeliverKeep.writeFrame(wire, id, id, 1, slot, body);
            }
            for (int slot = 0; slot < 2; slot++) {
                Frame.DeliverSame.writeFrame(wire, 2 * r + slot, 100_000 + 2 * r + slot, 2, slot);
            }
        }
        peer.getOutputStream().write(wire.array(), wire.arrayOffset(), wire.readableBytes());
        peer.getOutputStream().flush();
        List<Frame.Deliver> kept = new ArrayList<>();
        for (int r = 0; r < rounds; r++) {
            for (int slot = 0; slot < 2; slot++) {
                Frame.Deliver keep = assertInstanceOf(Frame.Deliver.class, listener.next());
                assertEquals(2 * r + slot, keep.deliveryId());
                assertTrue(FrameArray.holds(keep.message()), "kept in an array of its own");
                kept.add(keep);
            }
            for (int slot = 0; slot < 2; slot++) {
                Frame.Deliver same = assertInstanceOf(Frame.Deliver.class, listener.next());
                assertEquals(List.of(2 * r + slot, 100_000L + 2 * r + slot, 2),
                        List.of(same.consumerId(), same.deliveryId(), same.deliveryCount()));
                Frame.Deliver keep = kept.get(2 * r + slot);
                assertEquals(keep.message(), same.message(), "round " + r + ", slot " + slot);
                assertNotSame(keep.message(), same.message(), "a buffer of its own");
                same.message().release();
            }
        }
        for (Frame.Deliver keep : kept) { // every kept message checked only now, after all the later reads
            ByteBuf body = keep.message();
            for (int b = 1; b < body.readableBytes(); b++) {
                if (body.getByte(body.readerIndex() + b) != pattern(keep.consumerId(), b)) {
                    throw new AssertionError("kept message " + keep.consumerId() + " byte " + b + " was overwritten");
                }
            }
        }
        assertNull(listener.failure);
    }

    @Test
    void aDeliverSameNamingASlotNoDeliverKeepFilledIsAFailureThenAClose() throws Exception {
        ByteBuf wire = Unpooled.buffer();
        Frame.DeliverSame.writeFrame(wire, 1, 1, 1, 5);
        peer.getOutputStream().write(wire.array(), wire.arrayOffset(), wire.readableBytes());
        assertTrue(listener.closed.await(5, TimeUnit.SECONDS));
        MalformedFrameException e = assertInstanceOf(MalformedFrameException.class, listener.failure);
        assertTrue(e.getMessage().contains("slot 5, which no DELIVER_KEEP filled"), e.getMessage());
    }

    @Test
    void aFrameArrivingOneByteAtATimeIsDecodedOnce() throws Exception {
        ByteBuf wire = Unpooled.buffer();
        FrameEncoder.writeHeader(new Frame.Credit(7, 42), wire);
        OutputStream out = peer.getOutputStream();
        peer.setTcpNoDelay(true);
        for (int i = 0; i < wire.readableBytes(); i++) {
            out.write(wire.getByte(i));
            out.flush();
        }
        assertEquals(new Frame.Credit(7, 42), listener.next());
        sendRaw(new Frame.Credit(8, 43)); // frames are decoded in order: a second copy of the first would come before it
        assertEquals(new Frame.Credit(8, 43), listener.next());
    }

    @Test
    void waitingFramesLeaveBeforeTheNextWriteAndMessageBuffersAreReleasedOnceWritten() throws Exception {
        ByteBuf body = Unpooled.directBuffer().writeBytes(new byte[5000]); // direct, as another allocator might give
        link.writeSoon(new Frame.Ack(0, 1, List.of(new Frame.Consumed(3, 9))));
        link.write(new Frame.Send(5, 1, 2, body));
        Frame first = readFrame();
        assertInstanceOf(Frame.Ack.class, first);
        Frame.Send send = assertInstanceOf(Frame.Send.class, readFrame());
        assertEquals(5000, send.message().readableBytes());
        send.message().release();
        assertEquals(0, body.refCnt(), "the link releases a SEND's buffer once it is written");
    }

    @Test
    void anInterruptedApplicationThreadCanStillWriteAndTheLinkStaysOpen() throws Exception {
        Thread.currentThread().interrupt();
        try {
            link.write(new Frame.Credit(4, 2));
            assertTrue(Thread.currentThread().isInterrupted(), "the interrupt is the application's, left as it was");
        } finally {
            Thread.interrupted();
        }
        assertEquals(new Frame.Credit(4, 2), readFrame());
        assertTrue(link.isOpen());
        link.write(new Frame.Credit(4, 3));
        assertEquals(new Frame.Credit(4, 3), readFrame());
    }

    @Test
    void aMessageLargerThanTheCopyLimitIsWrittenAfterTheFramesBeforeIt() throws Exception {
        byte[] big = new byte[300_000];
        for (int i = 0; i < big.length; i++) {
            big[i] = (byte) (i * 7);
        }
        link.writeSoon(new Frame.Credit(1, 1));
        link.write(new Frame.Send(0, 1, 2, Unpooled.wrappedBuffer(big)));
        link.write(new Frame.Credit(1, 2));
        assertEquals(new Frame.Credit(1, 1), readFrame());
        Frame.Send send = assertInstanceOf(Frame.Send.class, readFrame());
        byte[] received = new byte[send.message().readableBytes()];
        send.message().readBytes(received);
        send.message().release();
        assertArrayEquals(big, received);
        assertEquals(new Frame.Credit(1, 2), readFrame());
    }

    @Test
    void flushDoesNotWaitForAWriterBlockedOnAFullSocketAndItsFramesStillLeave() throws Exception {
        Thread writer = BlockedWriter.start(link); // the peer reads nothing yet
        CompletableFuture<Void> flushed = CompletableFuture.runAsync(() -> {
            link.writeSoon(new Frame.Credit(8, 1));
            link.flush();
        });
        flushed.get(5, TimeUnit.SECONDS);
        assertTrue(link.isWriting(), "flush returned while the big write was still blocked");
        // the two threads queue their frames concurrently (the writer holds the lock before it queues its SEND), so
        // either may go first; both leave, each whole
        Frame first = readFrame();
        Frame second = readFrame();
        Frame.Send big = assertInstanceOf(Frame.Send.class, first instanceof Frame.Send ? first : second);
        assertEquals(32 << 20, big.message().readableBytes());
        big.message().release();
        assertEquals(new Frame.Credit(8, 1), first instanceof Frame.Send ? second : first);
        writer.join(5000);
    }

    @Test
    void waitingFramesHoldingMoreThanTheLimitOfMessageBytesAreWrittenAtOnceInOrder() throws Exception {
        int half = org.wharfmq.client.core.ClientConfiguration.SOON_LIMIT_BYTES / 2 + 1;
        // the timer held, no timed flush can write them: what arrives the sending thread wrote (on loopback a byte
        // is usually readable when its write returns, but a busy kernel may deliver it a moment later)
        CountDownLatch timerHeld = holdTheTimer();
        try {
            link.writeSoon(new Frame.Credit(1, 1));
            link.writeSoon(new Frame.Send(0, 1, 2, Unpooled.wrappedBuffer(new byte[half])));
            link.writeSoon(new Frame.Send(0, 1, 2, Unpooled.wrappedBuffer(new byte[half])));
            assertEquals(new Frame.Credit(1, 1), readFrame(), "past the limit, written by the sending thread");
            for (int i = 0; i < 2; i++) {
                Frame.Send send = assertInstanceOf(Frame.Send.class, readFrame());
                assertEquals(half, send.message().readableBytes());
                send.message().release();
            }
        } finally {
            timerHeld.countDown();
        }
    }

    @Test
    void aWaitingFrameLeavesOnItsOwnWhenNothingElseIsWritten() throws Exception {
        link.writeSoon(new Frame.Credit(1, 10));
        assertEquals(new Frame.Credit(1, 10), readFrame());
    }

    @Test
    void aFlushLeavesLaterAcknowledgementsWhichWriteQueuedSendsAtOnce() throws Exception {
        CountDownLatch timerHeld = holdTheTimer(); // no timed write meanwhile, however slow this thread runs
        try {
            link.writeLater(ack(1, 3, 9));
            link.flush(); // only an acknowledgement waits: a flush before a wait leaves it
            assertEquals(0, peer.getInputStream().available(), "a flush wrote the later acknowledgement");
            link.writeQueued(); // before the session's next message: written by this thread, now
            assertEquals(ack(1, 3, 9), readFrame());
            link.writeSoon(new Frame.Credit(3, 2));
            link.writeLater(ack(1, 3, 10));
            link.flush(); // a frame of writeSoon waits: flushed, with the acknowledgement behind it
            assertEquals(new Frame.Credit(3, 2), readFrame());
            assertEquals(ack(1, 3, 10), readFrame());
            link.writeQueued(); // nothing left: no write
            assertEquals(0, peer.getInputStream().available());
        } finally {
            timerHeld.countDown();
        }
    }

    @Test
    void writeQueuedReturnsOnceAnotherThreadHasWrittenTheFrame() throws Exception {
        CountDownLatch timerHeld = holdTheTimer();
        try {
            link.writeLater(ack(1, 3, 9));
            Thread other = new Thread(() -> link.write(new Frame.Credit(4, 1))); // takes the acknowledgement with it
            other.start();
            other.join(10_000);
            link.writeQueued();
            assertEquals(ack(1, 3, 9), readFrame());
            assertEquals(new Frame.Credit(4, 1), readFrame());
        } finally {
            timerHeld.countDown();
        }
    }

    @Test
    void aLaterAcknowledgementLeavesOnItsOwnWhenNothingElseIsWritten() throws Exception {
        link.writeLater(ack(1, 3, 9));
        assertEquals(ack(1, 3, 9), readFrame());
    }

    @Test
    void aWaitingFramesTimedFlushIsDueWithinThePiggybackBoundAndTheNextFrameArmsOneAgain() throws Exception {
        long bound = TimeUnit.MILLISECONDS.toNanos(ClientConfiguration.PIGGYBACK_MILLIS);
        for (int i = 1; i <= 2; i++) {
            CountDownLatch timerHeld = holdTheTimer(); // the flush cannot run, so it is still armed when looked at
            try {
                link.writeSoon(new Frame.Credit(1, i));
                long due = TimedFlushes.nanosToNextFlush();
                assertTrue(due <= bound, "frame " + i + ": the timed flush is due in " + due + " ns, past the bound");
            } finally {
                timerHeld.countDown();
            }
            assertEquals(new Frame.Credit(1, i), readFrame()); // nothing else is written: the timed flush wrote it
        }
    }

    @Test
    void theTimedFlushServesEveryLinkAndPassesOverOneWhoseWriterIsBlocked() throws Exception {
        try (ServerSocket otherServer = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            SocketLink other = SocketLink.connect("127.0.0.1", otherServer.getLocalPort(), null, new Recorder(), 5000);
            try (Socket otherPeer = otherServer.accept()) {
                otherPeer.setSoTimeout(10_000);
                Thread writer = BlockedWriter.start(link); // this link's peer reads nothing yet
                CountDownLatch timerHeld = holdTheTimer(); // both links wait for the same flush
                try {
                    link.writeSoon(new Frame.Credit(8, 1));
                    other.writeSoon(new Frame.Credit(9, 1));
                } finally {
                    timerHeld.countDown();
                }
                // the timer thread did not wait for the blocked writer's lock before the other link's frame
                assertEquals(new Frame.Credit(9, 1), readFrame(otherPeer));
                assertTrue(link.isWriting(), "the big write was still blocked");
                Frame.Send big = assertInstanceOf(Frame.Send.class, readFrame());
                assertEquals(BlockedWriter.BYTES, big.message().readableBytes());
                big.message().release();
                assertEquals(new Frame.Credit(8, 1), readFrame()); // written by the writer once it let go
                writer.join(5000);
            } finally {
                other.close(5000);
            }
        }
    }

    /** Occupies the links' one timer thread until the latch returned is counted down: no timed flush runs. */
    private static CountDownLatch holdTheTimer() throws InterruptedException {
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch running = new CountDownLatch(1);
        LinkTimer.execute(() -> {
            running.countDown();
            await(held);
        });
        assertTrue(running.await(10, TimeUnit.SECONDS), "the timer thread took the task");
        return held;
    }

    private static Frame.Ack ack(int sessionId, int consumerId, long deliveryId) {
        return new Frame.Ack(0, sessionId, List.of(new Frame.Consumed(consumerId, deliveryId)));
    }

    @Test
    void aFrameWrittenOnTheReaderThreadIsSent() throws Exception {
        listener.onFrame = f -> link.write(new Frame.Credit(99, 1));
        sendRaw(new Frame.Credit(1, 1));
        assertEquals(new Frame.Credit(99, 1), readFrame());
    }

    @Test
    void aThreadWaitingForFramesReadsThemItselfOnceTheReaderThreadHasLetGo() throws Exception {
        List<String> readers = new java.util.concurrent.CopyOnWriteArrayList<>();
        listener.onFrame = f -> readers.add(Thread.currentThread().getName());
        sendRaw(new Frame.Credit(1, 1));
        assertEquals(new Frame.Credit(1, 1), listener.next()); // nobody waited: the reader thread read it
        assertTrue(readers.get(0).startsWith("wharf-client-reader"), readers.toString());

        // a waiting thread as the client's receive is one: read if the turn is free, else follow and sleep
        CountDownLatch following = new CountDownLatch(1);
        Thread waiter = new Thread(() -> {
            Thread self = Thread.currentThread();
            Runnable wake = () -> java.util.concurrent.locks.LockSupport.unpark(self);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (readers.size() < 3 && System.nanoTime() < deadline) {
                if (!link.readWhileWaiting(deadline - System.nanoTime()) && link.follow(wake)) {
                    following.countDown(); // the reader thread holds the turn, blocked in its read
                    java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
                    link.unfollow(wake);
                }
            }
        }, "application-waiter");
        waiter.start();
        assertTrue(following.await(10, TimeUnit.SECONDS));
        sendRaw(new Frame.Credit(1, 2)); // the reader thread was blocked in its read: it delivers this one
        assertEquals(new Frame.Credit(1, 2), listener.next());
        sendRaw(new Frame.Credit(1, 3));
        assertEquals(new Frame.Credit(1, 3), listener.next());
        waiter.join(10_000);
        assertEquals("application-waiter", readers.get(2), "then the waiting thread reads: no hand-over " + readers);
    }

    @Test
    void aThreadThatFindsTheTurnTakenFollowsAndIsWokenToTakeItWhenItIsFree() throws Exception {
        CountDownLatch reading = new CountDownLatch(1);
        CountDownLatch leaderMayGo = new CountDownLatch(1);
        listener.onFrame = f -> {
            if (f.equals(new Frame.Credit(2, 1))) {
                reading.countDown();
                await(leaderMayGo); // the leader holds the turn while it delivers
            }
        };
        Thread leader = new Thread(() -> link.readWhileWaiting(TimeUnit.SECONDS.toNanos(10)), "leader");
        leader.start();
        sendRaw(new Frame.Credit(2, 1));
        assertTrue(reading.await(10, TimeUnit.SECONDS));
        assertTrue(!link.readWhileWaiting(TimeUnit.SECONDS.toNanos(1)), "the turn is taken");
        CountDownLatch woken = new CountDownLatch(1);
        assertTrue(link.follow(woken::countDown), "registered while the turn is taken");
        leaderMayGo.countDown();
        leader.join(10_000);
        assertTrue(woken.await(10, TimeUnit.SECONDS), "the follower is woken when the leader lets go");
        link.unfollow(woken::countDown);
        sendRaw(new Frame.Credit(2, 2));
        // the woken follower takes the turn; on a loaded machine the reader thread may still have taken it first
        // (it reads once no thread has asked for 20 ms), and then lets it go to the thread that asks once its read
        // returns: a frame now and then ends that read (each one after the second is only that nudge)
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        long nextNudge = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50);
        int nudge = 3;
        boolean took = false;
        while (!took && System.nanoTime() < deadline) {
            took = link.readWhileWaiting(TimeUnit.SECONDS.toNanos(10));
            if (!took && System.nanoTime() > nextNudge) {
                sendRaw(new Frame.Credit(2, nudge++));
                nextNudge = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50);
            }
        }
        assertTrue(took, "and takes the turn");
        assertEquals(new Frame.Credit(2, 1), listener.next());
        assertEquals(new Frame.Credit(2, 2), listener.next());
    }

    @Test
    void onceAListenerIsInUseOnlyTheReaderThreadReads() throws Exception {
        link.readerOnly();
        assertTrue(!link.readWhileWaiting(TimeUnit.SECONDS.toNanos(1)));
        List<String> readers = new java.util.concurrent.CopyOnWriteArrayList<>();
        listener.onFrame = f -> readers.add(Thread.currentThread().getName());
        sendRaw(new Frame.Credit(3, 1));
        assertEquals(new Frame.Credit(3, 1), listener.next());
        assertTrue(readers.get(0).startsWith("wharf-client-reader"), readers.toString());
    }

    /** Starts {@code task} on a virtual thread; aborts the test before Java 21, which has none. */
    private static Thread startVirtual(Runnable task) throws Exception {
        java.lang.reflect.Method ofVirtual;
        try {
            ofVirtual = Thread.class.getMethod("ofVirtual");
        } catch (NoSuchMethodException before21) {
            org.junit.jupiter.api.Assumptions.abort("virtual threads need Java 21");
            return null;
        }
        return (Thread) Class.forName("java.lang.Thread$Builder").getMethod("start", Runnable.class)
                .invoke(ofVirtual.invoke(null), task);
    }

    @Test
    void aVirtualThreadNeverReadsTheSocket() throws Exception {
        CompletableFuture<Boolean> answers = new CompletableFuture<>();
        Thread thread = startVirtual(() -> answers.complete(SocketLink.isVirtual(Thread.currentThread())
                && !link.readWhileWaiting(TimeUnit.MILLISECONDS.toNanos(10))));
        thread.join(10_000);
        assertTrue(answers.get(10, TimeUnit.SECONDS), "an interrupt of a virtual thread in a read would close the socket");
        assertTrue(!SocketLink.isVirtual(Thread.currentThread()));
    }

    @Test
    void aVirtualThreadInterruptedWhileItsWriteIsBlockedKeepsTheLinkAndItsInterrupt() throws Exception {
        // the peer reads nothing yet, so a 32 MiB message fills both socket buffers and its write blocks
        CompletableFuture<Boolean> interruptAfterWrite = new CompletableFuture<>();
        Thread sender = startVirtual(() -> {
            link.write(new Frame.Send(0, 1, 2, Unpooled.wrappedBuffer(new byte[32 << 20])));
            interruptAfterWrite.complete(Thread.currentThread().isInterrupted());
        });
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!link.isWriting()) {
            assertTrue(System.nanoTime() < deadline, "the write never started");
            Thread.onSpinWait();
        }
        sender.interrupt(); // Java would close the socket under a virtual thread blocked in it
        Frame.Send big = assertInstanceOf(Frame.Send.class, readFrame());
        assertEquals(32 << 20, big.message().readableBytes());
        big.message().release();
        assertTrue(interruptAfterWrite.get(10, TimeUnit.SECONDS), "the application's interrupt is kept for it");
        assertTrue(link.isOpen());
        CompletableFuture<Void> next = new CompletableFuture<>();
        startVirtual(() -> {
            link.writeSoon(new Frame.Credit(5, 1));
            link.flush();
            next.complete(null);
        });
        next.get(10, TimeUnit.SECONDS);
        assertEquals(new Frame.Credit(5, 1), readFrame());
        assertNull(listener.failure);
    }

    @Test
    void theEndOfTheStreamSeenByAWaitingThreadIsReportedOnceByTheReaderThread() throws Exception {
        Thread waiter = new Thread(() -> {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (link.isOpen() && System.nanoTime() < deadline) {
                if (!link.readWhileWaiting(deadline - System.nanoTime())) {
                    java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                }
            }
        }, "end-waiter");
        waiter.start();
        peer.close();
        assertTrue(listener.closed.await(10, TimeUnit.SECONDS), "the close is reported");
        waiter.join(10_000);
        assertEquals(1, listener.closes.get());
        assertNull(listener.failure, "the server closing is no failure");
    }

    private static void await(CountDownLatch latch) {
        try {
            assertTrue(latch.await(10, TimeUnit.SECONDS));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void aBadLengthIsAFailureThenAClose() throws Exception {
        peer.getOutputStream().write(new byte[]{0, 0, 0, 0, 9});
        assertTrue(listener.closed.await(5, TimeUnit.SECONDS));
        assertInstanceOf(MalformedFrameException.class, listener.failure);
        assertEquals(1, listener.closes.get());
    }

    @Test
    void theServerClosingIsACloseWithoutFailure() throws Exception {
        peer.close();
        assertTrue(listener.closed.await(5, TimeUnit.SECONDS));
        assertNull(listener.failure);
        assertTrue(!link.isOpen());
    }

    @Test
    void closingLocallyWaitsForTheReaderAndReportsNoFailure() {
        link.close(5000);
        assertEquals(0, listener.closed.getCount(), "close returns after onClosed");
        assertNull(listener.failure);
        link.write(new Frame.Send(0, 1, 1, Unpooled.buffer().writeInt(1))); // dropped, not an error
        assertEquals(1, listener.closes.get());
    }

    @Test
    void heartbeatPingsAnIdleServerAndGivesUpOnASilentOne() throws Exception {
        link.startHeartbeat(40);
        assertEquals(Frame.Ping.INSTANCE, readFrame());
        assertTrue(listener.closed.await(5, TimeUnit.SECONDS), "three silent intervals end the link");
        assertTrue(listener.silent);
        assertNull(listener.failure);
    }

    // ---- helpers ----

    private static byte pattern(int frame, int index) {
        return (byte) (frame * 31 + index);
    }

    private void sendRaw(Frame frame) throws IOException {
        ByteBuf wire = Unpooled.buffer();
        FrameEncoder.writeHeader(frame, wire);
        peer.getOutputStream().write(wire.array(), wire.arrayOffset(), wire.readableBytes());
    }

    private Frame readFrame() throws IOException {
        return readFrame(peer);
    }

    private static Frame readFrame(Socket from) throws IOException {
        DataInputStream in = new DataInputStream(from.getInputStream());
        int length = in.readInt();
        byte[] bytes = new byte[length];
        in.readFully(bytes);
        return FrameDecoder.decodeFrame(Unpooled.wrappedBuffer(bytes));
    }

    private static final class Recorder implements FrameListener {
        final BlockingQueue<Frame> frames = new LinkedBlockingQueue<>();
        final List<Frame> held = new ArrayList<>();
        final CountDownLatch closed = new CountDownLatch(1);
        final AtomicInteger closes = new AtomicInteger();
        volatile java.util.function.Consumer<Frame> onFrame = f -> { };
        volatile Throwable failure;
        volatile boolean silent;

        @Override
        public void onFrame(Frame frame) {
            synchronized (held) {
                held.add(frame);
            }
            onFrame.accept(frame); // before it is seen as arrived: a test may look at what the hook recorded
            frames.add(frame);
        }

        Frame next() throws InterruptedException {
            Frame f = frames.poll(10, TimeUnit.SECONDS);
            assertNotNull(f, "no frame arrived");
            return f;
        }

        @Override
        public void onSilence() {
            silent = true;
        }

        @Override
        public void onFailure(Throwable cause) {
            failure = cause;
        }

        @Override
        public void onClosed() {
            closes.incrementAndGet();
            closed.countDown();
        }

        void releaseAll() {
            synchronized (held) {
                for (Frame f : held) {
                    if (f instanceof Frame.Deliver d && d.message().refCnt() > 0) {
                        d.message().release();
                    }
                }
            }
        }
    }
}
