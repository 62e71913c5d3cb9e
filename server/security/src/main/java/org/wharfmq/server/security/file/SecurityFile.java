package org.wharfmq.server.security.file;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import org.wharfmq.protocol.auth.ScramCredential;
import org.wharfmq.server.config.ConfigurationException;
import org.wharfmq.server.security.Authenticator;
import org.wharfmq.server.security.PermissionRules;
import org.wharfmq.server.security.QuotaRules;

import javax.security.auth.x500.X500Principal;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One reading of the security file: its users, whether anonymous clients are allowed, its login module, its
 * permission rules and which TLS client certificates log in as which user. Keys that are not the file's are errors
 * naming the key.
 *
 * @param users          user name to verifier and groups, in file order
 * @param certificateUsers the {@code certificateUsers:} mapping, a client certificate's subject to a user of
 *                       {@code users} (the EXTERNAL mechanism); subjects compare as {@link X500Principal}s, so
 *                       {@code CN=a, O=b} and {@code cn=a,o=b} are the same subject
 * @param allowAnonymous whether clients without a user may connect from anywhere
 * @param jaas           the login module checking PLAIN, or null
 * @param permissions    the {@code permissions:} rules ({@link PermissionsSection}); null when the file has no such
 *                       key, and then every client that may connect may do everything (said in the log at start)
 * @param quotas         the {@code quotas:} per user and the client ids {@code clientIds:} keeps
 *                       ({@link QuotasSection}); the built-in defaults when the file has neither
 */
