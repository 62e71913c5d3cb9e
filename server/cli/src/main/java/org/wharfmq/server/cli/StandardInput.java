package org.wharfmq.server.cli;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * The one reader of standard input in the command line: a password read from its first line
 * ({@code --password-stdin}) and a script of admin commands read from the rest ({@code wharf admin < script.txt})
 * share it, so neither swallows what the other needs (a reader reads ahead).
 */
final class StandardInput {

    private static BufferedReader reader;

    private StandardInput() {
    }

    /** Standard input, as UTF-8 lines. */
    static synchronized BufferedReader reader() {
        if (reader == null) {
            reader = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        }
        return reader;
    }

    /**
     * Reads {@code in} as standard input from now on: for a test that runs the command line in its own JVM, whose
     * System.in is not the command's (integration-tests' FlowCommandAccess).
     */
    static synchronized void use(InputStream in) {
        reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
    }
}
