package org.wharfmq.server.transport;

import io.netty.channel.Channel;
import io.netty.handler.ssl.SslHandler;

import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.Optional;

/**
 * What the TLS layer proved about the client of a connection, for the handshake (the EXTERNAL mechanism maps the
 * certificate's subject to a user) and for log lines. A frame arrives only after the TLS handshake has finished,
 * so from HELLO on the answer is final.
 */
public final class TlsPeer {

    private TlsPeer() {
    }

    /** Whether the connection came through a TLS listener (and so is encrypted). */
    public static boolean isTls(Channel channel) {
        return channel.pipeline().get(SslHandler.class) != null;
    }

    /** Whether the connection came through a TLS listener and its TLS handshake has not completed yet. */
    static boolean isHandshaking(Channel channel) {
        SslHandler ssl = channel.pipeline().get(SslHandler.class);
        return ssl != null && !ssl.handshakeFuture().isSuccess();
    }

    /**
     * The client's certificate, verified against the listener's trusted CAs: present only on a TLS connection whose
     * client sent a certificate (tls.clientAuth optional or required) that the server trusts.
     */
    public static Optional<X509Certificate> certificate(Channel channel) {
        SslHandler ssl = channel.pipeline().get(SslHandler.class);
        if (ssl == null) {
            return Optional.empty();
        }
        SSLSession session = ssl.engine().getSession();
        try {
            Certificate[] chain = session.getPeerCertificates();
            return chain.length > 0 && chain[0] instanceof X509Certificate x509 ? Optional.of(x509) : Optional.empty();
        } catch (SSLPeerUnverifiedException noCertificate) {
            return Optional.empty();
        }
    }

    /** The client certificate's subject as RFC 2253 writes it ({@code CN=billing,O=Example}), if it has one. */
    public static Optional<String> subject(Channel channel) {
        return certificate(channel).map(c -> c.getSubjectX500Principal().getName());
    }
}
