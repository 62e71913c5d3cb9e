package org.wharfmq.server.admin;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.wharfmq.protocol.message.BodyType;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.protocol.message.WireMessage;
import org.wharfmq.server.security.AdminSender;

import java.nio.charset.StandardCharsets;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * A request as the admin plugin reads it off the command queue (through the core client, as the protocol encodes it):
 * the command, the {@code Wharf...} arguments and nothing else, who sent it, where from, and a BytesMessage's body.
 */
class AdminRequestTest {

    /** {@code message} as it arrives: encoded, then decoded, as the plugin's consumer decodes each delivery. */
    private static WireMessage delivered(WireMessage message) {
        ByteBuf buffer = Unpooled.buffer();
        try {
            message.encode(buffer);
            return WireMessage.decode(buffer);
        } finally {
            buffer.release();
        }
    }

    private static WireMessage request(String command) {
        WireMessage m = new WireMessage();
        m.messageId = "ID:7:1";
        m.destination = WireDestination.queue("SYSTEM.ADMIN.COMMAND.QUEUE");
        m.replyTo = WireDestination.queue("SYSTEM.ADMIN.REPLY.QUEUE");
        if (command != null) {
            m.properties.put(AdminProtocol.COMMAND, command);
        }
        return m;
    }

    @Test
    void theCommandItsArgumentsTheSenderAndTheOriginAreReadOffTheMessage() {
        WireMessage m = request("alter-queue");
        m.properties.put(AdminProtocol.QUEUE, "ORDERS");
        m.properties.put("WharfMaxDepth", 500L);
        m.properties.put("JMSXUserID", "mallory"); // the sender's word: not who sent it
        m.properties.put(AdminSender.USER, "alice"); // the queue manager's stamp
        m.properties.put(AdminSender.GROUPS, "ops");
        m.properties.put(AdminSender.MECHANISM, "SCRAM-SHA-256");
        m.properties.put("colour", "blue"); // not an argument: arguments are the Wharf... properties
        AdminRequest request = AdminRequest.of(delivered(m));

        assertEquals("alter-queue", request.command());
        assertEquals(Map.of("WharfMaxDepth", 500L, AdminProtocol.QUEUE, "ORDERS"), request.arguments(),
                "the Wharf... properties but the command");
        assertEquals(500L, request.number("WharfMaxDepth"));
        assertEquals("alice", request.user());
        assertEquals("request ID:7:1", request.origin());
        assertNull(request.body(), "a request that is not a BytesMessage has no body");
    }

    @Test
    void anAnonymousSenderAndAMissingCommandAreNull() {
        WireMessage m = request(null);
        m.properties.put("JMSXUserID", "");
        AdminRequest request = AdminRequest.of(delivered(m));
        assertNull(request.command());
        assertNull(request.user());
        assertEquals(Map.of(), request.arguments());
    }

    @Test
    void aBytesMessagesBodyIsTheRequestsBodyEmptyWhenItHasNone() {
        WireMessage jar = request("deploy");
        jar.bodyType = BodyType.BYTES;
        jar.body = "PK\u0003\u0004".getBytes(StandardCharsets.ISO_8859_1);
        assertArrayEquals(jar.body, AdminRequest.of(delivered(jar)).body());

        WireMessage empty = request("deploy");
        empty.bodyType = BodyType.BYTES;
        assertArrayEquals(new byte[0], AdminRequest.of(delivered(empty)).body());
    }
}
