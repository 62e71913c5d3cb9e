package org.wharfmq.server.replication;

/**
 * Told when this member becomes, and stops being, the active instance: where the broker side is to open and close
 * its doors to clients (only the active instance serves them). Called on Ratis's threads; must not block.
 */
public interface ActiveListener {

    /** Tells nothing to anyone. */
    ActiveListener NONE = new ActiveListener() {
        @Override
        public void active() {
        }

        @Override
        public void inactive() {
        }
    };

    /**
     * This member is the leader and has applied its term's first entry: appends are taken from now on, and
     * everything committed before is applied here.
     */
    void active();

    /**
     * This member stopped being the leader (it stepped down, for instance on losing its majority, or is closing):
     * its appends in flight have failed; clients must be refused from now on.
     */
    void inactive();

    /**
     * This member cannot go on in its group: its settings differ from those the active member appended as its term
     * began (members started together, before they could compare at their start, {@link SettingsCheck}). Its log
     * has stopped; {@code reason} names the setting, both values, both members and the fix.
     */
    default void refused(String reason) {
    }

    /**
     * This member's log stopped: its owner closed it, or it stopped itself (an entry it could not apply, fail-stop; its
     * removal from the group), {@code reason} saying which. Not told after a {@link #refused refusal}, which says
     * more. Called on Ratis's thread that stopped it; must not block.
     */
    default void stopped(String reason) {
    }
}
