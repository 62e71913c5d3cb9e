package org.wharfmq.server.replication;

import org.wharfmq.server.security.AuditLog;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedTrustManager;
import java.net.Socket;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The trust manager of every replication connection ({@link MemberTls}): the JDK's check against the group's CA (the
 * chain, and on a call the host of the address called), unchanged, and a warning when it refuses a peer, naming the
 * peer, its certificate and why, so that an operator sees a member without the group's credentials (or with an
 * expired or misnamed certificate) knocking, on the members it knocks at. The refusal itself is the handshake's, every
 * time; the warnings are paced, at most one per {@link ReplicationConfiguration#REFUSAL_WARNING_EVERY}, counting the
 * refusals not written (a refused member tries again at every heartbeat, and a hostile one as often as it likes).
 * Called by the transport's threads (gRPC's event loops), any number at once: the pacing is a compare-and-set.
 *
 * <p>A member called must also be the member at the address called: its certificate's subject CN is its member id
 * ({@link #membersAt}: the group's members, and the member being added, at the address {@code define member} gives);
 * one that is not is refused in the handshake, with an audit line, and the refusal is kept for the command adding it
 * ({@link #refusedCall}).
 */
final class MemberCertificateCheck extends X509ExtendedTrustManager {

    private static final System.Logger LOG = System.getLogger(MemberCertificateCheck.class.getName());
    /** The most of a certificate's name a warning quotes: the peer chooses it. */
    static final int NAME_CHARS = 200;

    private final X509ExtendedTrustManager ca;
    private final Pacing warnings;
    private final Pacing identityRefusals;
    /** Which member is at an address: {@link #membersAt}; none until the member's log says. */
    private volatile Function<String, String> memberAt = address -> null;
    /**
     * The latest refusal of the member called at each address (host:port), until one called there is taken: what
     * {@code define member} answers when the member it adds shows another's certificate ({@link #refusedCall}). At
     * most one per address a member is expected at (the group's members and the one being added).
     */
    private final Map<String, String> refusedCalls = new ConcurrentHashMap<>();

    MemberCertificateCheck(X509ExtendedTrustManager ca, Duration warnEvery) {
        this.ca = ca;
        this.warnings = new Pacing(warnEvery);
        this.identityRefusals = new Pacing(warnEvery);
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
        checkCalled(chain, engine);
    }

    /**
     * Says which member is at an address ({@code host:port}, as the group's configuration names it), or null for
     * none: a member called there must show a certificate whose subject's CN is that member's id.
     */
    void membersAt(Function<String, String> lookup) {
        this.memberAt = lookup;
    }

    /**
     * The member called must be the one at the address called: its certificate's CN is its member id
     * ({@link MemberIdentityCheck} binds the other direction), so that a process at a member's address with another
     * member's key (or any other certificate of the group's CA) is refused in the handshake, and gets no entry.
     */
    private void checkCalled(X509Certificate[] chain, SSLEngine engine) throws CertificateException {
        if (engine.getPeerHost() == null) {
            return;
        }
        String address = engine.getPeerHost() + ":" + engine.getPeerPort();
        String expected = memberAt.apply(address);
        if (expected == null) {
            return;
        }
        String subject = chain[0].getSubjectX500Principal().getName();
        String named = MemberIdentityCheck.commonName(subject);
        if (expected.equals(named)) {
            refusedCalls.remove(address);
            return;
        }
        String refusal = "replication member at " + engine.getPeerHost() + ":" + engine.getPeerPort() + " called as "
                + "member '" + expected + "': its certificate '" + quoted(subject) + "' names "
                + (named == null ? "no member (its subject has no CN)" : "member '" + quoted(named) + "' (its CN)")
                + ": a member's certificate names its member id as its subject's CN. Give member '" + expected
                + "' a certificate of the group's CA with CN=" + expected + " (docs/resilience.md, \"How it works\"); "
                + "if the process at that address is no member, find who holds a key of the group's CA.";
        refusedCalls.put(address, refusal);
        long others = identityRefusals.turn();
        if (others >= 0) {
            AuditLog.peerRefused(refusal + Pacing.others(others, "refusals"));
        }
        throw new CertificateException(refusal);
    }

    /**
     * Why the member called at {@code address} (host:port) was refused last, since a member called there was taken or
     * {@link #forget} was; null when it was not.
     */
    String refusedCall(String address) {
        return refusedCalls.get(address);
    }

    /** Forgets the refusals of the member called at {@code address}: a check starting afresh. */
    void forget(String address) {
        refusedCalls.remove(address);
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
        long others = warnings.turn();
        if (others < 0) {
            return;
        }
        LOG.log(System.Logger.Level.WARNING, () -> "Replication refused " + who.get() + ": its certificate "
                + certificate(chain) + " is not one the group's CA (replication.tls.trustStore) issued for it ("
                + quoted(String.valueOf(e.getMessage())) + "). Only a member with a key and certificate from that CA, "
                + "naming its host, takes part; if this is one of the group's members, give it such a certificate "
                + "(docs/resilience.md, \"How it works\")."
                + Pacing.others(others, "refusals"));
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
    static String quoted(String text) {
        return quoted(text, NAME_CHARS);
    }

    /** {@code text} as a log line may quote it: control characters replaced, at most {@code max}. */
    static String quoted(String text, int max) {
        StringBuilder out = new StringBuilder(Math.min(text.length(), max));
        for (int i = 0; i < text.length() && i < max; i++) {
            char c = text.charAt(i);
            out.append(Character.isISOControl(c) ? '?' : c);
        }
        return text.length() > max ? out + "..." : out.toString();
    }
}
