package org.wharfmq.server.cli;

import java.io.Console;
import java.io.IOException;
import java.util.Arrays;

/**
 * How the command line reads a password: at the console without echo, or from the first line of standard input
 * ({@code --password-stdin}, for scripts). Never from an argument: arguments show in {@code ps}.
 */
final class Passwords {

    private Passwords() {
    }

    /**
     * Reads a password.
     *
     * @param stdin   from standard input rather than the console
     * @param confirm at the console, ask twice and require the same answer (a new password)
     * @throws IllegalArgumentException when there is no console (and not stdin), the input is empty, or the two
     *                                  answers differ
     */
    static char[] read(boolean stdin, boolean confirm) throws IOException {
        char[] password = stdin ? fromStdin() : fromConsole(confirm);
        if (password.length == 0) {
            throw new IllegalArgumentException("The password is empty.");
        }
        return password;
    }

    private static char[] fromStdin() throws IOException {
        String line = StandardInput.reader().readLine(); // the rest may be a script of admin commands
        if (line == null) {
            throw new IllegalArgumentException("--password-stdin: standard input is empty.");
        }
        return line.toCharArray();
    }

    private static char[] fromConsole(boolean confirm) {
        Console console = System.console();
        if (console == null) {
            throw new IllegalArgumentException("No console to ask for the password: use --password-stdin.");
        }
        char[] first = console.readPassword("Password: ");
        if (first == null) {
            throw new IllegalArgumentException("No password was given.");
        }
        if (confirm) {
            char[] second = console.readPassword("Password again: ");
            boolean same = Arrays.equals(first, second);
            if (second != null) {
                Arrays.fill(second, '\0');
            }
            if (!same) {
                throw new IllegalArgumentException("The passwords do not match; nothing was changed.");
            }
        }
        return first;
    }
}
