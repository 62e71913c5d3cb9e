package org.wharfmq.server.cli;

import org.wharfmq.protocol.auth.ScramCredential;
import org.wharfmq.server.config.ConfigurationException;
import org.wharfmq.server.security.Authenticator;
import org.wharfmq.server.security.file.SecurityFile;
import org.wharfmq.server.security.file.UsersFileEditor;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * {@code wharf user add|passwd|remove|list}: edits the {@code users:} of a security file
 * ({@link UsersFileEditor}: the rest of the file, comments included, stays as it is). Passwords are read from the
 * console without echo (twice, to catch a typo) or, with {@code --password-stdin}, from the first line of standard
 * input (scripts); only a salted, iterated SCRAM-SHA-256 verifier is written. A running server picks the change up by
 * itself (it watches the file).
 */
@Command(name = "user", mixinStandardHelpOptions = true,
        description = "Adds, changes, removes and lists the users of a security file (passwords are stored only as"
                + " salted, iterated SCRAM-SHA-256 verifiers).",
        subcommands = CommandLine.HelpCommand.class)
final class UserCommand implements Runnable {

    /** Iterations of a new verifier unless {@code --iterations} says otherwise: RFC 7677's minimum. */
    static final int DEFAULT_ITERATIONS = ScramCredential.MIN_ITERATIONS;
    /** Exit status when the user, the file or the password is not acceptable. */
    static final int REFUSED = 1;

    @Spec
    private CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(),
                "Missing command: add, passwd, remove or list ('wharf user --help').");
    }

    /** The file option every subcommand takes. */
    static final class FileOption {
        @Option(names = "--file", paramLabel = "FILE", defaultValue = "config/security.yaml",
                description = "The security file (default: ${DEFAULT-VALUE}); created by 'add' when missing.")
        Path file;
    }

    /** How a new password is read and stored. */
    static final class PasswordOptions {
        @Option(names = "--password-stdin", description = "Read the password from the first line of standard input"
                + " instead of a prompt.")
        boolean stdin;

        @Option(names = "--iterations", paramLabel = "N", defaultValue = "" + DEFAULT_ITERATIONS,
                description = "PBKDF2 iterations of the verifier (default ${DEFAULT-VALUE}, at least 4096; more makes"
                        + " each login and each offline guess slower).")
        int iterations;
    }

    @Command(name = "add", mixinStandardHelpOptions = true, description = "Adds a user (asks for its password).")
    int add(@Parameters(paramLabel = "NAME") String name,
            @Option(names = "--groups", paramLabel = "a,b", split = ",", description = "The user's groups.") List<String> groups,
            @Mixin FileOption file, @Mixin PasswordOptions password) {
        return edit(file.file, editor -> {
            if (editor.current().users().containsKey(name)) {
                throw new IllegalArgumentException("User '" + name + "' already exists in " + file.file
                        + "; 'wharf user passwd " + name + "' changes its password.");
            }
            UsersFileEditor.checkName(name);
            editor.put(name, credential(password), groups == null ? List.of() : groups);
            return "Added user '" + name + "' to " + file.file + ".";
        });
    }

    @Command(name = "passwd", mixinStandardHelpOptions = true, description = "Changes a user's password (keeps its groups).")
    int passwd(@Parameters(paramLabel = "NAME") String name, @Mixin FileOption file, @Mixin PasswordOptions password) {
        return edit(file.file, editor -> {
            Authenticator.User user = editor.current().users().get(name);
            if (user == null) {
                throw new IllegalArgumentException("There is no user '" + name + "' in " + file.file
                        + "; 'wharf user add " + name + "' adds one.");
            }
            editor.put(name, credential(password), new TreeSet<>(user.groups()));
            return "Changed the password of user '" + name + "' in " + file.file + ".";
        });
    }

    @Command(name = "remove", mixinStandardHelpOptions = true, description = "Removes a user.")
    int remove(@Parameters(paramLabel = "NAME") String name, @Mixin FileOption file) {
        return edit(file.file, editor -> {
            if (!editor.remove(name)) {
                throw new IllegalArgumentException("There is no user '" + name + "' in " + file.file + ".");
            }
            return "Removed user '" + name + "' from " + file.file + ".";
        });
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "Lists the users and their groups.")
    int list(@Mixin FileOption file) {
        try {
            SecurityFile rules = SecurityFile.load(file.file);
            for (Map.Entry<String, Authenticator.User> e : rules.users().entrySet()) {
                spec.commandLine().getOut().println(e.getKey() + "\t" + String.join(",", new TreeSet<>(e.getValue().groups())));
            }
            spec.commandLine().getOut().flush();
            return 0;
        } catch (ConfigurationException e) {
            spec.commandLine().getErr().println("wharf: " + e.getMessage());
            return REFUSED;
        }
    }

    /** One edit of the file's users. */
    private interface Edit {
        /** Changes the users; returns the line to print. */
        String apply(UsersFileEditor editor) throws IOException;
    }

    private int edit(Path file, Edit edit) {
        try {
            UsersFileEditor editor = UsersFileEditor.open(file);
            String done = edit.apply(editor);
            editor.save();
            spec.commandLine().getOut().println(done);
            spec.commandLine().getOut().flush();
            return 0;
        } catch (IllegalArgumentException | ConfigurationException | IOException e) {
            spec.commandLine().getErr().println("wharf: " + e.getMessage());
            spec.commandLine().getErr().flush();
            return REFUSED;
        }
    }

    private static ScramCredential credential(PasswordOptions options) throws IOException {
        if (options.iterations < ScramCredential.MIN_ITERATIONS || options.iterations > ScramCredential.MAX_ITERATIONS) {
            throw new IllegalArgumentException("--iterations must be between " + ScramCredential.MIN_ITERATIONS + " and "
                    + ScramCredential.MAX_ITERATIONS + ", was " + options.iterations + ".");
        }
        char[] password = Passwords.read(options.stdin, true);
        try {
            return ScramCredential.create(password, options.iterations, new SecureRandom());
        } finally {
            Arrays.fill(password, '\0');
        }
    }
}
