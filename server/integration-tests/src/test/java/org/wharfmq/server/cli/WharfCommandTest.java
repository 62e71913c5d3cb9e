package org.wharfmq.server.cli;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.protocol.ProtocolVersion;
import org.wharfmq.server.FreePorts;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.WharfVersion;
import org.wharfmq.server.admin.AdminPlugin;
import org.wharfmq.server.replication.ReplicationCommands;
import org.wharfmq.server.flow.TestJars;
import org.wharfmq.server.security.file.SecurityFileRealm;
import picocli.CommandLine;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The {@code wharf} command as a user runs it: in a child JVM where the process is what is checked (a server's output,
 * its stop on SIGTERM, an exit status, the launcher's entry point), in this JVM ({@link FlowCommandAccess}) where the
 * command's output alone is.
 */
@Tag("slow")
class WharfCommandTest {

    private static final long TIMEOUT_SECONDS = 30;
    private static final Path LAUNCHER = Path.of(System.getProperty("wharf.root"), "bin", "wharf");

    @TempDir
    Path dir;

    @Test
    void serverPrintsOneReadyLineAndStopsCleanlyOnSigterm() throws Exception {
        Path config = dir.resolve("wharf.yaml");
        Files.writeString(config, "name: CLIQM\nhost: 127.0.0.1\ninVmName: cli-test\n");
        Process process = wharf("server", "--config", config.toString(), "--port", "0", "--data", dir.resolve("data").toString());
        BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        String ready = out.readLine();
        assertNotNull(ready, "the server exited before it was ready");
        assertTrue(ready.matches("Wharf queue manager CLIQM ready on tcp://127\\.0\\.0\\.1:\\d+ and vm://cli-test \\(config "
                + java.util.regex.Pattern.quote(config.toString()) + "\\)"), ready);
        assertEquals("Settings in force, from " + config.toAbsolutePath() + "; --port, --data from the command line",
                settingsHeading(ready), "the file's path, and the command line's overrides");
        process.toHandle().destroy(); // SIGTERM; Process.destroy() would also close the pipes we still read
        assertTrue(process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS), "server did not stop on SIGTERM");
        assertEquals("Wharf queue manager CLIQM stopped", out.readLine());
        assertEquals(null, out.readLine(), "exactly one line besides the stop line");
    }

    /**
     * A server started without --config runs on the built-in defaults, and display settings says so; display server
     * says its HTTP listener is off.
     */
    @Test
    void displaySettingsOfAServerWithoutAConfigurationFileNamesTheBuiltInDefaults() throws Exception {
        Process process = wharf("server", "--port", "0", "--data", dir.resolve("data").toString());
        try {
            String ready = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))
                    .readLine();
            assertNotNull(ready, "the server exited before it was ready");
            assertEquals("Settings in force, from the built-in defaults (no --config file); --port, --data from the"
                    + " command line", settingsHeading(ready));
            String server = admin(ready, "display", "server");
            assertTrue(server.contains("\n  http listener   off (no http: block in the configuration"), server);
        } finally {
            process.toHandle().destroy();
            assertTrue(process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS), "server did not stop on SIGTERM");
        }
    }

    /** The first line of {@code wharf admin display settings} against the server whose ready line is {@code ready}. */
    private static String settingsHeading(String ready) {
        return admin(ready, "display", "settings").split("\n")[0];
    }

    /** What {@code wharf admin COMMAND...} prints against the server whose ready line is {@code ready}. */
    private static String admin(String ready, String... command) {
        Matcher url = Pattern.compile("ready on (tcp://[^ ,]+)").matcher(ready);
        assertTrue(url.find(), ready);
        List<String> args = new ArrayList<>(List.of("admin", "--url", url.group(1).replace("0.0.0.0", "127.0.0.1")));
        args.addAll(List.of(command));
        return run("", args.toArray(String[]::new));
    }

    /** The web console and the admin API on the HTTP listener, which display server names. */
    @Test
    void serverServesTheWebConsoleOnItsHttpListener() throws Exception {
        int httpPort = FreePorts.one();
        Path config = dir.resolve("wharf.yaml");
        Files.writeString(config, "name: WEBQM\nhost: 127.0.0.1\ninVmName: cli-console\nhttp:\n  port: " + httpPort
                + "\n");
        Process process = wharf("server", "--config", config.toString(), "--port", "0", "--data", dir.resolve("data").toString());
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            String ready = out.readLine();
            assertNotNull(ready, "the server exited before it was ready");
            String shown = admin(ready, "display", "server");
            assertTrue(shown.contains("\n  http listener   http://127.0.0.1:" + httpPort + " (plain HTTP, no TLS): web "
                    + "console, admin API (/api/COMMAND), metrics\n"), shown);
            HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            HttpResponse<String> page = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort
                    + "/")).build(), HttpResponse.BodyHandlers.ofString()); // anonymous, from this machine
            assertEquals(200, page.statusCode(), page.body());
            assertTrue(page.body().contains("<title>Wharf console</title>"), page.body());
            HttpResponse<String> server = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort
                    + "/api/display-server")).build(), HttpResponse.BodyHandlers.ofString());
            assertTrue(server.body().contains("\"name\":\"WEBQM\""), server.body());
        } finally {
            process.toHandle().destroy();
            assertTrue(process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS), "server did not stop on SIGTERM");
        }
    }

    /**
     * {@code wharf flow run}: a flow jar in a JVM of its own, against a running server, as a JMS application. A
     * message put on the flow's input comes out on its output, marked by the flow with the process id of the JVM it
     * ran in (the command's, not this one); SIGTERM stops it.
     */
    @Test
    void flowRunRunsAFlowJarInAJvmOfItsOwnAgainstTheServer() throws Exception {
        Path jar = TestJars.build(dir, "standalone-flow.jar", Map.of(
                "flows.Standalone", """
                        package flows;
                        import org.wharfmq.flow.*;
                        import org.wharfmq.flow.node.*;
                        public final class Standalone implements FlowFactory {
                            public FlowDefinition create() {
                                return FlowDefinition.builder("STANDALONE")
                                        .node("in", InputNode.queue("IN.STANDALONE"))
                                        .node("mark", new Mark())
                                        .node("out", OutputNode.queue("OUT.STANDALONE"))
                                        .wire("in", "out", "mark")
                                        .wire("mark", "out", "out")
                                        .build();
                            }
                        }
                        """,
                "flows.Mark", """
                        package flows;
                        import org.wharfmq.flow.*;
                        public final class Mark extends JavaComputeNode {
                            public void evaluate(MessageAssembly assembly) throws Exception {
                                MessageAssembly out = assembly.copy();
                                out.message().setUserProperty("ranInProcess", ProcessHandle.current().pid());
                                propagate("out", out);
                            }
                        }
                        """));
        try (TestServer testServer = TestServer.start()) {
            String url = testServer.server().tcpUrl();
            Process flow = wharf("flow", "run", jar.toString(), "--class", "flows.Standalone", "--url", url);
            try {
                BufferedReader out = new BufferedReader(new InputStreamReader(flow.getInputStream(), StandardCharsets.UTF_8));
                String running = out.readLine();
                assertEquals("Flow STANDALONE running against " + url + " with 1 instance(s); Ctrl-C stops it", running,
                        () -> "standard error: " + errorOf(flow));
                try (javax.jms.Connection connection = new org.wharfmq.jms.WharfConnectionFactory(url).createConnection()) {
                    connection.start();
                    javax.jms.Session session = connection.createSession(false, javax.jms.Session.AUTO_ACKNOWLEDGE);
                    session.createProducer(session.createQueue("IN.STANDALONE"))
                            .send(session.createTextMessage("through the flow"));
                    javax.jms.Message output = session.createConsumer(session.createQueue("OUT.STANDALONE"))
                            .receive(TimeUnit.SECONDS.toMillis(TIMEOUT_SECONDS));
                    assertNotNull(output, "the flow put nothing on its output queue");
                    assertEquals("through the flow", ((javax.jms.TextMessage) output).getText());
                    assertEquals(String.valueOf(flow.pid()), output.getStringProperty("ranInProcess"),
                            "the flow ran in the command's JVM");
                }
            } finally {
                flow.toHandle().destroy(); // SIGTERM, as Ctrl-C: the flow drains and closes
                assertTrue(flow.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS), "wharf flow run did not stop on SIGTERM");
            }
        }
    }

    /** What a process wrote on standard error, once it has ended (killed if it has not within the timeout). */
    private static String errorOf(Process process) {
        try {
            if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
            return new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException | InterruptedException e) {
            return "(not read: " + e + ")";
        }
    }

    @Test
    void portInUseIsReportedWithThePortAndTheOption() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Process process = wharf("server", "--port", String.valueOf(taken.getLocalPort()), "--data", dir.toString());
            assertTrue(process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS));
            String err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(ServerCommand.CANNOT_LISTEN, process.exitValue(), err);
            assertTrue(err.contains("Port " + taken.getLocalPort() + " on 0.0.0.0 is already in use"), err);
            assertTrue(err.contains("--port"), err);
        }
    }

    @Test
    void unknownSettingStopsStartupNamingIt() throws Exception {
        Path config = dir.resolve("bad.yaml");
        Files.writeString(config, "prot: 1234\n");
        Process process = wharf("server", "--config", config.toString());
        assertTrue(process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS));
        String err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(ServerCommand.BAD_CONFIGURATION, process.exitValue(), err);
        assertTrue(err.startsWith("wharf: Unknown setting 'prot' in " + config), err);
    }

    /**
     * A flow of flows: that cannot be deployed (here its jar is not there) stops the start with the flow host's
     * reason on one line, as any setting that cannot be used does: not a stack trace.
     */
    @Test
    void aConfiguredFlowThatCannotBeDeployedStopsStartupNamingWhyAndTheFix() throws Exception {
        Path config = dir.resolve("flows.yaml");
        Path missing = dir.resolve("no-such-flow.jar");
        Files.writeString(config, "host: 127.0.0.1\ninVmName: cli-flows\nflows:\n  - jar: " + missing
                + "\n    class: com.example.NoFlow\n");
        Process process = wharf("server", "--config", config.toString(), "--port", "0", "--data", dir.resolve("data").toString());
        assertTrue(process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS));
        String err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(ServerCommand.BAD_CONFIGURATION, process.exitValue(), err);
        assertTrue(err.contains("\nwharf: Flow jar " + missing + " does not exist: build it (its project's package), or "
                + "correct the path.\n") || err.startsWith("wharf: Flow jar " + missing + " does not exist: "), err);
        assertFalse(err.contains("\tat "), () -> "a refusal, not a stack trace: " + err);
    }

    @Test
    void tlsKeyStoreThatCannotBeReadStopsStartupNamingTheSettingAndFile() throws Exception {
        Path config = dir.resolve("tls.yaml");
        Path missing = dir.resolve("no-such-server.p12");
        Files.writeString(config, "host: 127.0.0.1\ntls:\n  port: 0\n  keyStore: " + missing + "\n");
        Process process = wharf("server", "--config", config.toString(), "--port", "0", "--data", dir.resolve("data").toString());
        assertTrue(process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS));
        String err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(ServerCommand.BAD_CONFIGURATION, process.exitValue(), err);
        assertTrue(err.contains("\nwharf: The file of tls.keyStore, " + missing + ", does not exist.\n"), err);
    }

    @Test
    void theReadyLineNamesTheTlsListener() throws Exception {
        Path store = dir.resolve("server.p12");
        Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "wharf", "-keyalg", "EC", "-dname", "CN=localhost", "-validity", "1",
                "-storetype", "PKCS12", "-keystore", store.toString(), "-storepass", "changeit").redirectErrorStream(true).start();
        assertEquals(0, keytool.waitFor(), new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
        Path config = dir.resolve("tls.yaml");
        Files.writeString(config, "name: TLSQM\nhost: 127.0.0.1\ninVmName: cli-tls\ntls:\n  port: 0\n  plain: false\n"
                + "  keyStore: " + store + "\n  keyStorePassword: changeit\n");
        Process process = wharf("server", "--config", config.toString(), "--data", dir.resolve("data").toString());
        BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        String ready = out.readLine();
        process.toHandle().destroy();
        assertTrue(process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS), "server did not stop on SIGTERM");
        assertNotNull(ready, "the server exited before it was ready");
        assertTrue(ready.matches("Wharf queue manager TLSQM ready on ssl://127\\.0\\.0\\.1:\\d+ and vm://cli-tls \\(config .*"), ready);
    }

    @Test
    void helpAndVersionWork() throws Exception {
        Process help = wharf("--help");
        String helpText = new String(help.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(help.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS));
        assertEquals(0, help.exitValue());
        assertTrue(helpText.contains("server") && helpText.contains("version"), helpText);

        // the version is the one Maven recorded in the broker's jar: bin/wharf runs the jars, where the version is the
        // build's; run from compiled classes, it is "development"
        boolean fromJar = WharfVersion.class.getProtectionDomain().getCodeSource().getLocation().getPath().endsWith(".jar");
        String expected = fromJar ? System.getProperty("wharf.version") : "development";
        Process version = wharf("version");
        String versionText = new String(version.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(version.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS));
        assertEquals(0, version.exitValue());
        assertTrue(versionText.startsWith("Wharf " + expected + " (protocol version")
                && versionText.contains("protocol version " + ProtocolVersion.CURRENT), versionText);
    }

    @Test
    void topLevelHelpListsEveryCommandOfTheLauncherWithASummary() throws IOException {
        // the commands bin/wharf documents in its header, perf (which it runs from the perf harness's jar) among them
        Set<String> launcherCommands = new TreeSet<>();
        Matcher usage = Pattern.compile("(?m)^#\\s+bin/wharf ([a-z]+)").matcher(Files.readString(LAUNCHER));
        while (usage.find()) {
            launcherCommands.add(usage.group(1));
        }
        assertTrue(launcherCommands.containsAll(Set.of("server", "admin", "flow", "topic", "perf", "version")),
                "bin/wharf's header: " + launcherCommands);

        FlowCommandAccess.Result help = FlowCommandAccess.run("--help");
        assertEquals(0, help.status(), help.err());
        String commands = help.out().substring(help.out().indexOf("Commands:"));
        for (String command : launcherCommands) {
            assertTrue(Pattern.compile("(?m)^\\s+" + command + "\\s+\\w.{20,}$").matcher(commands).find(),
                    "'wharf --help' gives " + command + " a one-line summary:\n" + help.out());
        }
    }

    @Test
    void perfRunOutsideTheLauncherSaysToUseIt() {
        FlowCommandAccess.Result perf = FlowCommandAccess.run("perf", "run", "RR-1", "--help");
        assertEquals(CommandLine.ExitCode.USAGE, perf.status(), perf.out());
        assertTrue(perf.err().contains("bin/wharf perf run RR-1 --help"), perf.err());
    }

    /**
     * wharf user add/passwd/remove/list edit the security file; the password comes from stdin, never the command line.
     * A refusal's exit status is the process's.
     */
    @Test
    void userCommandsEditTheSecurityFile() throws Exception {
        Path file = dir.resolve("security.yaml");
        Files.writeString(file, "# our users\nallowAnonymous: false\n");
        assertEquals("Added user 'alice' to " + file + ".", run("alice-pw\n", "user", "add", "alice", "--groups", "apps,admins",
                "--password-stdin", "--file", file.toString()));
        assertEquals("Changed the password of user 'alice' in " + file + ".", run("alice-pw2\n", "user", "passwd", "alice",
                "--password-stdin", "--iterations", "5000", "--file", file.toString()));
        assertEquals("Added user 'bob' to " + file + ".", run("bob-pw\n", "user", "add", "bob", "--password-stdin",
                "--file", file.toString()));
        assertEquals("alice\tadmins,apps\nbob\t", run("", "user", "list", "--file", file.toString()));
        String text = Files.readString(file);
        assertTrue(text.startsWith("# our users\nallowAnonymous: false\n"), text);
        assertTrue(text.contains("SCRAM-SHA-256$5000:"), "passwd wrote the new iteration count: " + text);
        assertTrue(!text.contains("alice-pw") && !text.contains("bob-pw"), "no clear-text password: " + text);
        assertEquals("Removed user 'bob' from " + file + ".", run("", "user", "remove", "bob", "--file", file.toString()));

        Process twice = wharf("user", "add", "alice", "--password-stdin", "--file", file.toString());
        twice.getOutputStream().write("x\n".getBytes(StandardCharsets.UTF_8));
        twice.getOutputStream().close();
        assertTrue(twice.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS));
        String err = new String(twice.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(UserCommand.REFUSED, twice.exitValue());
        assertTrue(err.contains("User 'alice' already exists") && err.contains("wharf user passwd alice"), err);
    }

    /**
     * wharf server with a security file: a user added by wharf user logs in, a wrong password is refused. The file is
     * named as earlier versions did (the top-level securityFile): it works, and the server says on stderr, before it is
     * ready, where the key has moved.
     */
    @Test
    void serverAuthenticatesTheUsersOfItsSecurityFile() throws Exception {
        Path security = dir.resolve("security.yaml");
        run("alice-pw\n", "user", "add", "alice", "--password-stdin", "--file", security.toString());
        Path config = dir.resolve("wharf.yaml");
        Files.writeString(config, "host: 127.0.0.1\ninVmName: cli-security\nsecurityFile: security.yaml\n");
        Process process = wharf("server", "--config", config.toString(), "--port", "0", "--data", dir.resolve("data").toString());
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            String ready = out.readLine();
            assertNotNull(ready, "the server exited before it was ready");
            Matcher url = Pattern.compile("ready on (tcp://\\S+)").matcher(ready);
            assertTrue(url.find(), ready);
            // printed before ready, so in the pipe by now: read what is there, without waiting for more
            java.io.InputStream stderr = process.getErrorStream();
            String before = new String(stderr.readNBytes(stderr.available()), StandardCharsets.UTF_8);
            assertTrue(before.contains("wharf: warning: Setting 'securityFile' in " + config + " at line 3 has moved to "
                    + "'security.file' (as 'file' under 'security:'); read at its old place for now: move it there."
                    + System.lineSeparator()), before);
            javax.jms.ConnectionFactory factory = new org.wharfmq.jms.WharfConnectionFactory(url.group(1));
            factory.createConnection("alice", "alice-pw").close();
            javax.jms.JMSSecurityException wrong = org.junit.jupiter.api.Assertions.assertThrows(
                    javax.jms.JMSSecurityException.class, () -> factory.createConnection("alice", "wrong"));
            assertEquals("Authentication failed for user 'alice'.", wrong.getMessage());
            javax.jms.JMSSecurityException anonymous = org.junit.jupiter.api.Assertions.assertThrows(
                    javax.jms.JMSSecurityException.class, factory::createConnection);
            assertTrue(anonymous.getMessage().contains("requires a user name and password"), anonymous.getMessage());

            // the admin commands log in too: --user, the password from stdin
            run("alice-pw\n", "topic", "list", "--url", url.group(1), "--user", "alice", "--password-stdin");
            Process nobody = wharf("topic", "list", "--url", url.group(1));
            assertTrue(nobody.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS));
            String err = new String(nobody.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(nobody.exitValue() != 0 && err.contains("requires a user name and password"), err);
        } finally {
            process.toHandle().destroy();
            assertTrue(process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS));
        }
    }

    /**
     * wharf admin against a server with a security file: a user without the admin permission is refused (the SYSTEM.*
     * rule), here a replicated queue manager's switchover, an admin's commands run, read as a script from standard
     * input after the password's line.
     */
    @Test
    void adminNeedsTheAdminPermissionAndReadsAScriptAfterThePasswordOnStandardInput() throws Exception {
        Path file = dir.resolve("security.yaml");
        Files.writeString(file, "users:\n"
                + "  app:\n    password: \"" + verifier("app-pw") + "\"\n"
                + "  ops:\n    password: \"" + verifier("ops-pw") + "\"\n    groups: [admins]\n"
                + "permissions:\n  - connect: [user:app, group:admins]\n  - admin: [group:admins]\n");
        SecurityFileRealm realm = SecurityFileRealm.open(file);
        try (TestServer server = TestServer.start(c -> c, config -> WharfServer.builder(config).authenticator(realm)
                .accessControl(realm.accessControl()).plugins(new AdminPlugin(new ReplicationCommands(null))).start())) {
            String url = server.server().tcpUrl();
            Process refused = wharf("admin", "--url", url, "--user", "app", "--password-stdin", "switchover", "--to",
                    "b"); // a process: its exit status and standard error
            refused.getOutputStream().write("app-pw\n".getBytes(StandardCharsets.UTF_8));
            refused.getOutputStream().close();
            assertTrue(refused.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS));
            String err = new String(refused.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(1, refused.exitValue(), err);
            assertEquals("wharf: User 'app' may not send to queue 'SYSTEM.ADMIN.COMMAND.QUEUE': no 'admin' permission "
                    + "(the SYSTEM.* queues need the admin permission) is granted to it. Ask an administrator to grant "
                    + "'admin' to user:app in the security file's permissions.", err.strip());

            String out = run("ops-pw\n# a script after the password\ndefine queue FROM.STDIN --max-depth 4\n"
                    + "display queue FROM.STDIN --json\n", "admin", "--url", url, "--user", "ops", "--password-stdin");
            String[] lines = out.split("\n");
            assertEquals("Defined queue FROM.STDIN: max depth 4.", lines[0]);
            assertTrue(lines[1].startsWith("{\"command\":\"display-queue\",\"ok\":true,\"result\":{\"name\":\"FROM.STDIN\""),
                    lines[1]);
            assertEquals(2, lines.length, out);

            // the replication's member commands reach the server (here not replicated), for an admin
            FlowCommandAccess.Result member = FlowCommandAccess.runWithInput("ops-pw\n", "admin", "--url", url,
                    "--user", "ops", "--password-stdin", "define", "member", "d", "--address", "mq4:7420");
            String memberErr = member.err();
            assertEquals(1, member.status(), memberErr);
            assertTrue(memberErr.contains("This queue manager is not replicated, so 'define member' has nothing to "
                    + "do"), memberErr);
        } finally {
            realm.close();
        }
    }

    private static String verifier(String password) {
        return org.wharfmq.protocol.auth.ScramCredential.create(password.toCharArray(), 4096,
                new java.security.SecureRandom()).verifier();
    }

    /**
     * Runs wharf in this JVM with {@code stdin}, expects success, returns its standard output without the last line
     * break.
     */
    private static String run(String stdin, String... args) {
        FlowCommandAccess.Result result = FlowCommandAccess.runWithInput(stdin, args);
        assertEquals(0, result.status(), result.err());
        String out = result.out();
        return out.endsWith("\n") ? out.substring(0, out.length() - 1) : out;
    }

    private static Process wharf(String... args) throws IOException {
        return WharfProcess.start(args);
    }
}
