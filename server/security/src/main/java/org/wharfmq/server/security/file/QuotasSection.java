package org.wharfmq.server.security.file;

import com.fasterxml.jackson.databind.JsonNode;
import org.wharfmq.server.config.ConfigurationException;
import org.wharfmq.server.security.PermissionRules;
import org.wharfmq.server.security.Quota;
import org.wharfmq.server.security.QuotaRules;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The {@code quotas:} and {@code clientIds:} sections of the security file (docs/security.md, "Quotas"):
 * {@code quotas:} maps {@code default}, {@code user:NAME} and {@code group:NAME} to the quotas each sets
 * ({@code createdQueues}, {@code temporaryQueues}, {@code connections}, {@code rejectsPerMinute}: a number from 0, or
 * {@code unlimited}); {@code clientIds:} maps a client id (or a pattern with {@code *}) to the user or group it is
 * kept for (one grantee or a list). See {@link QuotaRules} for which quota applies to whom.
 */
final class QuotasSection {

    private QuotasSection() {
    }

    /**
     * Reads both sections (each may be missing or null).
     *
     * @throws ConfigurationException naming the entry and what is wrong with it
     */
    static QuotaRules read(JsonNode quotas, JsonNode clientIds) {
        Map<Quota, Integer> defaults = Map.of();
        List<QuotaRules.Entry> entries = new ArrayList<>();
        if (quotas != null && !quotas.isNull()) {
            if (!quotas.isObject()) {
                throw new ConfigurationException("'quotas' must map default, user:NAME or group:NAME to quotas, such as"
                        + " default: {createdQueues: 1000}");
            }
            for (Iterator<Map.Entry<String, JsonNode>> it = quotas.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                String key = e.getKey();
                if (key.equals("default")) {
                    defaults = values(e.getValue(), "quotas.default");
                    continue;
                }
                PermissionRules.Grantee who;
                try {
                    who = PermissionRules.Grantee.parse(key);
                } catch (ConfigurationException bad) {
                    throw new ConfigurationException("'quotas." + key + "': write default, user:NAME or group:NAME");
                }
                entries.add(new QuotaRules.Entry(who, values(e.getValue(), "quotas.\"" + key + "\"")));
            }
        }
        return new QuotaRules(defaults, entries, reservations(clientIds), true);
    }

    private static Map<Quota, Integer> values(JsonNode node, String where) {
        if (node == null || !node.isObject()) {
            throw new ConfigurationException("'" + where + "' must map quotas to numbers, such as {createdQueues: 100}");
        }
        Map<Quota, Integer> values = new EnumMap<>(Quota.class);
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            Quota quota = quota(e.getKey(), where);
            JsonNode value = e.getValue();
            if (value.isTextual() && value.asText().equals("unlimited")) {
                values.put(quota, QuotaRules.UNLIMITED);
            } else if (value.isIntegralNumber() && value.canConvertToInt() && value.asInt() >= 0) {
                values.put(quota, value.asInt());
            } else {
                throw new ConfigurationException("'" + where + "." + e.getKey() + "' must be a number from 0 or"
                        + " unlimited, was " + value);
            }
        }
        return values;
    }

    private static Quota quota(String key, String where) {
        List<String> known = new ArrayList<>();
        for (Quota q : Quota.values()) {
            if (q.key().equals(key)) {
                return q;
            }
            known.add(q.key());
        }
        throw new ConfigurationException("Unknown key '" + where + "." + key + "'. Known keys here: "
                + String.join(", ", known));
    }

    private static List<QuotaRules.Reservation> reservations(JsonNode clientIds) {
        List<QuotaRules.Reservation> result = new ArrayList<>();
        if (clientIds == null || clientIds.isNull()) {
            return result;
        }
        if (!clientIds.isObject()) {
            throw new ConfigurationException("'clientIds' must map each client id (or pattern with *) to the user or"
                    + " group it is kept for, such as \"orders-*\": user:orders");
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = clientIds.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String where = "clientIds.\"" + e.getKey() + "\"";
            List<PermissionRules.Grantee> owners = new ArrayList<>();
            JsonNode value = e.getValue();
            if (value != null && value.isTextual()) {
                owners.add(grantee(value.asText(), where));
            } else if (value != null && value.isArray()) {
                for (JsonNode item : value) {
                    owners.add(grantee(item.isTextual() ? item.asText() : item.toString(), where));
                }
            } else {
                throw new ConfigurationException("'" + where + "' must name the user or group it is kept for, such as"
                        + " user:orders or [group:billing], was " + value);
            }
            result.add(new QuotaRules.Reservation(e.getKey(), owners));
        }
        return result;
    }

    private static PermissionRules.Grantee grantee(String text, String where) {
        try {
            return PermissionRules.Grantee.parse(text);
        } catch (ConfigurationException bad) {
            throw new ConfigurationException("'" + where + "': " + bad.getMessage());
        }
    }
}
