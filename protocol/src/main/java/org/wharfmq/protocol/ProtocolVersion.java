package org.wharfmq.protocol;

/** Constants that identify the protocol on the wire; checked once, in the HELLO handshake. */
public final class ProtocolVersion {
    /** First four bytes of a HELLO frame payload: ASCII "WHRF". Lets the server reject a stray HTTP or TLS client with a clear error. */
    public static final int MAGIC = 0x57485246;
    /**
     * The newest protocol version this build speaks, the one its client asks for: 3, consumer windows in bytes as well
     * as messages ({@link #CONSUMER_WINDOW_BYTES}). A server answers a version outside {@link #OLDEST} to this with
     * {@code UNSUPPORTED_VERSION}; a client so refused connects again with {@link #OLDEST}.
     */
    public static final short CURRENT = 3;
    /**
     * The oldest protocol version this build speaks: 2, the SASL-style handshake (version 1 sent a password in clear).
     * A connection of version 2 has the same frames as version 3, without their optional trailing fields.
     */
    public static final short OLDEST = 2;
    /**
     * The version that brought consumer windows in bytes: CREATE_CONSUMER's trailing {@code windowBytes} and CREDIT's
     * trailing {@code settledBytes}, which a client writes only on a connection of this version or later (a server
     * before it refuses trailing bytes).
     */
    public static final short CONSUMER_WINDOW_BYTES = 3;
    /** Default TCP port of the Wharf listener. */
    public static final int DEFAULT_PORT = 7414;
    /** Default TCP port of the Wharf TLS listener ({@code ssl://host} without a port). */
    public static final int DEFAULT_TLS_PORT = 7415;

    /** Whether this build speaks protocol {@code version}: {@link #OLDEST} to {@link #CURRENT}. */
    public static boolean speaks(short version) {
        return version >= OLDEST && version <= CURRENT;
    }

    private ProtocolVersion() {
    }
}
