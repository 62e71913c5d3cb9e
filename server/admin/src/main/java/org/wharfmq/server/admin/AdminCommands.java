package org.wharfmq.server.admin;

import java.util.Map;

/**
 * Admin commands a plugin adds to the admin command queue (the flow host's {@code deploy}, {@code list}, ...): give
 * them to the {@link AdminPlugin}.
 */
public interface AdminCommands {

    /** The commands, by name; a name must not be one the admin plugin or another contributor has already. */
    Map<String, AdminCommand> commands();
}
