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

    /** Reads a nullable destination. */
    public static WireDestination read(ByteBuf in) {
        return read(in, (WireDestination) null);
    }

    /**
     * Reads a nullable destination, returning {@code recent} itself (no object made, nothing decoded) when the bytes
     * name the same one: a consumer's messages mostly come from one destination. Checked as {@link #read} checks it.
     *
     * @param recent the destination this reader read last, or null
     */
    public static WireDestination read(ByteBuf in, WireDestination recent) {
        Kind kind = readKind(in);
        if (kind == null) {
            return null;
        }
        int length = nameLength(in, kind);
        if (recent != null && recent.kind == kind && RecentStrings.sameAscii(in, in.readerIndex(), length, recent.name)) {
            in.skipBytes(length);
            return recent;
        }
        String name = WireStrings.at(in, in.readerIndex(), length);
        in.skipBytes(length);
        return new WireDestination(kind, name);
    }

    /**
     * Reads a nullable destination, returning the one of {@code recent} it names (no object made, nothing decoded),
     * else the one read, which then takes {@code recent}'s first place (the others move down one, the last leaves): a
     * connection's messages mostly go to a few destinations, and a destination found this way also keeps its name's
     * hash for the look-ups that follow. Checked as {@link #read} checks it.
     *
     * @param recent the destinations this reader read last, most recent first, null past the last; the reader's alone
     */
    public static WireDestination read(ByteBuf in, WireDestination[] recent) {
        Kind kind = readKind(in);
        if (kind == null) {
            return null;
        }
        int length = nameLength(in, kind);
        for (WireDestination r : recent) {
            if (r == null) {
                break;
            }
            if (r.kind == kind && RecentStrings.sameAscii(in, in.readerIndex(), length, r.name)) {
                in.skipBytes(length);
                return r;
            }
        }
        String name = WireStrings.at(in, in.readerIndex(), length);
        in.skipBytes(length);
        WireDestination read = new WireDestination(kind, name);
        System.arraycopy(recent, 0, recent, 1, recent.length - 1);
        recent[0] = read;
        return read;
    }

    /** Skips a nullable destination without creating objects, checked as {@link #read} checks it. */
    public static void skip(ByteBuf in) {
        Kind kind = readKind(in);
        if (kind != null) {
            in.skipBytes(nameLength(in, kind));
        }
    }

    /** The kind byte: null for none. */
    private static Kind readKind(ByteBuf in) {
        if (!in.isReadable()) {
            throw new MalformedFrameException("a destination is truncated: no byte is left for its kind");
        }
        byte code = in.readByte();
        return code == 0 ? null : Kind.of(code);
    }

    /** The length of the name of a destination of {@code kind}, which is not null and fits. */
    private static int nameLength(ByteBuf in, Kind kind) {
        if (in.readableBytes() < 4) {
            throw new MalformedFrameException("a destination of kind " + kind + " is truncated: its name does not fit");
        }
        int length = WireStrings.checkLength(in.readInt(), in.readableBytes());
        if (length == -1) {
            throw new MalformedFrameException("destination of kind " + kind + " has no name");
        }
        return length;
    }

    @Override
    public String toString() {
        return kind.name().toLowerCase() + "://" + name;
    }
}
