package org.wharfmq.server.flow;

import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.Node;
import org.wharfmq.flow.node.FileNode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * The directories flows may read and write (setting {@code fileDirectories}): a flow whose file node names a
 * directory outside them is refused at deploy. Each path is compared as the file system resolves it: {@code ..}
 * and symbolic links are followed first (of a directory not made yet, its nearest existing parent), so neither
 * leads out. What a flow does is checked once, when it is deployed; a directory later replaced by a link is not
 * seen (the FileInput node does not follow links to files).
 */
final class FileDirectories {

    private final List<Path> allowed;
    private final List<Path> resolved = new ArrayList<>();

    FileDirectories(List<Path> allowed) {
        this.allowed = allowed;
        for (Path directory : allowed) {
            resolved.add(real(directory));
        }
    }

    /**
     * Checks every directory of every file node of the flow.
     *
     * @throws IllegalArgumentException naming the flow, the node, the directory and the setting
     */
    void check(FlowDefinition definition) {
        for (Node node : definition.nodes().values()) {
            if (!(node instanceof FileNode fileNode)) {
                continue;
            }
            for (Path directory : fileNode.directories()) {
                Path real = real(directory);
                if (resolved.stream().noneMatch(real::startsWith)) {
                    throw new IllegalArgumentException("Flow '" + definition.name() + "' " + node + " uses directory "
                            + directory + (real.equals(directory) ? "" : " (" + real + ")") + ", which is outside the "
                            + "directories flows may use (setting flowHost.fileDirectories in wharf.yaml: "
                            + (allowed.isEmpty() ? "none" : allowed) + "). Add the directory to flowHost.fileDirectories, or "
                            + "change the flow to use one of them.");
                }
            }
        }
    }

    /** The path as the file system resolves it: its existing part with links and {@code ..} followed. */
    private static Path real(Path path) {
        Path absolute = path.toAbsolutePath();
        Deque<Path> missing = new ArrayDeque<>();
        Path existing = absolute;
        while (existing != null && !Files.exists(existing, LinkOption.NOFOLLOW_LINKS)) {
            missing.push(existing.getFileName());
            existing = existing.getParent();
        }
        Path real;
        try {
            real = existing == null ? absolute.getRoot() : existing.toRealPath();
        } catch (IOException e) { // a dangling link: nothing it names can be allowed
            throw new IllegalArgumentException("Directory " + path + " cannot be resolved: " + e, e);
        }
        while (!missing.isEmpty()) {
            real = real.resolve(missing.pop());
        }
        return real.normalize();
    }
}
