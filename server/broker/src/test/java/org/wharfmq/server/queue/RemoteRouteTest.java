package org.wharfmq.server.queue;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.wharfmq.protocol.message.TransmissionHeader;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.protocol.message.WireMessage;
import org.wharfmq.server.WharfException;
import org.wharfmq.server.config.QueueDefinition;
import org.wharfmq.server.config.QueueReference;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.store.InMemoryMessageStore;
import org.wharfmq.server.store.QueueDefinitionFile;

import java.nio.file.Path;
import java.time.InstantSource;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A session's remembered route to another queue manager: the same remote name is resolved once, while every change of
 * the definitions (a queue-manager alias deleted and defined anew, a queue defined or altered) has the next put
 * resolve it anew; a local name is never remembered. The transmission header of the route remembered is prepared once.
 */
class RemoteRouteTest {

    @TempDir
    Path data;
    private QueueManager queues;
    private final RemoteRoute route = new RemoteRoute();

    @BeforeEach
    void start() {
        queues = new QueueManager(ServerConfig.builder().name("QM1").autoCreate(false).queue("LOCAL")
                .queue(QueueDefinition.transmissionQueue("XMIT.A")).queue(QueueDefinition.transmissionQueue("XMIT.B"))
                .build(), new InMemoryMessageStore(), InstantSource.system(), QueueDefinitionFile.in(data));
        queues.defineReference(QueueReference.remote("QM7", null, "QM2", "XMIT.A"));
    }

    @AfterEach
    void close() {
        queues.close();
    }

    @Test
    void aRemoteNameIsResolvedOnceWhileTheDefinitionsStayAsTheyAre() {
        QueueNameResolver.Resolution first = resolve("QM7/REPLY");
        assertEquals("XMIT.A", first.queue().name());
        assertEquals("QM2", first.queueManager());
        assertEquals("REPLY", first.remoteQueue());
        assertSame(first, resolve("QM7/REPLY"), "the same name, read from another message: remembered");

        QueueNameResolver.Resolution other = resolve("QM7/OTHER");
        assertEquals("OTHER", other.remoteQueue());
        assertSame(other, resolve("QM7/OTHER"), "the last name is remembered");
    }

    @Test
    void everyChangeOfTheDefinitionsHasTheNextPutResolvedAnew() {
        assertEquals("XMIT.A", resolve("QM7/REPLY").queue().name());

        queues.deleteReference("QM7");
        queues.defineReference(QueueReference.remote("QM7", null, "QM3", "XMIT.B"));
        QueueNameResolver.Resolution redefined = resolve("QM7/REPLY");
        assertEquals("XMIT.B", redefined.queue().name());
        assertEquals("QM3", redefined.queueManager());

        queues.defineQueue(QueueDefinition.named("UNRELATED"));
        QueueNameResolver.Resolution afterDefine = resolve("QM7/REPLY");
        assertNotSame(redefined, afterDefine, "any queue defined: resolved anew");
        assertEquals(redefined, afterDefine);

        queues.alterQueue("XMIT.B", Map.of("usage", QueueDefinition.NORMAL));
        WharfException refused = assertThrows(WharfException.class, () -> resolve("QM7/REPLY"));
        assertEquals("Transmission queue 'XMIT.B', named by queue-manager alias 'QM7', is not a transmission queue on"
                + " queue manager QM1: define it (wharf admin define queue XMIT.B --usage transmission, or usage:"
                + " transmission under queues:).", refused.getMessage());
    }

    @Test
    void aLocalNameIsNotRemembered() {
        QueueNameResolver.Resolution remote = resolve("QM7/REPLY");
        QueueNameResolver.Resolution local = resolve("QM1/LOCAL");
        assertEquals("LOCAL", local.queue().name());
        assertNotSame(local, resolve("QM1/LOCAL"), "a local queue may come and go by use: resolved each time");
        assertSame(remote, resolve("QM7/REPLY"), "the remote route remembered before stays");
    }

    @Test
    void theTransmissionHeaderIsPreparedOnceForTheRouteRememberedAndAnewAfterAChange() {
        QueueNameResolver.Resolution first = resolve("QM7/REPLY");
        TransmissionHeader.Route header = route.header(first, "QM1");
        assertSame(header, route.header(resolve("QM7/REPLY"), "QM1"), "the same route: its header prepared once");
        assertWritten(header, "QM2", "REPLY");

        TransmissionHeader.Route other = route.header(resolve("QM7/OTHER"), "QM1");
        assertNotSame(header, other, "another name: another header");
        assertWritten(other, "QM2", "OTHER");

        queues.deleteReference("QM7");
        queues.defineReference(QueueReference.remote("QM7", null, "QM3", "XMIT.B"));
        TransmissionHeader.Route redefined = route.header(resolve("QM7/OTHER"), "QM1");
        assertWritten(redefined, "QM3", "OTHER");

        QueueNameResolver.Resolution notRemembered = new QueueNameResolver.Resolution(first.queue(), "QM9", "ELSE",
                true);
        assertWritten(route.header(notRemembered, "QM1"), "QM9", "ELSE");
        assertSame(redefined, route.header(resolve("QM7/OTHER"), "QM1"), "the one remembered stays");
    }

    /** A message addressed with {@code header} reads as one for {@code queue} on {@code queueManager} from QM1. */
    private static void assertWritten(TransmissionHeader.Route header, String queueManager, String queue) {
        WireMessage m = new WireMessage();
        m.destination = WireDestination.queue("QM7/" + queue);
        m.replyTo = WireDestination.queue("REPLIES");
        m.body = new byte[] {7};
        ByteBuf message = Unpooled.buffer();
        m.encode(message);
        ByteBuf wrapped = TransmissionHeader.address(message, header).wrap(UnpooledByteBufAllocator.DEFAULT, 1024);
        WireMessage decoded = WireMessage.decode(wrapped);
        assertEquals(queueManager, decoded.properties.get(TransmissionHeader.QUEUE_MANAGER));
        assertEquals(queue, decoded.properties.get(TransmissionHeader.QUEUE));
        assertEquals("QM1", decoded.properties.get(TransmissionHeader.SOURCE_QUEUE_MANAGER));
        assertEquals(WireDestination.queue(queue), decoded.destination);
        assertEquals(WireDestination.queue("QM1/REPLIES"), decoded.replyTo);
        wrapped.release();
        message.release();
    }

    /** A put to {@code name} through the route, its name a new string as a message's is. */
    private QueueNameResolver.Resolution resolve(String name) {
        return route.resolve(queues.resolver(), WireDestination.queue(new String(name)), QueueCreator.ANYONE);
    }
}
