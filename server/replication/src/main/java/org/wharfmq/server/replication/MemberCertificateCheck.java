package org.wharfmq.server.replication;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedTrustManager;
import java.net.Socket;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The trust manager of every replication connection ({@link MemberTls}): the JDK's check against the group's CA (the
 * chain, and on a call the host of the address called), unchanged, and a warning when it refuses a peer, naming the
 * peer, its certificate and why, so that an operator sees a member without the group's credentials (or with an
 * expired or misnamed certificate) knocking, on the members it knocks at. The refusal itself is the handshake's, every
 * time; the warnings are paced, at most one per {@link ReplicationConfiguration#REFUSAL_WARNING_EVERY}, counting the
 * refusals not written (a refused member tries again at every heartbeat, and a hostile one as often as it likes).
 * Called by the transport's threads (gRPC's event loops), any number at once: the pacing is a compare-and-set.
 */
final class MemberCertificateCheck extends X509ExtendedTrustManager {

    private static final System.Logger LOG = System.getLogger(MemberCertificateCheck.class.getName());
    /** The most of a certificate's name a warning quotes: the peer chooses it. */
    private static final int NAME_CHARS = 200;

    private final X509ExtendedTrustManager ca;
    private final long warnEveryNanos;
    /** When the next refusal may be written ({@link System#nanoTime}); written by whichever thread writes one. */
    private final AtomicLong nextWarning = new AtomicLong(System.nanoTime());
    /** Refusals not written since the last warning. */
    private final AtomicLong unwritten = new AtomicLong();

    MemberCertificateCheck(X509ExtendedTrustManager ca, Duration warnEvery) {
        this.ca = ca;
        this.warnEveryNanos = warnEvery.toNanos();
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        check(() -> ca.checkClientTrusted(chain, authType), () -> "a member calling in", chain);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        check(() -> ca.checkClientTrusted(chain, authType, socket),
                () -> "a member calling in from " + socket.getRemoteSocketAddress(), chain);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        check(() -> ca.checkClientTrusted(chain, authType, engine),
                () -> "a member calling in" + peer(" from ", engine), chain);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        check(() -> ca.checkServerTrusted(chain, authType), () -> "the member it called", chain);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        check(() -> ca.checkServerTrusted(chain, authType, socket),
                () -> "the member it called at " + socket.getRemoteSocketAddress(), chain);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        check(() -> ca.checkServerTrusted(chain, authType, engine),
                () -> "the member it called" + peer(" at ", engine), chain);
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
        return ca.getAcceptedIssuers();
    }

    /** One of the CA's checks, which throws when it refuses. */
    @FunctionalInterface
    private interface CaCheck {
        void run() throws CertificateException;
    }

    /** Runs {@code check}; when it refuses, writes the refusal of {@code who} if its turn has come, and rethrows. */
    private void check(CaCheck check, Supplier<String> who, X509Certificate[] chain) throws CertificateException {
        try {
            check.run();
        } catch (CertificateException e) {
            refused(who, chain, e);
            throw e;
        }
    }

    private void refused(Supplier<String> who, X509Certificate[] chain, CertificateException e) {
        long now = System.nanoTime();
        long next = nextWarning.get();
        if (now - next < 0 || !nextWarning.compareAndSet(next, now + warnEveryNanos)) {
            unwritten.incrementAndGet();
            return;
        }
        long others = unwritten.getAndSet(0);
        LOG.log(System.Logger.Level.WARNING, () -> "Replication refused " + who.get() + ": its certificate "
                + certificate(chain) + " is not one the group's CA (replication.tls.trustStore) issued for it ("
                + quoted(String.valueOf(e.getMessage())) + "). Only a member with a key and certificate from that CA, "
                + "naming its host, takes part; if this is one of the group's members, give it such a certificate "
                + "(docs/resilience.md, \"How it works\")."
                + (others == 0 ? "" : " " + others + " more refusals since the last such warning."));
    }

    private static String peer(String preposition, SSLEngine engine) {
        return engine.getPeerHost() == null ? "" : preposition + engine.getPeerHost() + ":" + engine.getPeerPort();
    }

    private static String certificate(X509Certificate[] chain) {
        if (chain == null || chain.length == 0) {
            return "(none)";
        }
        return "'" + quoted(chain[0].getSubjectX500Principal().getName()) + "' issued by '"
                + quoted(chain[0].getIssuerX500Principal().getName()) + "'";
    }

    /** {@code text} as a log line may quote it: control characters replaced, at most {@link #NAME_CHARS}. */
    private static String quoted(String text) {
        StringBuilder out = new StringBuilder(Math.min(text.length(), NAME_CHARS));
        for (int i = 0; i < text.length() && i < NAME_CHARS; i++) {
            char c = text.charAt(i);
            out.append(Character.isISOControl(c) ? '?' : c);
        }
        return text.length() > NAME_CHARS ? out + "..." : out.toString();
    }
}
