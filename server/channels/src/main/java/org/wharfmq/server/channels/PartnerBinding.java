package org.wharfmq.server.channels;

import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.server.ChannelAcceptor;
import org.wharfmq.server.WharfException;
import org.wharfmq.server.config.ConfigurationException;
import org.wharfmq.server.security.Identity;

import javax.security.auth.x500.X500Principal;
import java.util.Optional;

/**
 * Who may open a receiver channel: the partner its definition binds it to. A partner that opens a receiver speaks for
 * the queue manager the receiver is for: its sequence numbers and batch ids (a batch the true partner has in doubt is
 * resolved against them: one taken as committed is removed from its transmission queue), its reset, its running
 * instance, its publish/subscribe sets and forwarded publications. So a receiver may be bound to the partner's
 * identity, each binding checked at CHANNEL_OPEN, and a partner that does not match is refused naming the channel, what
 * it is bound to, what came, and the fix:
 * <ul>
 *   <li>{@code partnerUser}: the user the partner logged in as;</li>
 *   <li>{@code partnerCertificate}: the subject of the TLS client certificate the partner connected with (verified by
 *   the listener against its trusted CAs), compared as an X.500 name; so a stolen password alone does not open it;</li>
 *   <li>{@code partnerQueueManager}: the queue manager the partner says it is (a claim: it binds the name the
 *   receiver's sets and publications are taken in, and holds only as far as the identity bindings do).</li>
 * </ul>
 * A receiver bound to neither identity may be opened by any user with the {@code channel} permission, in the bound
 * queue manager's name: {@link #unboundWarning} says so, once per receiver; the sets and publications a user sends
 * over it are not taken ({@link ReceiverPuts.Partner#notSpeakingFor}). Stateless.
 */
final class PartnerBinding {

    private PartnerBinding() {
    }

    /** Whether {@code d} is bound to a partner identity: a user, a certificate, or both. */
    static boolean boundToIdentity(ChannelDefinition d) {
        return d.partnerUser() != null || d.partnerCertificate() != null;
    }

    /**
     * Checks that a receiver's {@code partnerCertificate} (null: none) is an X.500 name.
     *
     * @throws ConfigurationException naming the value and the form it takes
     */
    static void checkCertificate(String subject) {
        if (subject == null) {
            return;
        }
        try {
            new X500Principal(subject);
        } catch (IllegalArgumentException e) {
            throw new ConfigurationException("partnerCertificate '" + subject + "' is not a certificate subject (an"
                    + " X.500 name as RFC 2253 writes it, CN=qm1,O=Example): " + e.getMessage());
        }
    }

    /**
     * Refuses {@code peer}'s open of receiver {@code d} as queue manager {@code claimed} unless it is the partner
     * {@code d} is bound to.
     *
     * @param queueManager this queue manager's name
     * @throws WharfException NOT_AUTHORISED naming the channel, what it is bound to, what came, and the fix
     */
    static void check(ChannelDefinition d, ChannelAcceptor.Peer peer, String claimed, String queueManager) {
        Identity who = peer.identity();
        String unfit = unfitName(claimed);
        if (unfit != null) { // refused before it is written anywhere: a log line or the audit log
            throw new WharfException(ErrorCode.NOT_AUTHORISED, "Receiver channel '" + d.name() + "' of queue manager "
                    + queueManager + " refused the queue manager name " + who.describe() + " from "
                    + peer.remoteAddress() + " opened it as: " + unfit + ". Give the sending queue manager a name of"
                    + " printable characters without '/', at most " + ChannelConfiguration.MAX_DESTINATION_CHARS
                    + " (name: in its config/wharf.yaml).");
        }
        String came = who.describe() + " from " + peer.remoteAddress() + ", opening it as queue manager " + claimed;
        String channel = "Receiver channel '" + d.name() + "' of queue manager " + queueManager;
        String alter = "'wharf admin alter channel " + d.name();
        if (d.partnerUser() != null && !d.partnerUser().equals(who.user())) {
            throw new WharfException(ErrorCode.NOT_AUTHORISED, channel + " is bound to partner user '"
                    + d.partnerUser() + "', not " + came + ". Log the sender in as user '" + d.partnerUser()
                    + "' (its user and password, or a certificate mapped to that user); if the partner's user has"
                    + " changed, bind the receiver to it (" + alter + " --partner-user USER' on " + queueManager
                    + ").");
        }
        if (d.partnerCertificate() != null) {
            X500Principal expected = new X500Principal(d.partnerCertificate());
            Optional<X500Principal> subject = peer.certificateSubject();
            if (subject.isEmpty() || !subject.get().equals(expected)) {
                String presented = subject.map(s -> "the client certificate '" + s.getName() + "'")
                        .orElse(peer.tls() ? "no client certificate" : "no client certificate (plain TCP)");
                throw new WharfException(ErrorCode.NOT_AUTHORISED, channel + " is bound to the partner certificate '"
                        + expected.getName() + "', but " + came + ", presented " + presented + ". Connect the sender"
                        + " over TLS (ssl://) with the key and certificate of '" + expected.getName() + "' (its"
                        + " tls.keyStore), to a listener that asks for client certificates (tls.clientAuth optional"
                        + " or required); if the partner's certificate has changed, bind the receiver to its subject ("
                        + alter + " --partner-certificate \"SUBJECT\"' on " + queueManager + ").");
            }
        }
        if (d.partnerQueueManager() != null && !d.partnerQueueManager().equals(claimed)) {
            throw new WharfException(ErrorCode.NOT_AUTHORISED, channel + " is bound to partner queue manager "
                    + d.partnerQueueManager() + ", not " + came + ". Open the channel defined for queue manager "
                    + claimed + ", or bind this one to it (" + alter + " --partner-qmgr " + claimed + "' on "
                    + queueManager + ").");
        }
    }

