package org.wharfmq.protocol;

/** Constants that identify the protocol on the wire; checked once, in the HELLO handshake. */
public final class ProtocolVersion {
    /** First four bytes of a HELLO frame payload: ASCII "WHRF". Lets the server reject a stray HTTP or TLS client with a clear error. */
    public static final int MAGIC = 0x57485246;
    /**
     * The protocol version this build speaks: 2, the SASL-style handshake (version 1 sent a password in clear). A
     * server answers any other version with {@code UNSUPPORTED_VERSION}.
     */
    public static final short CURRENT = 2;
    /** Default TCP port of the Wharf listener. */
    public static final int DEFAULT_PORT = 7414;
    /** Default TCP port of the Wharf TLS listener ({@code ssl://host} without a port). */
    public static final int DEFAULT_TLS_PORT = 7415;

    private ProtocolVersion() {
    }
}
