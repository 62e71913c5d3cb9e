package org.wharfmq.server.it;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * docs/architecture.md's "A message's path" is a map a new engineer follows class by class: its road has at most ten
 * numbered steps, each the source file of a class of its own (ten files to open, no two steps in one), and every class
 * it names ({@code client.core.CoreSender}, {@code queue.QueueManager}, {@code PendingRequests.Request}) is a source
 * file of the repository (a test's, where it names a test), with the members and methods the road names
 * ({@code LocalQueue.reserve}; {@code (`onSend`)} after a step's class). The rest of the document, the threads and
 * the tables of who owns what among them, is held to the code the same way: every class it names is one of the
 * repository's (a nested one, {@code Builder}, declared in one of its files), or one of the few outside it that it
 * names on purpose ({@link #OUTSIDE}). A class renamed, moved or deleted without the map fails here, naming what the
 * map says.
 */
class ArchitectureMapTest {

    /** A dotted name with a class in it: {@code server.queue.LocalQueue}, {@code Frame.Send}. */
    private static final Pattern NAME = Pattern.compile(
            "`((?:[a-z][a-z0-9]*\\.)*[A-Z][A-Za-z0-9_]*(?:\\.[A-Za-z][A-Za-z0-9_]*)*)`");
    /** A step: its number, its class and what follows on its line. */
    private static final Pattern STEP = Pattern.compile("(?m)^(\\d+)\\. `([a-zA-Z.]+)` \\(([^)\\n]*)");
    /** A method named in a step's parentheses: {@code `onSend`}. */
    private static final Pattern METHOD = Pattern.compile("`([a-z][A-Za-z0-9]*)`");
    /** Where the map's packages are, under {@code org/wharfmq/} (a server package is named without "server."). */
    private static final List<String> ROOTS = List.of("", "server/", "client/core/");
    /** A type declared in a source file, nested ones too: {@code record Send(}, {@code interface Encoder}. */
    private static final Pattern DECLARATION = Pattern.compile("\\b(?:class|interface|record|enum)\\s+([A-Z]\\w*)");
    /**
     * What the document names that is not a class of the repository: the JDK's, JMS's and Netty's classes it compares
     * with or builds on, and names of headers and properties.
     */
    private static final Set<String> OUTSIDE = Set.of("ByteBuf", "CompletionListener", "LongAdder", "MessageListener",
            "ReentrantLock", "SSLSocket", "SslHandler", "FastThreadLocalThread", "ThreadFactory", "JMSCorrelationID",
            "JMSRedelivered", "Wharf", "WharfMaxDepth");

    private final Path root = Path.of(System.getProperty("wharf.root"));
    private final Map<String, List<Path>> sources = sources();
    private final Map<String, List<Path>> declarations = new HashMap<>();

    @Test
    void theRoadOfAMessageNamesClassesAndMethodsThatExist() throws IOException {
        String doc = Files.readString(root.resolve("docs/architecture.md"));
        int start = doc.indexOf("## A message's path");
        int end = doc.indexOf("### 1. ", start);
        assertTrue(start >= 0 && end > start, "docs/architecture.md has its section \"A message's path\"");
        String road = doc.substring(start, end);

        List<String> missing = new ArrayList<>();
        Matcher name = NAME.matcher(road);
        int names = 0;
        while (name.find()) {
            names++;
            String found = check(name.group(1));
            if (found != null) {
                missing.add(found);
            }
        }
        Matcher step = STEP.matcher(road);
        int steps = 0;
        Set<Path> files = new java.util.LinkedHashSet<>();
        while (step.find()) {
            steps++;
            assertEquals(steps, Integer.parseInt(step.group(1)), "the steps are numbered in order");
            Path file = resolve(step.group(2));
            if (file != null && !files.add(file)) {
                missing.add("step " + steps + ": " + step.group(2) + " is the file of an earlier step");
            }
            Matcher method = METHOD.matcher(step.group(3));
            while (file != null && method.find()) {
                if (!Pattern.compile("\\b" + method.group(1) + "\\(").matcher(read(file)).find()) {
                    missing.add("step " + steps + ": " + step.group(2) + " has no method " + method.group(1));
                }
            }
        }
        assertTrue(names > 30, "the road names its classes: " + names);
        assertTrue(steps >= 8 && steps <= 10, "a message's road in ten classes or fewer: " + steps + " steps");
        assertEquals(steps, files.size(), "each step one file, a newcomer's ten at most: " + files);
        assertEquals(List.of(), missing, "docs/architecture.md, \"A message's path\", names what the code lacks");
    }

    @Test
    void everyClassTheDocumentNamesExists() throws IOException {
        String doc = Files.readString(root.resolve("docs/architecture.md"));
        List<String> missing = new ArrayList<>();
        Matcher name = NAME.matcher(doc);
        int names = 0;
        while (name.find()) {
            names++;
            String found = check(name.group(1));
            if (found != null && !OUTSIDE.contains(name.group(1))) {
                missing.add(found);
            }
        }
        assertTrue(names > 300, "the document names its classes: " + names);
        assertEquals(List.of(), missing, "docs/architecture.md names what the code lacks");
    }

    /** What the code lacks of {@code name} ({@code client.core.CoreSender}, {@code LocalQueue.reserve}), or null. */
    private String check(String name) {
        String[] parts = name.split("\\.");
        int type = 0;
        while (!Character.isUpperCase(parts[type].charAt(0))) {
            type++;
        }
        if (parts[type].chars().allMatch(c -> Character.isUpperCase(c) || c == '_')) {
            return null; // a frame's name (DELIVER), not a class
        }
        Path file = resolve(name);
        if (file == null && type == 0) {
            file = declaring(parts[type]); // a nested class: ServerConfig's Builder, ChannelAcceptor's Peer
        }
        if (file == null) {
            return name + ": no source file " + parts[type] + ".java"
                    + (type == 0 ? "" : " in package " + String.join(".", List.of(parts).subList(0, type)));
        }
        // a name without its package may be any class of that name (TemporaryDestinations: the client's or the server's)
        List<Path> candidates = type == 0 ? sources.getOrDefault(parts[type], List.of(file)) : List.of(file);
        String lacking = null;
        for (Path candidate : candidates) {
            lacking = lacking(candidate, parts, type);
            if (lacking == null) {
                return null;
            }
        }
        return name + ": " + lacking;
    }

    /** What {@code file} lacks of the members {@code parts} name after the class, or null. */
    private String lacking(Path file, String[] parts, int type) {
        for (int i = type + 1; i < parts.length; i++) {
            if (!Pattern.compile("\\b" + parts[i] + "\\b").matcher(read(file)).find()) {
                return root.relativize(file) + " has no " + parts[i];
            }
        }
        return null;
    }

    /** The source file of the class {@code name} names, by its package when it gives one; null if there is none. */
    private Path resolve(String name) {
        String[] parts = name.split("\\.");
        int type = 0;
        while (!Character.isUpperCase(parts[type].charAt(0))) {
            type++;
        }
        String packagePath = String.join("/", List.of(parts).subList(0, type));
        for (Path file : sources.getOrDefault(parts[type], List.of())) {
            if (type == 0) {
                return file;
            }
            String path = file.toString().replace('\\', '/');
            for (String prefix : ROOTS) {
                if (path.endsWith("/org/wharfmq/" + prefix + packagePath + "/" + parts[type] + ".java")) {
                    return file;
                }
            }
        }
        return null;
    }

    /** A source file that declares a type named {@code simpleName} (a nested one), or null. */
    private Path declaring(String simpleName) {
        if (declarations.isEmpty()) {
            for (List<Path> files : sources.values()) {
                for (Path file : files) {
                    Matcher declared = DECLARATION.matcher(read(file));
                    while (declared.find()) {
                        declarations.computeIfAbsent(declared.group(1), k -> new ArrayList<>()).add(file);
                    }
                }
            }
        }
        List<Path> files = declarations.get(simpleName);
        return files == null ? null : files.get(0);
    }

    /** Every source file of the repository (its tests' too), by its class's name; no build output or dot-directory. */
    private Map<String, List<Path>> sources() {
        Map<String, List<Path>> byName = new HashMap<>();
        try {
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attributes) {
                    String name = String.valueOf(dir.getFileName());
                    return name.equals("target") || (name.startsWith(".") && !dir.equals(root))
                            ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
                    String path = file.toString().replace('\\', '/');
                    boolean main = path.contains("/src/main/java/");
                    if (path.endsWith(".java") && (main || path.contains("/src/test/java/"))) {
                        List<Path> named = byName.computeIfAbsent(
                                file.getFileName().toString().replace(".java", ""), k -> new ArrayList<>());
                        named.add(main ? 0 : named.size(), file); // a main class before a test's of its name
                    }
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return byName;
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
