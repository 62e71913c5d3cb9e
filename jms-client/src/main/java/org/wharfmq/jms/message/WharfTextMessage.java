package org.wharfmq.jms.message;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import org.wharfmq.protocol.message.BodyType;

import javax.jms.JMSException;
import javax.jms.TextMessage;
import java.nio.charset.StandardCharsets;

/** A message whose body is a String, sent as UTF-8. */
public final class WharfTextMessage extends WharfMessage implements TextMessage {
    private String text;
    /** UTF-8 length of {@link #text}, computed once per send; -1 = not yet. */
    private int utf8Length = -1;

    /** An empty text message. */
    public WharfTextMessage() {
    }

    /** A text message with the given body. */
    public WharfTextMessage(String text) {
        this.text = text;
    }

    @Override
    public void setText(String text) throws JMSException {
        checkBodyWritable();
        this.text = text;
        this.utf8Length = -1;
    }

    @Override
    public String getText() {
        return text;
    }

    @Override
    public void clearBody() throws JMSException {
        super.clearBody();
        text = null;
        utf8Length = -1;
    }

    @Override
    BodyType bodyType() {
        return BodyType.TEXT;
    }

    @Override
    long bodyLength() {
        if (text == null) {
            return 0;
        }
        if (utf8Length < 0) {
            utf8Length = ByteBufUtil.utf8Bytes(text);
        }
        return utf8Length;
    }

    @Override
    int bodySizeHint() {
        return (int) bodyLength();
    }

    @Override
    boolean hasBody() {
        return text != null;
    }

    @Override
    void writeBody(ByteBuf out) {
        // reserve the exact length: writeUtf8 alone would reserve three bytes per char
        ByteBufUtil.reserveAndWriteUtf8(out, text, (int) bodyLength());
    }

    @Override
    void readBody(ByteBuf in, int length) {
        if (length < 0) {
            text = null;
            return;
        }
        text = in.toString(in.readerIndex(), length, StandardCharsets.UTF_8);
        in.skipBytes(length);
        utf8Length = length;
    }

    @Override
    Object bodyValue() {
        return text;
    }
}
