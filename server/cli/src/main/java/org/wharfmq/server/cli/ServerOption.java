package org.wharfmq.server.cli;

import org.wharfmq.jms.WharfConnectionFactory;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.util.Arrays;

/**
 * The server a command talks to over its admin command queue, and who it logs in as: {@code --url},
 * {@code --user}, {@code --password-stdin}. A picocli mixin of {@code wharf admin}, {@code wharf flow} and
 * {@code wharf topic}.
 */
final class ServerOption {

    @Option(names = "--url", paramLabel = "URL", defaultValue = "tcp://localhost:7414",
            description = "Server URL (default: ${DEFAULT-VALUE}); several addresses, separated by commas, go to the "
                    + "active member of a replicated queue manager. A replica's address answers 'display server' "
                    + "alone (its own status), as does a member's HTTP listener, http(s)://HOST:PORT.")
    String url;

    @Option(names = "--user", paramLabel = "NAME", description = "Log in as this user (SCRAM-SHA-256: the password"
            + " never crosses the wire); the password is asked without echo, or read with --password-stdin."
            + " Without it: anonymous, which a server allows only as its security file says.")
    String user;

    @Option(names = "--password-stdin", description = "Read --user's password from the first line of standard input.")
    boolean passwordStdin;

    /** {@link #user}'s password, once read. */
    private char[] password;

    /**
     * Reads {@link #user}'s password now, if there is a user and it has not been read: before a script is read from
     * standard input, whose first line the password is with {@code --password-stdin}.
     *
     * @throws IllegalArgumentException when there is no console to ask at, or the password is empty
     */
    void readPassword() throws IOException {
        if (user != null && password == null) {
            password = Passwords.read(passwordStdin, false);
        }
    }

    /**
     * The HTTP Basic {@code Authorization} header of {@link #user} (reading the password if not yet), for a member's
     * HTTP listener ({@link HttpStatus}); null without a user.
     */
    String basicAuthorization() throws IOException {
        if (user == null) {
            return null;
        }
        readPassword();
        byte[] login = (user + ":" + new String(password)).getBytes(java.nio.charset.StandardCharsets.UTF_8);
        Arrays.fill(password, '\0');
        password = null;
        return "Basic " + java.util.Base64.getEncoder().encodeToString(login);
    }

    /** A factory for {@link #url} that logs in as {@link #user} when one is given (reading the password if not yet). */
    WharfConnectionFactory factory() throws IOException {
        WharfConnectionFactory factory = new WharfConnectionFactory(url);
        if (user != null) {
            readPassword();
            factory.setUserName(user);
            factory.setPassword(new String(password));
            Arrays.fill(password, '\0');
            password = null;
        }
        return factory;
    }
}
