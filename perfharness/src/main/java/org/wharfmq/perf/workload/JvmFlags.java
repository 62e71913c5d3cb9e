package org.wharfmq.perf.workload;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * JVM options every child JVM gets: the module openings the server's journal (Chronicle Queue) needs on Java 17+
 * (the list of {@code wharf.jvm.flags} in {@code server/pom.xml}), plus any this JVM was started with.
 */
final class JvmFlags {

    private static final List<String> JOURNAL = List.of(
            "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED",
            "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
            "--add-exports=jdk.unsupported/sun.misc=ALL-UNNAMED",
            "--add-exports=jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED",
            "--add-opens=jdk.compiler/com.sun.tools.javac=ALL-UNNAMED",
            "--add-opens=java.base/java.lang=ALL-UNNAMED",
            "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
            "--add-opens=java.base/java.io=ALL-UNNAMED",
            "--add-opens=java.base/java.util=ALL-UNNAMED"
    );

    private JvmFlags() {
    }

    /** The journal's openings and this JVM's own --add-opens / --add-exports, without repeats. */
    static List<String> forChildren() {
        Set<String> flags = new LinkedHashSet<>(JOURNAL);
        for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (arg.startsWith("--add-opens") || arg.startsWith("--add-exports")) {
                flags.add(arg);
            }
        }
        return new ArrayList<>(flags);
    }
}
