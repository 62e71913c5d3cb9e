package org.wharfmq.server.console;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.wharfmq.server.admin.AdminException;
import org.wharfmq.server.admin.AdminPlugin;
import org.wharfmq.server.admin.AdminProtocol;
import org.wharfmq.server.admin.AdminRequest;
import org.wharfmq.server.config.QueueConfiguration;
import org.wharfmq.server.config.Setting;
import org.wharfmq.server.http.HttpAnswer;
import org.wharfmq.server.http.HttpCall;
import org.wharfmq.server.http.HttpRefusal;
import org.wharfmq.server.http.HttpRoutes;
import org.wharfmq.server.security.AccessControl;
import org.wharfmq.server.security.AuditLog;
import org.wharfmq.server.security.Permission;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The console's JSON API: the admin plugin's commands over HTTP, each at {@code /api/COMMAND}, answering the command's
 * result in the JSON the admin command queue answers (docs/operations.md lists each command, its arguments and answer).
 * A command's arguments are named as in that JSON and the command line ({@code queue}, {@code maxDepth}, ...):
 * <ul>
 *   <li>Commands that only read are GET, their arguments query parameters, and need {@code monitor}
 *       ({@code browse-queue}, which shows what messages hold, needs {@code admin}). They are not audited: the page
 *       asks every few seconds.</li>
 *   <li>Commands that change something are POST, their arguments a JSON object in the body, and need {@code admin};
 *       each is an audit line, as on the command queue. A POST must carry the header {@value #CSRF_HEADER}{@code : 1}
 *       (and, when the browser says where it comes from, come from this site): a page of another site cannot send it,
 *       while the browser would send it the cached login (cross-site request forgery).</li>
 * </ul>
 * An argument a command does not take is refused (400). {@code GET /api/me} says who the caller is and whether they may
 * act, so the page shows the actions only to those who may.
 */
final class ConsoleApi {

    /** The header every POST must carry, with the value {@code 1}. */
    static final String CSRF_HEADER = "X-Wharf-Console";
    /** What the audit line says a console request came from. */
    private static final String ORIGIN = "web console over HTTP";

    /** What define-queue and alter-queue take: a queue's name and its settings, each key of a queue's. */
    private static final String[] QUEUE_SETTINGS = queueSettings();

    /**
     * What define-channel and alter-channel take: a channel's name and its attributes, named as config/wharf.yaml's
     * channels: names them, a TLS option as {@code tlsTrustStore} for {@code tls.trustStore} (docs/distributed.md).
     */
    private static final String[] CHANNEL_ATTRIBUTES = {"channel", "type", "connection", "transmissionQueue", "user",
            "password", "batchSize", "batchBytes", "batchIntervalMillis", "disconnectIntervalMillis", "retryMillis",
            "maxRetryMillis", "heartbeatMillis", "connectTimeoutMillis", "pipelineLength", "partnerUser",
            "partnerCertificate", "partnerQueueManager", "nonPersistentSpeed", "maxBatchAttempts", "tlsTrustStore",
            "tlsTrustStorePassword", "tlsTrustStoreType", "tlsKeyStore", "tlsKeyStorePassword", "tlsKeyStoreType", "tlsVerifyHost",
            "tlsProtocols", "tlsCipherSuites"};

    /** A command the API serves: its name, whether it changes anything, who may run it, the arguments it takes. */
    private record Command(String name, boolean changes, Permission permission, Set<String> arguments) {
    }

    /** What the API serves, in the order docs/operations.md lists it. */
    private static final List<Command> COMMANDS = List.of(
            read("display-server"),
            read("display-queues", "pattern"),
            read("display-queue", "queue"),
            new Command("browse-queue", false, Permission.ADMIN, Set.of("queue", "selector", "limit", "hex")),
            read("display-connections"),
            read("display-subscriptions"),
            read("topics"),
            read("stats", "flow"), // the flow host's: flows with their nodes' statistics (text)
            read("display-prepared"),
            read("display-chstatus"), // the channels': their status
            read("display-channel", "channel"),
            read("display-pubsub"), // the publish/subscribe hierarchy's partners
            change("define-queue", QUEUE_SETTINGS),
            change("alter-queue", QUEUE_SETTINGS),
            change("delete-queue", "queue", "force"),
            change("clear-queue", "queue"),
            change("move", "from", "to", "selector", "limit"),
            change("copy", "from", "to", "selector", "limit"),
            change("end-connection", "connection"),
            change("delete-subscription", "subscription", "clientId"),
            change("define-channel", CHANNEL_ATTRIBUTES),
            change("alter-channel", CHANNEL_ATTRIBUTES),
            change("delete-channel", "channel"),
            change("start-channel", "channel"),
            change("stop-channel", "channel"),
            change("reset-channel", "channel", "sequence"),
            change("resolve-channel", "channel", "action", "batch"),
            // a replicated queue manager's (docs/resilience.md)
            change("switchover", "member"),
            change("define-member", "member", "address"),
            change("delete-member", "member"));

    private final AdminPlugin admin;
    private final AccessControl accessControl;
    private final ObjectMapper json = new ObjectMapper();

    ConsoleApi(AdminPlugin admin, AccessControl accessControl) {
        this.admin = admin;
        this.accessControl = accessControl;
    }

    /** {@code queue}, then each key of a queue's ({@link QueueConfiguration}) but its name. */
    private static String[] queueSettings() {
        List<String> arguments = new ArrayList<>(List.of("queue"));
        for (Setting<?> key : Setting.declaredIn(QueueConfiguration.class)) {
            if (key != QueueConfiguration.NAME) {
                arguments.add(key.key());
            }
        }
        return arguments.toArray(String[]::new);
    }

    private static Command read(String name, String... arguments) {
        return new Command(name, false, Permission.MONITOR, Set.of(arguments));
    }

    private static Command change(String name, String... arguments) {
        return new Command(name, true, Permission.ADMIN, Set.of(arguments));
    }

    /** Registers the API's routes; closing the registrations removes them. */
    List<HttpRoutes.Registration> register(HttpRoutes routes) {
        List<HttpRoutes.Registration> registrations = new ArrayList<>();
        registrations.add(routes.get("/api/me", Permission.MONITOR, call -> {
            Map<String, Object> me = new LinkedHashMap<>();
            me.put("user", call.who().user());
            me.put("admin", accessControl.allows(call.who(), Permission.ADMIN, null));
            return HttpAnswer.json(me);
        }));
        for (Command command : COMMANDS) {
            String path = "/api/" + command.name();
            registrations.add(command.changes()
                    ? routes.post(path, command.permission(), call -> change(command, call))
                    : routes.get(path, command.permission(), call -> read(command, call)));
        }
        return registrations;
    }

    private HttpAnswer read(Command command, HttpCall call) throws Exception {
        Map<String, Object> arguments = new HashMap<>();
        call.query().forEach((name, values) -> arguments.put(argument(command, name), values.get(0)));
        try {
            return HttpAnswer.json(admin.read(AdminRequest.of(command.name(), call.who().user(), ORIGIN, arguments)));
        } catch (AdminException e) {
            throw refusal(e);
        }
    }

    private HttpAnswer change(Command command, HttpCall call) throws Exception {
        checkSameSite(call);
        Map<String, Object> arguments = new HashMap<>();
        JsonNode body = body(call);
        for (Iterator<Map.Entry<String, JsonNode>> fields = body.fields(); fields.hasNext(); ) {
            Map.Entry<String, JsonNode> field = fields.next();
            arguments.put(argument(command, field.getKey()), value(field.getKey(), field.getValue()));
        }
        try {
            return HttpAnswer.json(admin.run(AdminRequest.of(command.name(), call.who().user(), ORIGIN, arguments)));
        } catch (AdminException e) {
            throw refusal(e);
        }
    }

    /**
     * Refuses a POST a page of another site could have made: one without {@value #CSRF_HEADER} (which such a page
     * cannot send without the server's leave, which it never gives), or one the browser says comes from another site.
     */
    private static void checkSameSite(HttpCall call) {
        if (!"1".equals(call.header(CSRF_HEADER))) {
            throw refused(call, "it lacks the header " + CSRF_HEADER + ": 1, which the console sends and a page of"
                    + " another site cannot (protection against cross-site request forgery). Scripts send it too: curl"
                    + " -H '" + CSRF_HEADER + ": 1' ...");
        }
        String site = call.header("Sec-Fetch-Site");
        if (site != null && !site.equals("same-origin") && !site.equals("none")) {
            throw refused(call, "the browser says it comes from another site (Sec-Fetch-Site: "
                    + (site.length() > 40 ? site.substring(0, 40) + "..." : site) + "); the console's actions are"
                    + " taken from its own page only.");
        }
    }

    /** A POST refused as one another site's page could have made: audited (a forgery tried), and answered 403. */
    private static HttpRefusal refused(HttpCall call, String why) {
        String what = "POST " + call.path() + " refused: " + why;
        AuditLog.refused(call.who(), call.from(), what);
        return new HttpRefusal(403, what);
    }

    private JsonNode body(HttpCall call) {
        if (call.body().length == 0) {
            return json.createObjectNode();
        }
        JsonNode body;
        try {
            body = json.readTree(call.body());
        } catch (IOException e) { // JsonProcessingException: nothing else is read
            throw new IllegalArgumentException("The body of POST " + call.path() + " is not JSON ("
                    + (e instanceof JsonProcessingException j ? j.getOriginalMessage() : e) + "): send the arguments as an object, e.g. {\"queue\": \"ORDERS\"}.");
        }
        if (body == null || !body.isObject()) {
            throw new IllegalArgumentException("The body of POST " + call.path() + " must be a JSON object of the "
                    + "command's arguments, e.g. {\"queue\": \"ORDERS\"}.");
        }
        return body;
    }

    /** The property that carries argument {@code name} of {@code command}; an argument it does not take is refused. */
    private static String argument(Command command, String name) {
        if (!command.arguments().contains(name)) {
            throw new IllegalArgumentException("'" + command.name() + "' takes " + (command.arguments().isEmpty()
                    ? "no arguments" : "the arguments " + String.join(", ", command.arguments().stream().sorted()
                    .toList())) + ", not '" + name + "'.");
        }
        return AdminRequest.propertyOf(name);
    }

    /** An argument's JSON value as the command reads it: text, a whole number or a yes/no. */
    private static Object value(String name, JsonNode value) {
        if (value.isTextual()) {
            return value.asText();
        }
        if (value.isIntegralNumber() && value.canConvertToLong()) {
            return value.asLong();
        }
        if (value.isBoolean()) {
            return value.asBoolean();
        }
        if (value.isNull()) {
            return null;
        }
        throw new IllegalArgumentException("Argument '" + name + "' must be text, a whole number or true/false, not "
                + value + ".");
    }

    /** An admin command's refusal as an HTTP one: unknown 404, bad arguments 400, anything else 409. */
    private static HttpRefusal refusal(AdminException e) {
        int status = switch (e.reason()) {
            case AdminProtocol.UNKNOWN -> 404;
            case AdminProtocol.INVALID -> 400;
            default -> 409;
        };
        return new HttpRefusal(status, e.getMessage());
    }
}
