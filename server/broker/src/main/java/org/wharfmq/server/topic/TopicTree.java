package org.wharfmq.server.topic;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * Subscriptions indexed by their topic filter, as a tree of levels: each node has a hash map of its exact child
 * levels plus, separately, its {@code +} and {@code #} children. Matching a published topic walks only the nodes
 * that can match it: at each level one hash lookup, the {@code +} child and the {@code #} child. So the cost of a
 * publish depends on the topic's depth and on the subscriptions that match, never on how many other subscriptions
 * exist (the "hashed subscription table" of the MQ publish/subscribe reports). A topic whose first level starts with
 * {@code $} ({@code $SYS/...}) is matched only by filters that name that level: a wildcard first level does not take
 * it in ({@link TopicNames#hiddenFromRootWildcards}). {@link #visits()} counts the nodes
 * and entries examined, so tests can prove it by counting rather than timing.
 *
 * <p>Thread-safe: publishes match concurrently under the read lock; subscribing and unsubscribing take the write
 * lock. Both hold it for in-memory work only.
 *
 * @param <T> what is stored per filter (a subscription)
 */
public final class TopicTree<T> {

    private static final class Node<T> {
        final HashMap<String, Node<T>> children = new HashMap<>(4);
        Node<T> oneLevel;
        Node<T> anyLevels;
        final ArrayList<T> entries = new ArrayList<>(1);

        boolean isEmpty() {
            return children.isEmpty() && oneLevel == null && anyLevels == null && entries.isEmpty();
        }
    }

    private final Node<T> root = new Node<>();
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private final LongAdder visits = new LongAdder();

    /** Adds {@code entry} under {@code filter} (checked with {@link TopicNames#checkFilter}). */
    public void add(String filter, T entry) {
        lock.writeLock().lock();
        try {
            Node<T> node = root;
            for (String level : TopicNames.levels(filter)) {
                node = child(node, level);
            }
            node.entries.add(entry);
        } finally {
            lock.writeLock().unlock();
        }
    }

    private static <T> Node<T> child(Node<T> node, String level) {
        if (level.equals(TopicNames.ONE_LEVEL)) {
            if (node.oneLevel == null) {
                node.oneLevel = new Node<>();
            }
            return node.oneLevel;
        }
        if (level.equals(TopicNames.ANY_LEVELS)) {
            if (node.anyLevels == null) {
                node.anyLevels = new Node<>();
            }
            return node.anyLevels;
        }
        return node.children.computeIfAbsent(level, l -> new Node<>());
    }

    /** Removes {@code entry} from under {@code filter}, and the nodes left empty; returns whether it was there. */
    public boolean remove(String filter, T entry) {
        lock.writeLock().lock();
        try {
            return remove(root, TopicNames.levels(filter), 0, entry);
        } finally {
            lock.writeLock().unlock();
        }
    }

    private static <T> boolean remove(Node<T> node, String[] levels, int i, T entry) {
        if (i == levels.length) {
            return node.entries.remove(entry);
        }
        String level = levels[i];
        Node<T> next = level.equals(TopicNames.ONE_LEVEL) ? node.oneLevel
                : level.equals(TopicNames.ANY_LEVELS) ? node.anyLevels : node.children.get(level);
        if (next == null || !remove(next, levels, i + 1, entry)) {
            return false;
        }
        if (next.isEmpty()) {
            if (next == node.oneLevel) {
                node.oneLevel = null;
            } else if (next == node.anyLevels) {
                node.anyLevels = null;
            } else {
                node.children.remove(level);
            }
        }
        return true;
    }

    /** Adds to {@code out} every entry whose filter matches {@code topic} (a topic without wildcards). */
    public void match(String topic, List<T> out) {
        String[] levels = TopicNames.levels(topic);
        lock.readLock().lock();
        try {
            visits.add(match(root, levels, 0, out));
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Returns the nodes and entries visited. */
    private static <T> long match(Node<T> node, String[] levels, int i, List<T> out) {
        long visited = 1;
        boolean wildcards = i > 0 || levels.length == 0 || !TopicNames.hiddenFromRootWildcards(levels[0]);
        if (node.anyLevels != null && wildcards) { // '#' matches the rest of the topic, however many levels (also none)
            visited += 1 + node.anyLevels.entries.size();
            out.addAll(node.anyLevels.entries);
        }
        if (i == levels.length) {
            visited += node.entries.size();
            out.addAll(node.entries);
            return visited;
        }
        Node<T> exact = node.children.get(levels[i]);
        if (exact != null) {
            visited += match(exact, levels, i + 1, out);
        }
        if (node.oneLevel != null && wildcards) {
            visited += match(node.oneLevel, levels, i + 1, out);
        }
        return visited;
    }

    /** Nodes and entries examined by all matches so far. */
    public long visits() {
        return visits.sum();
    }
}
