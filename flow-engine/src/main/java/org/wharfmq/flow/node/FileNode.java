package org.wharfmq.flow.node;

import java.nio.file.Path;
import java.util.List;

/**
 * A node that reads or writes files: it names every directory it touches, so that a host can refuse a flow that
 * would reach outside the directories it allows (the flow host's setting {@code fileDirectories}).
 */
public interface FileNode {

    /** Every directory the node reads, writes or moves files into, as the flow gave them. */
    List<Path> directories();
}
