package org.wharfmq.server.replication;

import org.apache.ratis.protocol.exceptions.ReconfigurationInProgressException;
import org.apache.ratis.protocol.exceptions.ReconfigurationTimeoutException;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

/**
 * Adding and removing a member of a running group ({@code wharf admin define member} and {@code delete member}), on the active member:
 * each change is checked here, then made through the log ({@link ReplicatedLog#setMembers}, Ratis's configuration
 * change, which first brings a new member up to date) and answered once a majority of the old and of the new members
 * has committed it. The new members are then in every member's Raft log, which is where a member reads them when it
 * starts again (docs/resilience.md, "Adding, removing and replacing a member").
 *
 * <p>A new member is asked for its settings first ({@link #checkNew}): that call, and every call of the change to its
 * address, must find a certificate naming it (its CN is its id, {@link MemberCertificateCheck}), else the change is
 * refused naming the certificate; and its settings must be the group's.
 *
 * <p>Threads: admin command threads; {@link #underWay} lets one change run at a time (Ratis refuses a second one
 * anyway, less clearly).
 *
 * <p>A new member that has not answered yet (started a moment ago) makes Ratis give up the change after three election
 * timeouts; the change is then tried again until {@code timeout} is spent, so an operator who starts the member and
 * adds it at once is not refused for being quick.
 */
final class MemberChanges {

    private static final System.Logger LOG = System.getLogger(MemberChanges.class.getName());
    /** The pause before asking again while Ratis still ends an earlier attempt. */
    private static final long RETRY_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(200);
    /** The pause before asking a member being added again, when it did not answer (not started yet). */
    private static final long ASK_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    private final ReplicatedLog log;
    private final String group;
    /** A replica heard from within this long answers: Raft's own measure (a leader steps down past it). */
    private final Duration answering;
    private final Duration timeout;
    /** The change under way (to say so to a second one); null when none. Guarded by this. */
    private String underWay;

    MemberChanges(ReplicatedLog log, String group, Duration answering, Duration timeout) {
        this.log = log;
        this.group = group;
        this.answering = answering;
        this.timeout = timeout;
    }

    /**
     * Adds member {@code id} at {@code address} (its replication listener, host:port): it must run already, started
     * with the new member list, so that the active member can bring it up to date before it counts. First it is asked
     * for its settings ({@link #checkNew}), which binds it to {@code id}: the member called at {@code address} must
     * show a certificate naming {@code id}, from this read on through the change (Ratis's staging).
     */
    String add(String id, String address) {
        int port = Member.port(address == null ? "" : address);
        if (port < 0) {
            throw new IllegalArgumentException("Member " + id + "'s address '" + address + "' is not host:port: give "
                    + "its replication listener's address (--address host:port).");
        }
        Member.requireValid(id, Member.host(address), port);
        Map<String, String> members = log.members();
        if (members.containsKey(id)) {
            throw new IllegalArgumentException("Replication group '" + group + "' has a member '" + id
                    + "' already (at " + members.get(id) + "): choose another id, or remove it first.");
        }
        members.forEach((other, at) -> {
            if (at.equals(address)) {
                throw new IllegalArgumentException("Member " + other + " of replication group '" + group
                        + "' listens on " + address + " already: give the new member its own host:port.");
            }
        });
        Map<String, String> wanted = new TreeMap<>(members);
        wanted.put(id, address);
        String fix = "Start member " + id + " first (wharf server --replica " + id + ", its replication.members "
                + "listing " + wanted.keySet() + "), check that it reaches the others, then define it again.";
        return change("add member " + id, wanted, deadline -> checkNew(id, address, wanted, deadline, fix),
                () -> refusedCall(id, address), "Member " + id + " (" + address + ") joined replication group '"
                + group + "': its members are " + wanted.keySet() + ". Make replication.members the same list in "
                + "every member's configuration file.", fix);
    }

    /**
     * Removes member {@code id}, stopped first (docs/resilience.md; the change works on a running one too); refused
     * for the active member, below {@link Membership#MIN_MEMBERS}, and when the members left that answer would not be
     * a majority of them.
     */
    String remove(String id) {
        Map<String, String> members = log.members();
        if (!members.containsKey(id)) {
            throw new IllegalArgumentException("Replication group '" + group + "' has no member '" + id + "'; its "
                    + "members are " + members.keySet() + ".");
        }
        if (id.equals(log.id())) {
            throw new IllegalArgumentException("Member " + id + " is the active instance, which cannot remove "
                    + "itself: hand the active role to another member first (switchover), then remove " + id
                    + " there.");
        }
        Map<String, String> wanted = new TreeMap<>(members);
        wanted.remove(id);
        if (wanted.size() < Membership.MIN_MEMBERS) {
            throw new IllegalArgumentException("Removing member " + id + " would leave replication group '" + group
                    + "' with " + wanted.size() + " members " + wanted.keySet() + ", which stop at the loss of any "
                    + "one: a group keeps at least " + Membership.MIN_MEMBERS + ". Add its replacement first "
                    + "(define member), then remove " + id + ".");
        }
        Set<String> answer = answering(wanted);
        int majority = wanted.size() / 2 + 1;
        if (answer.size() < majority) {
            throw new IllegalStateException("Removing member " + id + " would leave replication group '" + group
                    + "' with " + wanted.keySet() + ", of which only " + answer + " answer the active member: a "
                    + "majority of them is " + majority + ", so the group would stop taking work. Start the members "
                    + "that do not answer, or wait until 'display server' shows them in sync, then remove " + id + ".");
        }
        return change("remove member " + id, wanted, deadline -> {
        }, () -> {
        }, "Member " + id + " left replication group '" + group
                + "': its members are " + wanted.keySet() + ". Keep member " + id + " stopped (it takes no part any "
                + "more), and make replication.members the same list in every member's configuration file.",
                "Check with 'display server' that the members answer, then remove " + id + " again.");
    }

