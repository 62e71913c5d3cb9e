package org.wharfmq.server.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;

import java.nio.charset.StandardCharsets;

/**
 * A plain-text answer written as bytes, below the HTTP codec, by a handler that closes the connection after it: for a
 * connection that has no request the codec could answer (one refused at accept, one whose request never came whole).
 */
final class RawAnswer {

    private RawAnswer() {
    }

    /** Writes {@code status} (such as {@code 408 Request Timeout}) with {@code text} as its body, then closes. */
    static void writeAndClose(ChannelHandlerContext ctx, String status, String text) {
        byte[] body = (text + "\n").getBytes(StandardCharsets.UTF_8);
        String head = "HTTP/1.1 " + status + "\r\nContent-Type: " + HttpAnswer.TEXT + "\r\nContent-Length: "
                + body.length + "\r\nConnection: close\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff"
                + "\r\n\r\n";
        ByteBuf answer = ctx.alloc().buffer(head.length() + body.length);
        ByteBufUtil.writeAscii(answer, head);
        answer.writeBytes(body);
        ctx.writeAndFlush(answer).addListener(ChannelFutureListener.CLOSE);
    }
}
