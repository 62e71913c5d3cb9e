package org.wharfmq.server.flow;

import com.fasterxml.jackson.databind.JsonNode;
import org.wharfmq.flow.FlowFactory;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/** Compiles Java sources into a flow jar at test time (javac of the running JDK); public for the command line's tests. */
public final class TestJars {

    private TestJars() {
    }

    /** A jar at {@code dir/name} with {@code sources} (class name → source) compiled against the flow API. */
    public static Path build(Path dir, String name, Map<String, String> sources) throws IOException {
        return build(dir, name, sources, null);
    }

    /** As {@link #build(Path, String, Map)}, with every file under {@code resources} (if not null) in the jar too. */
    private static Path build(Path dir, String name, Map<String, String> sources, Path resources) throws IOException {
        Path src = Files.createDirectories(dir.resolve(name + "-src"));
        Path classes = Files.createDirectories(dir.resolve(name + "-classes"));
        if (resources != null && Files.isDirectory(resources)) {
            try (Stream<Path> files = Files.walk(resources)) {
                for (Path file : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
                    Path target = classes.resolve(resources.relativize(file).toString());
                    Files.createDirectories(target.getParent());
                    Files.copy(file, target);
                }
            }
        }
        List<String> args = new ArrayList<>(List.of("-d", classes.toString(), "-classpath", apiClasspath(),
                "--release", "17", "-proc:none"));
        for (Map.Entry<String, String> source : sources.entrySet()) {
            Path file = src.resolve(source.getKey().replace('.', '/') + ".java");
            Files.createDirectories(file.getParent());
            Files.writeString(file, source.getValue());
            args.add(file.toString());
        }
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        if (javac.run(null, null, null, args.toArray(String[]::new)) != 0) {
            throw new IllegalStateException("Compiling the test flow " + name + " failed (see stderr)");
        }
        Path jar = dir.resolve(name);
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar)); Stream<Path> files = Files.walk(classes)) {
            for (Path file : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
                out.putNextEntry(new JarEntry(classes.relativize(file).toString().replace('\\', '/')));
                copy(file, out);
                out.closeEntry();
            }
        }
        return jar;
    }

    /**
     * A jar at {@code dir/name} compiled from every .java file under {@code sourceRoot}, with the files of the
     * Maven {@code resources} folder beside it (if there is one).
     */
    public static Path buildFromSources(Path dir, String name, Path sourceRoot) throws IOException {
        return buildFromSources(dir, name, sourceRoot, java.util.function.UnaryOperator.identity());
    }

    /** As {@link #buildFromSources(Path, String, Path)}, each source's text changed by {@code edit} first. */
    public static Path buildFromSources(Path dir, String name, Path sourceRoot,
                                        java.util.function.UnaryOperator<String> edit) throws IOException {
        Map<String, String> sources = new java.util.TreeMap<>();
        try (Stream<Path> files = Files.walk(sourceRoot)) {
            for (Path file : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".java"))::iterator) {
                String relative = sourceRoot.relativize(file).toString().replace('\\', '/');
                sources.put(relative.substring(0, relative.length() - ".java".length()).replace('/', '.'),
                        edit.apply(Files.readString(file)));
            }
        }
        return build(dir, name, sources, sourceRoot.resolveSibling("resources"));
    }

    private static void copy(Path file, OutputStream out) throws IOException {
        Files.copy(file, out);
    }

    private static String apiClasspath() {
        // the flow API and what a flow jar built by Maven against it sees: Jackson's tree (databind and core), JMS
        return String.join(java.io.File.pathSeparator, location(FlowFactory.class), location(JsonNode.class),
                location(com.fasterxml.jackson.core.TreeNode.class), location(javax.jms.Message.class));
    }

    private static String location(Class<?> type) {
        try {
            return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