    /**
     * Why {@code name}, a partner's claim, is no queue manager's name (empty, longer than
     * {@link ChannelConfiguration#MAX_DESTINATION_CHARS}, a '/', a control character), or null.
     */
    private static String unfitName(String name) {
        if (name.isEmpty()) {
            return "it is empty";
        }
        if (name.length() > ChannelConfiguration.MAX_DESTINATION_CHARS) {
            return "it is " + name.length() + " characters long, more than the "
                    + ChannelConfiguration.MAX_DESTINATION_CHARS + " a receiver takes";
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c == '/' || Character.isISOControl(c)) {
                return "it holds " + (c == '/' ? "a '/'" : String.format("the control character U+%04X", (int) c))
                        + " at position " + (i + 1) + " of " + name.length();
            }
        }
        return null;
    }

    /**
     * What the log says, once per receiver, when a partner opens receiver {@code d}, bound to no partner identity,
     * as queue manager {@code claimed}: who opened it, what any user with the channel permission could do with it,
     * and the binding that fixes it.
     */
    static String unboundWarning(ChannelDefinition d, ChannelAcceptor.Peer peer, String claimed,
                                 String queueManager) {
        Identity who = peer.identity();
        String name = d.partnerQueueManager() != null ? "queue manager " + d.partnerQueueManager() + "'s name"
                : "any queue manager's name";
        String fix = who.anonymous()
                ? "give the partner a user of its own in " + queueManager + "'s security file (docs/security.md) and"
                + " bind the receiver to it ('wharf admin alter channel " + d.name() + " --partner-user USER'), and"
                : "bind the receiver to that user if it is the partner's ('wharf admin alter channel " + d.name()
                + " --partner-user " + who.user() + "', or partnerUser: " + who.user() + " in config/wharf.yaml),"
                + " and";
        return "Receiver channel '" + d.name() + "' of queue manager " + queueManager + " is bound to no partner"
                + " identity (partnerUser, partnerCertificate): " + who.describe() + " from " + peer.remoteAddress()
                + " opened it as queue manager " + claimed + ", and any user with the 'channel' permission may open"
                + " it in " + name + ": take its sequence numbers and the outcome of its batches in doubt (a batch"
                + " the true partner has in doubt would be taken as committed and removed from its transmission"
                + " queue) and hold the channel so the true partner is refused (a publish/subscribe set or publication"
                + " from a user is not taken over it until it is bound). To close it, " + fix + " over TLS bind it to the partner's client"
                + " certificate too (--partner-certificate \"SUBJECT\"); docs/distributed.md, \"Partner identity\"."
                + " Logged once per receiver.";
    }
}
