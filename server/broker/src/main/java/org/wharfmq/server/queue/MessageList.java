package org.wharfmq.server.queue;

/**
 * The messages of one priority on a queue, in sequence order, linked through the messages themselves so that
 * removing one from the middle (a correlation-id hit, a selector match) is O(1) and allocates nothing.
 *
 * <p>New messages go to the tail. A message that comes back (rolled back, or never consumed) is put back at its
 * original sequence position, walking from whichever end is nearer. Guarded by the queue's lock.
 */
final class MessageList {

    QueuedMessage head;
    QueuedMessage tail;

    boolean isEmpty() {
        return head == null;
    }

    /** Inserts {@code m} at the position of its sequence number. */
    void insert(QueuedMessage m) {
        if (tail == null) {
            m.previous = null;
            m.next = null;
            head = m;
            tail = m;
        } else if (m.sequence > tail.sequence) {
            linkAfter(tail, m);
        } else if (m.sequence < head.sequence) {
            linkBefore(head, m);
        } else if (m.sequence - head.sequence < tail.sequence - m.sequence) {
            QueuedMessage x = head;
            while (x.sequence < m.sequence) {
                x = x.next;
            }
            linkBefore(x, m);
        } else {
            QueuedMessage x = tail;
            while (x.sequence > m.sequence) {
                x = x.previous;
            }
            linkAfter(x, m);
        }
    }

    void remove(QueuedMessage m) {
        QueuedMessage p = m.previous;
        QueuedMessage n = m.next;
        if (p == null) {
            head = n;
        } else {
            p.next = n;
        }
        if (n == null) {
            tail = p;
        } else {
            n.previous = p;
        }
        m.previous = null;
        m.next = null;
    }

    private void linkAfter(QueuedMessage x, QueuedMessage m) {
        QueuedMessage n = x.next;
        m.previous = x;
        m.next = n;
        x.next = m;
        if (n == null) {
            tail = m;
        } else {
            n.previous = m;
        }
    }

    private void linkBefore(QueuedMessage x, QueuedMessage m) {
        QueuedMessage p = x.previous;
        m.next = x;
        m.previous = p;
        x.previous = m;
        if (p == null) {
            head = m;
        } else {
            p.next = m;
        }
    }
}
