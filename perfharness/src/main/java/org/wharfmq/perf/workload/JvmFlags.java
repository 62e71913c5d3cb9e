package org.wharfmq.perf.workload;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * JVM options every child JVM gets: the module openings the server's journal (Chronicle Queue) needs on Java 17+.
 * Their one list is the java argument file {@code bin/jvm.options}; this JVM got it from {@code bin/wharf} or from
 * the build (surefire's argLine), so its own --add-opens / --add-exports are passed on, and the file itself too
 * when {@code wharf.home} says where it is (a harness started some other way).
 */
final class JvmFlags {

    private JvmFlags() {
    }

    /** {@code @<wharf.home>/bin/jvm.options} if there is one, then this JVM's --add-opens / --add-exports. */
    static List<String> forChildren() {
        Set<String> flags = new LinkedHashSet<>();
        String home = System.getProperty("wharf.home");
        if (home != null) {
            Path options = Path.of(home, "bin", "jvm.options");
            if (Files.isRegularFile(options)) {
                flags.add("@" + options.toAbsolutePath());
            }
        }
        for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (arg.startsWith("--add-opens") || arg.startsWith("--add-exports")) {
                flags.add(arg);
            }
        }
        return new ArrayList<>(flags);
    }
}
