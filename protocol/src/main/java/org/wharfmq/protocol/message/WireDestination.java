package org.wharfmq.protocol.message;

import io.netty.buffer.ByteBuf;
import org.wharfmq.protocol.frame.MalformedFrameException;
import org.wharfmq.protocol.frame.WireStrings;

import java.util.Objects;

/**
 * A destination as it travels: its kind and its physical name. Encoded as one kind byte (0 = none) and, unless
 * none, the name as a wire string.
 *
 * @param kind queue, topic or a temporary one
 * @param name the physical name, e.g. {@code REQUEST} or {@code prices/fx/GBP}
 */
public record WireDestination(Kind kind, String name) {

    /** What kind of destination a name refers to. */
    public enum Kind {
        QUEUE(1), TOPIC(2), TEMPORARY_QUEUE(3), TEMPORARY_TOPIC(4);

        private final byte code;

        Kind(int code) {
            this.code = (byte) code;
        }

        /** The byte written on the wire. */
        public byte code() {
            return code;
        }

        /** True for queues, temporary or not: point-to-point destinations. */
        public boolean isQueue() {
            return this == QUEUE || this == TEMPORARY_QUEUE;
        }

        /** True for temporary destinations, which live only as long as the connection that made them. */
        public boolean isTemporary() {
            return this == TEMPORARY_QUEUE || this == TEMPORARY_TOPIC;
        }

        static Kind of(byte code) {
            return switch (code) {
                case 1 -> QUEUE;
                case 2 -> TOPIC;
                case 3 -> TEMPORARY_QUEUE;
                case 4 -> TEMPORARY_TOPIC;
                default -> throw new MalformedFrameException("unknown destination kind " + code);
            };
        }
    }

    /** Creates a destination; both parts are required. */
    public WireDestination {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(name, "name");
    }

    /** Shorthand for a queue destination. */
    public static WireDestination queue(String name) {
        return new WireDestination(Kind.QUEUE, name);
    }

    /** Shorthand for a topic destination. */
    public static WireDestination topic(String name) {
        return new WireDestination(Kind.TOPIC, name);
    }

    /** Writes a nullable destination. */
    public static void write(ByteBuf out, WireDestination d) {
        if (d == null) {
            out.writeByte(0);
        } else {
            out.writeByte(d.kind.code);
            WireStrings.write(out, d.name);
        }
    }

    /** Reads a nullable destination, checked as {@link #skip} checks it. */
    public static WireDestination read(ByteBuf in) {
        int at = in.readerIndex();
        int next = skip(in, at, in.writerIndex());
        in.readerIndex(next);
        return at(in, at, next);
    }

    /**
     * Checks the nullable destination at {@code index} in place, without creating objects: a known kind byte, and
     * unless none, a name that is not null and fits before {@code end}: the one rule of {@link #read} and of the
     * message reader.
     *
     * @return the index after it
     * @throws MalformedFrameException when it is broken or does not fit
     */
    public static int skip(ByteBuf buf, int index, int end) {
        if (index >= end) {
            throw new MalformedFrameException("a destination is truncated: no byte is left for its kind");
        }
        byte code = buf.getByte(index);
        if (code == 0) {
            return index + 1;
        }
        Kind kind = Kind.of(code);
        if (end - index - 1 < 4) {
            throw new MalformedFrameException("a destination of kind " + kind + " is truncated: its name does not fit");
        }
        int length = WireStrings.checkLength(buf.getInt(index + 1), end - index - 5);
        if (length == -1) {
            throw new MalformedFrameException("destination of kind " + kind + " has no name");
        }
        return index + 5 + length;
    }

    /** The destination from {@code index} to {@code next}, which {@link #skip} has checked. */
    public static WireDestination at(ByteBuf buf, int index, int next) {
        if (next == index + 1) {
            return null;
        }
        return new WireDestination(Kind.of(buf.getByte(index)), WireStrings.at(buf, index + 1));
    }

    @Override
    public String toString() {
        return kind.name().toLowerCase() + "://" + name;
    }
}
