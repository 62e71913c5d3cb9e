package org.wharfmq.perf.workload;

import java.io.IOException;
import java.util.List;

/** Starts the runner's processes: {@code args} is a {@code wharf perf} command line ({@code server ...}, {@code -tc ...}). */
public interface Launcher {

    /** Starts {@code args} under the name {@code name} (used to label its output). */
    Launched launch(String name, List<String> args) throws IOException;

    /**
     * Starts {@code args} as {@link #launch(String, List)} does, a child JVM with {@code jvmOptions} after the
     * launcher's own (so a later {@code -Xmx} wins); where there is no JVM of its own to give them to, as
     * {@link #launch(String, List)}.
     */
    default Launched launch(String name, List<String> args, List<String> jvmOptions) throws IOException {
        return launch(name, args);
    }
}
