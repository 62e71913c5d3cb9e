package org.wharfmq.server.it;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The command line of a child JVM that runs a main class of this JVM's class path, with this JVM's {@code java} and
 * the flags the code needs to run as it runs here: the journal (Chronicle Queue) needs the same
 * {@code --add-opens}/{@code --add-exports}, and on Java 24+ the same leave to use {@code sun.misc.Unsafe}'s memory
 * access, without which every run warns on standard error ({@code bin/wharf} passes {@code bin/jvm.options} and
 * {@code bin/jvm24.options}). Every test that starts a JVM of its own starts it from here ({@code WharfProcess} for
 * the {@code wharf} command).
 */
public final class ChildJvm {

    private ChildJvm() {
    }

    /** {@code java FLAGS jvmOptions -cp CLASS_PATH main arguments}. */
    public static List<String> command(Class<?> main, List<String> jvmOptions, List<String> arguments) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (String argument : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (argument.startsWith("--add-opens") || argument.startsWith("--add-exports")
                    || argument.startsWith("--sun-misc-unsafe-memory-access")) {
                command.add(argument);
            }
        }
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(main.getName());
        command.addAll(arguments);
        return command;
    }
}
