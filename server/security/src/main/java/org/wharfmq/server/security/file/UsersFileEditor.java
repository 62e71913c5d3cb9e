package org.wharfmq.server.security.file;

import org.wharfmq.protocol.auth.ScramCredential;
import org.wharfmq.server.config.ConfigurationException;

import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Edits the {@code users:} section of a security file as text, so that everything else in the file stays as it was,
 * comments included ({@code bin/wharf user add|passwd|remove}): a user's entry is the lines from its name to the next
 * line indented no deeper. The result is read back with {@link SecurityFile} before it replaces the file (written
 * beside it, then moved over it), so an edit never leaves a file the server would refuse. A new file is readable by
 * its owner only: it holds password verifiers.
 */
public final class UsersFileEditor {

    /** What a user name may contain: it is written unquoted into YAML and shown in logs. */
    public static final Pattern USER_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._@-]{0,127}");

    private static final Pattern USERS_KEY = Pattern.compile("^users:\\s*(\\{\\s*}\\s*)?(#.*)?$");
    private static final String INDENT = "  ";

    private final Path file;
    private final List<String> lines;

    private UsersFileEditor(Path file, List<String> lines) {
        this.file = file;
        this.lines = lines;
    }

    /** The file's text for editing; a file that does not exist yet starts empty. */
    public static UsersFileEditor open(Path file) throws IOException {
        String text;
        try {
            text = Files.readString(file);
        } catch (NoSuchFileException e) {
            text = "";
        }
        List<String> lines = new ArrayList<>(Arrays.asList(text.split("\n", -1)));
        if (!lines.isEmpty() && lines.get(lines.size() - 1).isEmpty()) {
            lines.remove(lines.size() - 1);
        }
        return new UsersFileEditor(file, lines);
    }

    /** The rules as the file holds them now (before this editor's changes are saved). */
    public SecurityFile current() {
        return SecurityFile.parse(text());
    }

    /** Adds {@code user}, or replaces its entry, with this credential and these groups. */
    public void put(String user, ScramCredential credential, Collection<String> groups) {
        checkName(user);
        for (String g : groups) {
            if (!USER_NAME.matcher(g).matches()) {
                throw new IllegalArgumentException("Group name '" + g + "' may contain letters, digits and . _ @ - only.");
            }
        }
        List<String> entry = new ArrayList<>();
        entry.add(INDENT + user + ":");
        entry.add(INDENT + INDENT + "password: \"" + credential.verifier() + "\"");
        if (!groups.isEmpty()) {
            entry.add(INDENT + INDENT + "groups: [" + String.join(", ", groups) + "]");
        }
        int[] at = entry(user);
        if (at != null) {
            replace(at[0], at[1], entry);
            return;
        }
        int users = usersLine();
        int end = blockEnd(users);
        int insert = end;
        while (insert > users + 1 && lines.get(insert - 1).isBlank()) {
            insert--; // before the blank lines that separate the section from the next
        }
        lines.addAll(insert, entry);
    }

    /**
     * Removes {@code user}'s entry.
     *
     * @return false when there was none
     */
    public boolean remove(String user) {
        int[] at = entry(user);
        if (at == null) {
            return false;
        }
        replace(at[0], at[1], List.of());
        return true;
    }

    /** Checks the edited text as the server would read it and replaces the file with it. */
    public void save() throws IOException {
        String text = text();
        try {
            SecurityFile.parse(text);
        } catch (ConfigurationException e) {
            throw new ConfigurationException("The edited security file would not be valid, so " + file
                    + " was left as it was: " + e.getMessage());
        }
        Path dir = file.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path temp = Files.createTempFile(dir, ".security", ".yaml");
        try {
            Files.writeString(temp, text);
            if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
                Set<java.nio.file.attribute.PosixFilePermission> permissions = Files.exists(file)
                        ? Files.getPosixFilePermissions(file) : PosixFilePermissions.fromString("rw-------");
                Files.setPosixFilePermissions(temp, permissions);
            }
            try {
                Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    /** The edited text. */
    String text() {
        return lines.isEmpty() ? "" : String.join("\n", lines) + "\n";
    }

    /** Checks a user name: what {@link #USER_NAME} allows. */
    public static void checkName(String user) {
        if (!USER_NAME.matcher(user).matches()) {
            throw new IllegalArgumentException("User name '" + user + "' may contain letters, digits and . _ @ - only,"
                    + " start with a letter or digit, and be at most 128 characters.");
        }
    }

    private void replace(int from, int to, List<String> with) {
        lines.subList(from, to).clear();
        lines.addAll(from, with);
    }

    /** The index of the {@code users:} line, added at the end when the file has none. */
    private int usersLine() {
        for (int i = 0; i < lines.size(); i++) {
            if (USERS_KEY.matcher(lines.get(i)).matches()) {
                lines.set(i, "users:"); // "users: {}" becomes a block
                return i;
            }
        }
        lines.add("users:");
        return lines.size() - 1;
    }

    /** The index after the last line of the section starting at {@code users}: the next line at column 0. */
    private int blockEnd(int users) {
        int i = users + 1;
        while (i < lines.size() && (lines.get(i).isEmpty() || Character.isWhitespace(lines.get(i).charAt(0)))) {
            i++;
        }
        return i;
    }

    /** The lines [from, to) of {@code user}'s entry, or null. */
    private int[] entry(String user) {
        int users = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (USERS_KEY.matcher(lines.get(i)).matches()) {
                users = i;
                break;
            }
        }
        if (users < 0) {
            return null;
        }
        int end = blockEnd(users);
        int entryIndent = -1; // the user names' indentation: that of the section's first entry
        Pattern name = Pattern.compile("^(\\s+)[\"']?" + Pattern.quote(user) + "[\"']?\\s*:.*$");
        for (int i = users + 1; i < end; i++) {
            String line = lines.get(i);
            if (line.isBlank() || line.trim().startsWith("#")) {
                continue;
            }
            if (entryIndent < 0) {
                entryIndent = indentOf(line);
            }
            java.util.regex.Matcher m = name.matcher(line);
            if (m.matches() && m.group(1).length() == entryIndent) {
                int indent = entryIndent;
                int j = i + 1;
                while (j < end && (lines.get(j).isBlank() || indentOf(lines.get(j)) > indent)) {
                    j++;
                }
                while (j > i + 1 && lines.get(j - 1).isBlank()) {
                    j--;
                }
                return new int[]{i, j};
            }
        }
        return null;
    }

    private static int indentOf(String line) {
        int i = 0;
        while (i < line.length() && Character.isWhitespace(line.charAt(i))) {
            i++;
        }
        return i;
    }
}
