package org.wharfmq.server.flow;

import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.Node;
import org.wharfmq.flow.node.FileNode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The directories flows may read and write (setting {@code fileDirectories}): a flow whose file node names a
 * directory outside them is refused at deploy. Each path is compared as the file system resolves it, name by name:
 * symbolic links followed, {@code ..} taken from where the names before it led (after a directory not made yet too,
 * as creating it would), so neither leads out. What a flow does is checked once, when it is deployed; a directory later replaced by a link is not
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
                            + "change the flow to use one of them" + (directory.isAbsolute() ? "." : " (the flow's "
                            + "relative directory is taken from the server's working directory, "
                            + Path.of("").toAbsolutePath() + ": a flow written for another one, as the sample "
                            + "configuration's is for the Wharf folder, needs the server started there)."));
                }
            }
        }
    }

    /**
     * The path as the file system resolves it, one name at a time: an existing one with its links followed, a
     * {@code ..} from what the names before it resolved to (so a {@code ..} after a directory not made yet, which
     * creating the directories makes real, leads where the file system would take it, through any link after it),
     * a missing one as it is.
     */
    private static Path real(Path path) {
        Path absolute = path.toAbsolutePath();
        Path real = absolute.getRoot();
        for (Path name : absolute) {
            String text = name.toString();
            if (text.equals("..")) {
                real = real.getParent() == null ? real : real.getParent();
                continue;
            }
            if (text.equals(".")) {
                continue;
            }
            real = real.resolve(name);
            if (Files.exists(real, LinkOption.NOFOLLOW_LINKS)) {
                try {
                    real = real.toRealPath();
                } catch (IOException e) { // a dangling link: nothing it names can be allowed
                    throw new IllegalArgumentException("Directory " + path + " cannot be resolved: " + e, e);
                }
            }
        }
        return real;
    }
}
