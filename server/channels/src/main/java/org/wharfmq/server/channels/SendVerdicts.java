package org.wharfmq.server.channels;

import org.wharfmq.server.security.AccessControl;
import org.wharfmq.server.security.Identity;
import org.wharfmq.server.security.Permission;

import java.util.HashMap;
import java.util.Map;

/**
 * Whether a receiver channel's partner user may send to a destination, as the queue manager's rules answer it: asked
 * once per destination, not per message (a pattern's match splits the name), until the rules change
 * ({@link AccessControl#generation}) or more than {@link ChannelConfiguration#MAX_SEND_VERDICTS} destinations have
 * been asked, when they are all asked again. Owned by the partner connection's event loop, which routes the channel's
 * messages; not thread-safe.
 */
final class SendVerdicts {

    private final AccessControl control;
    private final Identity user;
    private final Map<String, Boolean> verdicts = new HashMap<>();
    /** The rules' generation the verdicts were given under. */
    private long generation;

    SendVerdicts(AccessControl control, Identity user) {
        this.control = control;
        this.user = user;
        this.generation = control.generation();
    }

    /** Whether the partner's user has the {@link Permission#SEND} permission on {@code destination}. */
    boolean allows(String destination) {
        long now = control.generation();
        if (now != generation) {
            verdicts.clear();
            generation = now;
        }
        Boolean verdict = verdicts.get(destination);
        if (verdict == null) {
            verdict = control.allows(user, Permission.SEND, destination);
            if (verdicts.size() >= ChannelConfiguration.MAX_SEND_VERDICTS) {
                verdicts.clear();
            }
            verdicts.put(destination, verdict);
        }
        return verdict;
    }
}
