package org.wharfmq.perf.workload;

import java.io.IOException;
import java.util.List;

/** Starts the runner's processes: {@code args} is a {@code wharf perf} command line ({@code server ...}, {@code -tc ...}). */
public interface Launcher {

    /** Starts {@code args} under the name {@code name} (used to label its output). */
    Launched launch(String name, List<String> args) throws IOException;
}