public record SecurityFile(Map<String, Authenticator.User> users, Map<X500Principal, String> certificateUsers,
                           boolean allowAnonymous, Jaas jaas, PermissionRules permissions, QuotaRules quotas) {

    /** The top-level keys of the file. */
    static final List<String> KEYS = List.of("users", "allowAnonymous", "jaas", "permissions", "certificateUsers",
            "quotas", "clientIds");

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    /**
     * The {@code jaas:} section: the login module that checks PLAIN logins.
     *
     * @param entry      the entry in the JAAS configuration file ({@code -Djava.security.auth.login.config})
     * @param groupsFrom the principal classes whose names are the user's groups
     */
    public record Jaas(String entry, List<String> groupsFrom) {
        public Jaas {
            groupsFrom = List.copyOf(groupsFrom);
        }
    }

    public SecurityFile {
        users = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(users));
        certificateUsers = Map.copyOf(certificateUsers);
    }

    /**
     * Reads the file.
     *
     * @throws ConfigurationException naming the file, the key and what is wrong with it (never quoting a password)
     */
    public static SecurityFile load(Path file) {
        String text;
        try {
            text = Files.readString(file);
        } catch (NoSuchFileException e) {
            throw new ConfigurationException("Security file " + file + " does not exist (setting security.file).");
        } catch (IOException e) {
            throw new ConfigurationException("Cannot read security file " + file + ": " + e, e);
        }
        try {
            return parse(text);
        } catch (ConfigurationException e) {
            throw new ConfigurationException(e.getMessage() + " (in security file " + file + ")");
        }
    }

    /** Reads the file's text; see {@link #load}. */
    static SecurityFile parse(String text) {
        JsonNode root;
        try {
            root = YAML.readTree(text);
        } catch (JacksonException e) {
            throw new ConfigurationException("Not valid YAML" + (e.getLocation() == null ? "" : " at line "
                    + e.getLocation().getLineNr()) + ": " + e.getOriginalMessage());
        }
        if (root == null || root.isMissingNode() || root.isNull()) {
            return new SecurityFile(Map.of(), Map.of(), false, null, null, QuotaRules.DEFAULTS);
        }
        if (!root.isObject()) {
            throw new ConfigurationException("The security file must be a map of keys (" + String.join(", ", KEYS) + ")");
        }
        checkKeys(root, KEYS, "");
        JsonNode permissions = root.get("permissions");
        Map<String, Authenticator.User> users = users(root.get("users"));
        return new SecurityFile(users, certificateUsers(root.get("certificateUsers"), users),
                bool(root.get("allowAnonymous"), "allowAnonymous"),
                jaas(root.get("jaas")), permissions == null || permissions.isNull() ? null
                : PermissionsSection.read(permissions), QuotasSection.read(root.get("quotas"), root.get("clientIds")));
    }

    private static Map<String, Authenticator.User> users(JsonNode users) {
        Map<String, Authenticator.User> result = new LinkedHashMap<>();
        if (users == null || users.isNull()) {
            return result;
        }
        if (!users.isObject()) {
            throw new ConfigurationException("'users' must map each user name to its password and groups");
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = users.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String name = e.getKey();
            JsonNode user = e.getValue();
            String where = "users." + name;
            if (name.isEmpty()) {
                throw new ConfigurationException("A user name under 'users' is empty");
            }
            if (user == null || !user.isObject()) {
                throw new ConfigurationException("'" + where + "' must have a password (and may have groups)");
            }
            checkKeys(user, List.of("password", "groups"), where + ".");
            JsonNode password = user.get("password");
            if (password == null || !password.isTextual()) {
                throw new ConfigurationException("'" + where + ".password' is missing: set it with 'bin/wharf user passwd "
                        + name + "'");
            }
            ScramCredential credential;
            try {
                credential = ScramCredential.parse(password.asText());
            } catch (IllegalArgumentException bad) {
                throw new ConfigurationException("'" + where + ".password' is " + bad.getMessage());
            }
            result.put(name, new Authenticator.User(credential, Set.copyOf(strings(user.get("groups"), where + ".groups"))));
        }
        return result;
    }

    /**
     * The {@code certificateUsers:} map: each key a certificate subject in RFC 2253 form (as
     * {@code X500Principal.getName()} prints it), each value a user of {@code users:}.
     */
    private static Map<X500Principal, String> certificateUsers(JsonNode mapping, Map<String, Authenticator.User> users) {
        Map<X500Principal, String> result = new LinkedHashMap<>();
        if (mapping == null || mapping.isNull()) {
            return result;
        }
        if (!mapping.isObject()) {
            throw new ConfigurationException("'certificateUsers' must map each client certificate's subject to a user,"
                    + " such as \"CN=billing,O=Example\": billing");
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = mapping.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String where = "certificateUsers.\"" + e.getKey() + "\"";
            X500Principal subject;
            try {
                subject = new X500Principal(e.getKey());
            } catch (IllegalArgumentException bad) {
                throw new ConfigurationException("'" + where + "' is not a certificate subject (" + bad.getMessage()
                        + "): write it as RFC 2253 does, such as \"CN=billing,O=Example\"");
            }
            JsonNode user = e.getValue();
            if (user == null || !user.isTextual() || user.asText().isEmpty()) {
                throw new ConfigurationException("'" + where + "' must name a user of 'users', was " + user);
            }
            if (!users.containsKey(user.asText())) {
                throw new ConfigurationException("'" + where + "' names user '" + user.asText() + "', which is not under"
                        + " 'users': add the user (bin/wharf user add " + user.asText() + ") or correct the name");
            }
            String earlier = result.put(subject, user.asText());
            if (earlier != null) {
                throw new ConfigurationException("'" + where + "' is the same subject as an earlier entry (mapped to '"
                        + earlier + "'): a certificate may log in as one user only; keep one of the two");
            }
        }
        return result;
    }

    private static Jaas jaas(JsonNode jaas) {
        if (jaas == null || jaas.isNull()) {
            return null;
        }
        if (!jaas.isObject()) {
            throw new ConfigurationException("'jaas' must have an entry (and may have groupsFrom)");
        }
        checkKeys(jaas, List.of("entry", "groupsFrom"), "jaas.");
        JsonNode entry = jaas.get("entry");
        if (entry == null || !entry.isTextual() || entry.asText().isBlank()) {
            throw new ConfigurationException("'jaas.entry' must name an entry of the JAAS configuration file"
                    + " (-Djava.security.auth.login.config)");
        }
        return new Jaas(entry.asText(), strings(jaas.get("groupsFrom"), "jaas.groupsFrom"));
    }

    private static boolean bool(JsonNode node, String key) {
        if (node == null || node.isNull()) {
            return false;
        }
        if (!node.isBoolean()) {
            throw new ConfigurationException("'" + key + "' must be true or false, was " + node);
        }
        return node.asBoolean();
    }

    private static List<String> strings(JsonNode node, String key) {
        List<String> result = new ArrayList<>();
        if (node == null || node.isNull()) {
            return result;
        }
        if (!node.isArray()) {
            throw new ConfigurationException("'" + key + "' must be a list, such as [a, b]");
        }
        for (JsonNode item : node) {
            if (!item.isTextual() || item.asText().isEmpty()) {
                throw new ConfigurationException("'" + key + "' must list non-empty names, has " + item);
            }
            result.add(item.asText());
        }
        return result;
    }

    private static void checkKeys(JsonNode node, List<String> known, String prefix) {
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String key = it.next();
            if (!known.contains(key)) {
                throw new ConfigurationException("Unknown key '" + prefix + key + "'. Known keys here: "
                        + String.join(", ", known));
            }
        }
    }

    /** Where anonymous clients may connect from under these rules (docs/security.md, "Secure defaults"). */
    public Authenticator.AnonymousAccess anonymousAccess() {
        if (allowAnonymous) {
            return Authenticator.AnonymousAccess.ANYWHERE;
        }
        return users.isEmpty() && jaas == null ? Authenticator.AnonymousAccess.LOOPBACK : Authenticator.AnonymousAccess.NOWHERE;
    }
}