    /** The members of {@code wanted} this active member hears from: itself, and replicas that answered lately. */
    private Set<String> answering(Map<String, String> wanted) {
        return log.answering(wanted.keySet(), answering);
    }

    /**
     * Whether a change that failed with {@code failure} is tried again before {@code deadline}: when a new member made
     * no progress (Ratis gives up after three election timeouts without its answer, and a member just started, or
     * whose connection was failing a moment ago, may answer later) or an earlier attempt of this change is still
     * being ended by Ratis. Other failures are answered at once.
     */
    private static boolean again(Throwable failure, long deadline) {
        if (System.nanoTime() >= deadline) {
            return false;
        }
        if (failure instanceof ReconfigurationInProgressException) {
            LockSupport.parkNanos(RETRY_PAUSE_NANOS); // Ratis answers this at once: no busy loop
            return true;
        }
        return failure instanceof ReconfigurationTimeoutException;
    }

    /** What is checked before a change, under way already, within the change's time: throws when refused. */
    @FunctionalInterface
    private interface Check {
        void run(long deadline);
    }

    /**
     * Asks member {@code id}, to be added at {@code address}, for its settings until it answers or {@code deadline}
     * (the operator may start it a moment after defining it): refused, naming the certificate, when the member called
     * there shows another's certificate ({@link MemberCertificateCheck}), when it refuses the read (it does not list
     * this member), when its settings differ from the group's, and when it never answers. The members do not answer
     * its own check at its start (they do not know it yet: {@link MemberIdentityCheck}), so this is where its
     * settings are compared.
     */
    private void checkNew(String id, String address, Map<String, String> wanted, long deadline, String fix) {
        String stay = " The members stay " + log.members().keySet() + ".";
        while (true) {
            SettingsCheck.Answer answer = log.askSettings(id, address, wanted);
            refusedCall(id, address);
            if (answer.settings() != null) {
                GroupSettings own = log.settings();
                List<String> differ = own.differences(answer.settings());
                if (differ.isEmpty()) {
                    return;
                }
                throw new IllegalArgumentException("Replication group '" + group + "' cannot add member " + id + ": "
                        + String.join(" ", differ.stream().map(setting -> SettingsCheck.refusal(group, id,
                        answer.settings(), log.id(), own, setting)).toList()) + " Then define member " + id + " again."
                        + stay);
            }
            if (answer.refused()) {
                throw new IllegalArgumentException("Replication group '" + group + "' cannot add member " + id
                        + " at " + address + ": " + answer.failure() + ". List the group's members, " + wanted.keySet()
                        + ", in its replication.members, start it again, then define it again." + stay);
            }
            if (System.nanoTime() >= deadline) {
                throw new IllegalStateException("Replication group '" + group + "' could not add member " + id
                        + ": it did not answer at " + address + " (" + answer.failure() + ")." + stay + " " + fix);
            }
            LockSupport.parkNanos(ASK_PAUSE_NANOS); // a closed port answers at once: no busy loop
        }
    }

    /** Refused when the member called at {@code address} as member {@code id} showed another's certificate. */
    private void refusedCall(String id, String address) {
        String refused = log.refusedCall(address);
        if (refused != null) {
            throw new IllegalArgumentException("Replication group '" + group + "' cannot add member " + id + ": "
                    + refused + " The members stay " + log.members().keySet() + ".");
        }
    }

    /**
     * Makes the change {@code what} to {@code wanted}: {@code check} first, and {@code refused} after each attempt
     * that failed (throws when a member being added was refused as it was called meanwhile: said at once).
     */
    private String change(String what, Map<String, String> wanted, Check check, Runnable refused, String done,
                          String fix) {
        synchronized (this) {
            if (underWay != null) {
                throw new IllegalStateException("Cannot " + what + ": '" + underWay + "' is under way in replication "
                        + "group '" + group + "'. Wait for it to end ('display server' lists the members), then try "
                        + "again.");
            }
            if (log.changingMembers()) {
                throw new IllegalStateException("Cannot " + what + ": a change of replication group '" + group
                        + "''s members is under way. Wait for it to end ('display server' lists the members), then "
                        + "try again.");
            }
            underWay = what;
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            check.run(deadline);
            LOG.log(System.Logger.Level.INFO, () -> "Replication member " + log.id() + ": " + what + ", members to "
                    + "be " + wanted);
            for (int attempt = 1; ; attempt++) {
                try {
                    log.setMembers(wanted).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
                    LOG.log(System.Logger.Level.INFO, () -> "Replication member " + log.id() + ": " + done);
                    return done;
                } catch (ExecutionException e) {
                    refused.run();
                    if (!again(e.getCause(), deadline)) {
                        throw new IllegalStateException("Replication group '" + group + "' could not " + what + ": "
                                + e.getCause().getMessage() + ". The members stay " + log.members().keySet() + ". "
                                + fix, e.getCause());
                    }
                    int tried = attempt;
                    LOG.log(System.Logger.Level.INFO, () -> "Replication member " + log.id() + ": " + what
                            + " again (attempt " + tried + ": " + e.getCause().getMessage() + ")");
                }
            }
        } catch (TimeoutException e) {
            throw new IllegalStateException("Replication group '" + group + "' did not " + what + " within "
                    + timeout.toSeconds() + " s: it may still end either way ('display server' lists the members "
                    + "once it has). " + fix, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting to " + what + ".", e);
        } finally {
            synchronized (this) {
                underWay = null;
            }
        }
    }
}
