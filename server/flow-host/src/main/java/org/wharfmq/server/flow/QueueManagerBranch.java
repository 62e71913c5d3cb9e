package org.wharfmq.server.flow;

import org.jboss.tm.LastResource;

import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.concurrent.locks.LockSupport;
import java.util.function.UnaryOperator;

/**
 * A coordinated reader's XA session resource as the flow host enlists it: Narayana prepares and commits it after
 * the databases' ({@link LastResource}: ordered last), so that an output message is never visible before the
 * database work of its invocation has committed (a consumer of it finds the rows).
 *
 * <p>With crash points for tests, off unless the server's JVM runs with the system property {@value #PROPERTY}:
 * {@code beforeCommit} holds the commit of a prepared transaction (every resource prepared, the transaction manager's
 * decision logged, the databases committed), {@code beforePrepare} its prepare (the databases prepared, no decision
 * logged); either logs {@value #HOLDING} and waits there, so that a test can kill the server there, or a database:
 * for good, or, with the system property {@value #RELEASE} naming a file, until that file exists.
 */
final class QueueManagerBranch extends ForwardingXAResource implements LastResource {

    static final String PROPERTY = "wharf.test.xa.hold";
    static final String HOLDING = "holding the queue manager's XA branch";
    static final String RELEASE = "wharf.test.xa.release";

    private static final System.Logger LOG = System.getLogger(QueueManagerBranch.class.getName());

    /** The crash point: "beforePrepare", "beforeCommit", or null. */
    private final String hold;
    /** The file whose creation ends a hold, or null: held for good. */
    private final Path release;

    private QueueManagerBranch(XAResource resource, String hold, Path release) {
        super(resource);
        this.hold = hold;
        this.release = release;
    }

    /** How the readers enlist their session's resource: ordered last, held where the properties say. */
    static UnaryOperator<XAResource> enlisting() {
        String hold = System.getProperty(PROPERTY);
        String release = System.getProperty(RELEASE);
        return resource -> new QueueManagerBranch(resource, hold, release == null ? null : Path.of(release));
    }

    private void holdAt(String point, Xid xid) {
        if (!point.equals(hold)) {
            return;
        }
        LOG.log(System.Logger.Level.WARNING, HOLDING + " " + point + " (" + PROPERTY + "): " + xid);
        if (release == null) {
            while (true) {
                LockSupport.park(this);
            }
        }
        try (WatchService watch = release.getFileSystem().newWatchService()) {
            release.getParent().register(watch, StandardWatchEventKinds.ENTRY_CREATE);
            while (!Files.exists(release)) {
                WatchKey key = watch.take();
                key.pollEvents();
                key.reset();
            }
        } catch (IOException | InterruptedException e) {
            throw new IllegalStateException("Cannot wait for " + release + " (" + RELEASE + ")", e);
        }
        LOG.log(System.Logger.Level.WARNING, "released the queue manager's XA branch " + point + " (" + RELEASE + "): "
                + xid);
    }

    @Override
    public void commit(Xid xid, boolean onePhase) throws XAException {
        if (!onePhase) {
            holdAt("beforeCommit", xid);
        }
        resource.commit(xid, onePhase);
    }

    @Override
    public boolean isSameRM(XAResource other) throws XAException {
        return other == this;
    }

    @Override
    public int prepare(Xid xid) throws XAException {
        holdAt("beforePrepare", xid);
        return resource.prepare(xid);
    }

}
