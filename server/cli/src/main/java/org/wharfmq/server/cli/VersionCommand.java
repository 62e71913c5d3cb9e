package org.wharfmq.server.cli;

import org.wharfmq.protocol.ProtocolVersion;
import org.wharfmq.server.WharfVersion;
import picocli.CommandLine.Command;

/** {@code wharf version}: prints the Wharf version and the wire protocol version it speaks. */
@Command(name = "version", mixinStandardHelpOptions = true, description = "Prints the Wharf version.")
final class VersionCommand implements Runnable {

    @Override
    public void run() {
        System.out.println(versionLine());
    }

    static String versionLine() {
        return "Wharf " + WharfVersion.current() + " (protocol version " + ProtocolVersion.CURRENT + ", Java "
                + System.getProperty("java.version") + ")";
    }
}
