package org.wharfmq.server.channels;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * This queue manager's ancestors in its publish/subscribe hierarchy, and whether it refuses its parent because the
 * relation would close a loop (IBM MQ refuses a parent that would). A hierarchy is a tree, but each member names only
 * its own parent, so a ring of three or more (QM1's parent QM3, QM2's QM1, QM3's QM2) is only seen by passing the
 * ancestors down: each member tells its partners its ancestors ({@link HierarchyMessages#ANCESTORS}, in the proxy
 * subscription sets; only a member's parent's are read), and a member that finds itself among its parent's ancestors is on a loop. Of the loop's
 * members only the one whose name sorts first refuses its parent, whichever learns of the loop first, so exactly one
 * relation of the loop is cut and the rest stays a tree. A member that refuses tells its children it has no
 * ancestors, as a root, and exchanges no subscriptions or publications with its parent; it takes its parent back
 * once its parent's ancestors no longer hold it (the loop was mended).
 *
 * <p>Written by the hierarchy's {@code wharf-pubsub} thread alone ({@link #learn}); read by any thread (the
 * advertiser, the status) through one volatile snapshot.
 */
final class HierarchyAncestry {
    private static final System.Logger LOG = System.getLogger(HierarchyAncestry.class.getName());

    /** What this member knows: its ancestors to tell its children, and why it refuses its parent (null: it does not). */
    private record Known(List<String> ancestors, String refusal) {
    }

    private final String queueManager;
    private final String parent;
    private volatile Known known;

    /** {@code parent}: this queue manager's parent, or null. */
    HierarchyAncestry(String queueManager, String parent) {
        this.queueManager = queueManager;
        this.parent = parent;
        this.known = new Known(parent == null ? List.of() : List.of(parent), null);
    }

    /** The ancestors this queue manager tells its children: its parent first, none when it refuses its parent. */
    List<String> ancestors() {
        return known.ancestors();
    }

    /** Why this queue manager refuses its parent, and the fix; null when it does not. */
    String refusal() {
        return known.refusal();
    }

    /** Whether {@code partner} is this queue manager's parent. */
    boolean isParent(String partner) {
        return partner.equals(parent);
    }

    /** Whether this queue manager refuses its parent {@code partner} (no exchange with it). */
    boolean refuses(String partner) {
        return partner.equals(parent) && known.refusal() != null;
    }

    /**
     * Takes the ancestors the parent told in its latest set (its parent first); true when what this queue manager
     * tells its children, or its refusal, changed. The {@code wharf-pubsub} thread only.
     */
    boolean learn(List<String> parentAncestors) {
        assert Thread.currentThread().getName().equals("wharf-pubsub") : Thread.currentThread().getName();
        int self = parentAncestors.indexOf(queueManager);
        List<String> mine = new ArrayList<>();
        mine.add(parent);
        mine.addAll(self < 0 ? parentAncestors : parentAncestors.subList(0, self));
        if (mine.size() > HierarchyMessages.MAX_ANCESTORS) {
            mine = mine.subList(0, HierarchyMessages.MAX_ANCESTORS);
        }
        String refusal = null;
        if (self >= 0) {
            List<String> loop = new ArrayList<>(mine);
            loop.add(queueManager); // the parent, down to this queue manager
            if (queueManager.equals(Collections.min(loop))) {
                refusal = refusal(loop);
                mine = List.of();
            }
        }
        Known before = known;
        Known now = new Known(List.copyOf(mine), refusal);
        if (now.equals(before)) {
            return false;
        }
        known = now;
        if (refusal != null && before.refusal() == null) {
            LOG.log(System.Logger.Level.ERROR, "Publish/subscribe hierarchy of queue manager " + queueManager
                    + " refused its parent: " + refusal);
        } else if (refusal == null && before.refusal() != null) {
            LOG.log(System.Logger.Level.INFO, "Publish/subscribe hierarchy of queue manager " + queueManager
                    + " takes its parent " + parent + " back: it is no longer below " + queueManager);
        }
        return true;
    }

    /** Why the relation to the parent is refused: the loop {@code loop} (the parent down to this queue manager). */
    private String refusal(List<String> loop) {
        return queueManager + " names " + parent + " as its parent, but " + parent + " is below " + queueManager
                + " (" + String.join(" -> ", loop) + "), which would make a loop in which each publication arrives"
                + " more than once: remove one parent (hierarchy: parent: in the config/wharf.yaml of one of "
                + loop + ") so that the hierarchy is a tree. Until then " + queueManager + " exchanges no"
                + " subscriptions or publications with " + parent;
    }
}
