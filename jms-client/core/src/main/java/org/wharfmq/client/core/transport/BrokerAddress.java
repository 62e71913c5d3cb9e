package org.wharfmq.client.core.transport;

import java.util.Objects;

/**
 * Where a Wharf server listens: a TCP host and port (plain, or TLS for {@code ssl}), or the name of an in-VM server
 * in this JVM.
 *
 * @param scheme {@code tcp}, {@code ssl} or {@code vm}
 * @param host   the TCP host, or the in-VM server name for {@code vm}
 * @param port   the TCP port; -1 for {@code vm}
 */
public record BrokerAddress(String scheme, String host, int port) {
    /** Scheme of TCP addresses. */
    public static final String TCP = "tcp";
    /** Scheme of TLS addresses: TCP with TLS. */
    public static final String SSL = "ssl";
    /** Scheme of in-VM addresses. */
    public static final String VM = "vm";

    /** Checks the parts are consistent. */
    public BrokerAddress {
        Objects.requireNonNull(scheme, "scheme");
        Objects.requireNonNull(host, "host");
        if (!scheme.equals(TCP) && !scheme.equals(SSL) && !scheme.equals(VM)) {
            throw new IllegalArgumentException("unknown scheme " + scheme);
        }
    }

    /** A TCP address. */
    public static BrokerAddress tcp(String host, int port) {
        return new BrokerAddress(TCP, host, port);
    }

    /** A TCP address spoken to over TLS. */
    public static BrokerAddress ssl(String host, int port) {
        return new BrokerAddress(SSL, host, port);
    }

    /** The address of the in-VM server registered under {@code name}. */
    public static BrokerAddress vm(String name) {
        return new BrokerAddress(VM, name, -1);
    }

    /** True for an in-VM address. */
    public boolean isInVm() {
        return scheme.equals(VM);
    }

    /** True for a TLS address. */
    public boolean isTls() {
        return scheme.equals(SSL);
    }

    /** The address as a URL without options, e.g. {@code tcp://localhost:7414}, {@code ssl://mq1:7415} or {@code vm://wharf}. */
    @Override
    public String toString() {
        if (isInVm()) {
            return "vm://" + host;
        }
        return scheme + "://" + (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }
}
