package org.wharfmq.server.admin;

/** One admin command: what it does with a request, and what it answers. */
@FunctionalInterface
public interface AdminCommand {

    /**
     * Runs the command.
     *
     * @return the result, turned into JSON by the admin plugin (a record, a list, a map, a string or a number); a
     *         string is what {@code wharf flow} and {@code wharf topic list} print as it is
     * @throws Exception why it failed, in words for the operator (what was refused, why, the fix); an
     *                   {@link AdminException} gives its reason too
     */
    Object run(AdminRequest request) throws Exception;
}
