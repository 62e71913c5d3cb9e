package org.wharfmq.server.cli;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What {@code wharf admin}'s help says, asked without a server: every command, and no command said to do otherwise. */
class AdminHelpTest {

    /** Runs {@code wharf args...} in this JVM; its standard output, after checking that it exited 0. */
    private static String help(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine wharf = new CommandLine(new WharfCommand());
        wharf.setOut(new PrintWriter(out, true));
        wharf.setErr(new PrintWriter(err, true));
        assertEquals(0, wharf.execute(args), err.toString());
        return out.toString().replace(System.lineSeparator(), "\n");
    }

    @Test
    void adminHelpListsEveryCommandWithWhatItRequires() {
        String help = help("admin", "--help");
        // the footer listed the queue, connection and subscription commands only (session 39's walk): channels,
        // members, aliases, XA branches and the switchover were in no help but each verb's own
        for (String command : List.of("define queue NAME [options]", "define alias NAME --target QUEUE",
                "define channel NAME [options]", "define member ID --address HOST:PORT", "alter channel NAME [options]",
                "delete member ID", "delete channel NAME", "delete queue NAME [--force]",
                "delete subscription NAME [--client-id ID]", "display queues [PATTERN]", "display chstatus",
                "display channel [NAME]", "display pubsub", "display names", "display prepared", "display settings",
                "browse queue NAME [--limit N] [--selector SELECTOR] [--hex]", "end connection ID",
                "start channel NAME", "stop channel NAME", "reset channel NAME --sequence N",
                "resolve channel NAME --action commit|backout [--batch ID]",
                "move --from QUEUE --to QUEUE [--selector SELECTOR] [--limit N]", "switchover [--to ID]")) {
            assertTrue(help.contains("\n  " + command + "\n"),
                    "'wharf admin --help' lists '" + command + "':\n" + help);
        }
        for (String line : AdminStatements.synopses()) { // and every other command the statements take
            assertTrue(help.contains("\n  " + line + "\n"), line + ":\n" + help);
        }
    }

    @Test
    void switchoverHelpSaysTheOldActiveMemberRejoinsInItsProcess() {
        String help = help("admin", "switchover", "--help").replaceAll("\\s+", " ");
        // it said "this member ends, to be started again as a replica": since session 26 it rejoins by itself
        assertTrue(help.contains("rejoins as a replica in its process"), help);
        assertFalse(help.contains("ends"), help);
    }
}
