package org.wharfmq.server.cli;

import com.fasterxml.jackson.databind.JsonNode;
import org.wharfmq.server.channels.ChannelStatus;
import org.wharfmq.server.queue.QueueOrigin;

import java.io.PrintWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What {@code wharf admin} prints for people, from the server's JSON answers (docs/operations.md shows each): tables
 * for lists, one {@code name  value} line per field for one thing, and sentences for changes. Sizes are shown in
 * KiB/MiB/GiB, ages and uptimes in the largest units that fit; {@code --json} prints the answers as they are.
 */
final class AdminOutput {

    /** Bytes of a body per line of a hex dump. */
    private static final int HEX_LINE_BYTES = 16;

    private AdminOutput() {
    }

    static void queues(JsonNode queues, PrintWriter out) {
        if (queues.isEmpty()) {
            out.println("No queues match.");
            return;
        }
        Table table = new Table("QUEUE", ">DEPTH", ">MAX", ">CONS", ">PROD", ">OLDEST", ">ENQUEUED", ">DEQUEUED",
                ">EXPIRED", ">DEADLETTERED", "ORIGIN");
        for (JsonNode q : queues) {
            table.row(q.get("name").asText(), q.get("depth").asLong(), q.get("maxDepth").asLong(),
                    q.get("consumers").asInt(), q.get("producers").asInt(), age(q.get("oldestMessageAgeMillis")),
                    q.get("enqueued").asLong(), q.get("dequeued").asLong(), q.get("expired").asLong(),
                    q.get("deadLettered").asLong(), origin(q).toLowerCase(Locale.ROOT).replace('_', ' '));
        }
        table.print(out);
    }

    static void queue(JsonNode q, PrintWriter out) {
        out.println("Queue " + q.get("name").asText() + " (" + QueueOrigin.valueOf(origin(q)).description() + ")");
        Fields fields = new Fields();
        fields.add("depth", q.get("depth").asLong());
        fields.add("max depth", q.get("maxDepth").asLong() + (q.get("ownMaxDepth").asBoolean() ? " (its own)"
                : " (the server-wide maxQueueDepth)"));
        fields.add("consumers", q.get("consumers").asInt());
        fields.add("browsers", q.get("browsers").asInt());
        fields.add("producers", q.get("producers").asInt());
        fields.add("oldest message", age(q.get("oldestMessageAgeMillis")));
        fields.add("enqueued", q.get("enqueued").asLong());
        fields.add("dequeued", q.get("dequeued").asLong());
        fields.add("expired", q.get("expired").asLong());
        fields.add("dead-lettered", q.get("deadLettered").asLong());
        fields.add("in memory", q.get("memoryBytes").asLong() + " bytes");
        fields.add("paged", q.get("paged").asLong() + " messages on disk (" + q.get("pagedBytes").asLong() + " bytes)");
        JsonNode failure = q.path("pagingFailure");
        if (!failure.isMissingNode() && !failure.isNull()) {
            fields.add("paging", "STOPPED: " + failure.asText() + " (tries again every second; free disk space)");
        }
        JsonNode settings = q.get("settings");
        fields.add("backout", settings.path("backoutThreshold").isNull() ? "never"
                : "after " + settings.get("backoutThreshold").asInt() + " backouts, to "
                + settings.path("backoutQueue").asText("SYSTEM.DEAD.LETTER.QUEUE"));
        String others = otherSettings(settings);
        fields.add("settings", others.isEmpty() ? "the defaults" : others);
        fields.print(out);
    }

    private static String origin(JsonNode q) {
        return q.get("origin").asText();
    }

    /** The HTTP listener's line of {@code display server}: where it listens and whether with TLS, or that it is off. */
    private static String httpListener(JsonNode http) {
        if (http.isNull()) {
            return "off (no http: block in the configuration: no web console, admin API or metrics over HTTP)";
        }
        if (http.path("url").isNull()) {
            return "not listening yet (it opens once the other plugins have started)";
        }
        return http.get("url").asText() + (http.path("tls").asBoolean() ? " (HTTPS, with the tls: block's key)"
                : " (plain HTTP, no TLS)") + ": web console, admin API (/api/COMMAND), metrics";
    }

    static void server(JsonNode s, PrintWriter out) {
        out.println("Queue manager " + s.get("name").asText() + " (Wharf " + s.get("version").asText() + ")");
        Fields fields = new Fields();
        fields.add("started", Instant.ofEpochMilli(s.get("startedAt").asLong()) + " (up "
                + duration(s.get("uptimeMillis").asLong()) + ")");
        StringBuilder listeners = new StringBuilder();
        s.get("listeners").forEach(l -> listeners.append(listeners.length() == 0 ? "" : ", ").append(l.asText()));
        // a replica's own status: none until it is elected (its client ports answer this status alone)
        fields.add("listeners", listeners.length() > 0 ? listeners
                : "none: a replica, which serves no applications until it is elected active");
        if (s.has("http")) { // the queue manager's HTTP listener, as wharf server runs it (not a replica's own)
            fields.add("http listener", httpListener(s.get("http")));
        }
        fields.add("data directory", s.get("dataDirectory").asText());
        // a replica's own status (over its HTTP listener) has no queue manager's: no journal, queues or connections
        if (s.has("journalBytes")) {
            long journal = s.get("journalBytes").asLong();
            fields.add("journal", journal < 0 ? "none (messages kept in memory)" : bytes(journal));
            fields.add("queues", s.get("queues").asInt());
            fields.add("subscriptions", s.get("subscriptions").asInt());
            fields.add("connections", s.get("connections").asInt());
        }
        fields.add("heap", bytes(s.get("heapUsedBytes").asLong()) + " of " + bytes(s.get("heapMaxBytes").asLong()));
        if (s.has("directUsedBytes")) {
            fields.add("direct memory", bytes(s.get("directUsedBytes").asLong()));
        }
        if (s.has("memoryUsedBytes")) {
            fields.add("message memory", bytes(s.get("memoryUsedBytes").asLong()) + " of "
                    + bytes(s.get("memoryMaxBytes").asLong()) + " (maxMemoryBytes)");
        }
        JsonNode r = s.get("replication");
        if (r != null && !r.isNull()) {
            fields.add("replication", "member " + r.get("member").asText() + " of group " + r.get("group").asText()
                    + ", " + r.get("role").asText() + " (active: " + text(r.get("active")) + ", term "
                    + r.get("term").asLong() + ")");
            StringBuilder members = new StringBuilder();
            r.get("behind").fields().forEachRemaining(m -> members.append(members.length() == 0 ? "" : ", ")
                    .append(m.getKey()).append(' ').append(memberState(r, m.getKey(), m.getValue().asLong())));
            fields.add("in sync", r.get("inSync").asInt() + "/" + r.get("members").size()
                    + (members.length() == 0 ? "" : " (" + members + ")"));
            fields.add("backlog", bytes(r.get("backlogBytes").asLong()));
            fields.add("last applied", r.get("appliedIndex").asLong() + " (committed " + r.get("committedIndex").asLong()
                    + ")");
            if (r.has("logStartIndex")) {
                long snapshot = r.get("snapshotIndex").asLong();
                long installed = r.get("snapshotsInstalled").asLong();
                fields.add("log", "from index " + r.get("logStartIndex").asLong() + ", latest snapshot "
                        + (snapshot < 0 ? "none" : "at " + snapshot) + (installed == 0 ? ""
                        : ", " + installed + " installed from the active member since this member started"));
            }
            if (r.has("journalFiles") && r.get("journalFiles").asInt() >= 0) {
                int files = r.get("journalFiles").asInt();
                fields.add("journal", bytes(r.get("journalBytes").asLong()) + " in " + files
                        + (files == 1 ? " file" : " files") + " (this replica's)");
            }
            StringBuilder group = new StringBuilder();
            r.get("members").fields().forEachRemaining(m -> group.append(group.length() == 0 ? "" : ", ")
                    .append(m.getKey()).append(" ").append(m.getValue().asText()));
            fields.add("members", group);
            StringBuilder contact = new StringBuilder();
            r.get("lastContactMillis").fields().forEachRemaining(m -> contact.append(contact.length() == 0 ? "" : ", ")
                    .append(m.getKey()).append(" ").append(duration(m.getValue().asLong())).append(" ago"));
            if (contact.length() > 0) {
                fields.add("last contact", contact);
            }
        }
        fields.print(out);
    }

    /**
     * Where a member of a replicated queue manager stands, as the member answering sees it: unreachable (the active
     * member has had no answer from it within the election timeout: down or cut off, with when it last answered), in
     * sync, not heard from, or catching up (entries behind and, on the active member, the bytes it lacks).
     */
    static String memberState(JsonNode r, String id, long entries) {
        JsonNode unreachable = r.path("unreachable");
        for (JsonNode member : unreachable) {
            if (member.asText().equals(id)) {
                JsonNode contact = r.path("lastContactMillis").get(id);
                return "unreachable (down or cut off): " + (contact == null ? "no answer since this member became active"
                        : "last answer " + duration(contact.asLong()) + " ago")
                        + (entries > 0 ? ", " + entries + " behind" : "");
            }
        }
        if (entries == 0) {
            return "in sync";
        }
        if (entries < 0) {
            return "not heard from";
        }
        JsonNode lacking = r.path("behindBytes").get(id);
        return "catching up: " + entries + " behind" + (lacking == null ? "" : ", " + bytes(lacking.asLong()));
    }

    static void connections(JsonNode connections, PrintWriter out) {
        if (connections.isEmpty()) {
            out.println("No connections.");
            return;
        }
        Table table = new Table(">ID", "USER", "ADDRESS", "VIA", "CLIENT ID", ">SESSIONS", ">CONS", ">PROD", ">IN",
                ">OUT", "SINCE");
        long now = System.currentTimeMillis();
        for (JsonNode c : connections) {
            table.row(c.get("id").asLong(), text(c.get("user")), c.get("address").asText(), c.get("transport").asText(),
                    text(c.get("clientId")), c.get("sessions").asInt(), c.get("consumers").asInt(),
                    c.get("producers").asInt(), bytes(c.get("bytesIn").asLong()), bytes(c.get("bytesOut").asLong()),
                    duration(now - c.get("connectedAt").asLong()) + " ago");
        }
        table.print(out);
    }

    static void ended(JsonNode c, PrintWriter out) {
        out.println("Ended connection " + c.get("id").asLong() + " (" + (c.get("user").isNull() ? "anonymous"
                : "user '" + c.get("user").asText() + "'") + " from " + c.get("address").asText() + ").");
    }

    static void subscriptions(JsonNode subscriptions, PrintWriter out) {
        if (subscriptions.isEmpty()) {
            out.println("No subscriptions.");
            return;
        }
        Table table = new Table("TOPIC", "SUBSCRIPTION", "CLIENT ID", "KIND", ">CONS", ">DEPTH", ">MISSED", "OWNER",
                "SELECTOR");
        for (JsonNode s : subscriptions) {
            table.row(s.get("topic").asText(), text(s.get("name")), text(s.get("clientId")),
                    (s.get("durable").asBoolean() ? "durable" : "non-durable") + (s.get("shared").asBoolean()
                            ? " shared" : ""), s.get("consumers").asInt(), s.get("depth").asLong(),
                    s.get("missed").asLong(), text(s.get("owner")), text(s.get("selector")));
        }
        table.print(out);
    }

    /**
     * The settings in force, the queue manager's and its components', one a line: key (its path) and value, under
     * where they came from (the configuration file, the built-in defaults, the command line's overrides).
     */
    static void settings(JsonNode answer, PrintWriter out) {
        out.println("Settings in force, from " + answer.get("source").asText());
        Fields fields = new Fields();
        answer.get("settings").fields().forEachRemaining(setting -> fields.add(setting.getKey(),
                setting.getValue().isNull() ? null : setting.getValue().asText()));
        fields.print(out);
    }

    /** The queue aliases, remote queues and queue-manager aliases. */
    static void names(JsonNode names, PrintWriter out) {
        if (names.isEmpty()) {
            out.println("No queue aliases or remote definitions.");
            return;
        }
        Table table = new Table("NAME", "TYPE", "TARGET", "REMOTE QUEUE", "REMOTE QMGR", "XMITQ", "ORIGIN");
        for (JsonNode n : names) {
            boolean qmgrAlias = n.get("type").asText().equals("remote") && n.path("remoteQueue").isNull();
            table.row(n.get("name").asText(), qmgrAlias ? "qmgr alias" : n.get("type").asText(), text(n.get("target")),
                    text(n.get("remoteQueue")), text(n.get("remoteQueueManager")),
                    text(n.get("transmissionQueue")), n.get("origin").asText().equals("CONFIGURATION")
                            ? "configuration" : "defined");
        }
        table.print(out);
    }

    /** "Defined remote ORDERS.REMOTE: remote queue ORDERS on QM2." */
    static void nameChanged(String verb, JsonNode n, PrintWriter out) {
        out.println(verb + " " + n.get("type").asText() + " " + n.get("name").asText() + ": "
                + n.get("description").asText() + ".");
    }

    /**
     * The channels' status, senders first: state, in doubt, what they moved, their transmission queue's depth, the
     * nonPersistentSpeed agreed with the partner connected now.
     */
    static void chstatus(JsonNode channels, PrintWriter out) {
        if (channels.isEmpty()) {
            out.println("No channels (channels: in config/wharf.yaml, or wharf admin define channel).");
            return;
        }
        Table table = new Table("CHANNEL", "TYPE", "STATE", "INDOUBT", "PARTNER", "XMITQ", ">DEPTH", ">MESSAGES",
                ">BYTES", ">BATCHES", ">SEQUENCE", ">LAST BATCH", "NPMSPEED");
        for (JsonNode c : channels) {
            boolean sender = c.get("type").asText().equals("sender");
            table.row(c.get("name").asText(), c.get("type").asText(), c.get("state").asText(),
                    sender ? (c.path("inDoubt").asBoolean() ? "YES" : "NO") : "-", orDash(c.get("partner")),
                    orDash(c.get("transmissionQueue")), orDash(c.get("transmissionQueueDepth")),
                    c.get("messages").asLong(), c.path("bytes").asLong(), c.path("batches").asLong(),
                    c.get("sequence").asLong(), c.get("lastBatchId").asLong(), orDash(c.get("nonPersistentSpeed")));
        }
        table.print(out);
        for (JsonNode c : channels) {
            if (text(c.get("reason")) != null) { // a channel that stopped by itself: why, and the fix
                out.println("Channel " + c.get("name").asText() + " stopped: " + text(c.get("reason")));
            }
            if (!c.path("batchesInDoubt").isEmpty()) { // what an operator compares before resolving by hand
                inDoubt(c.get("name").asText(), c.path("batchesInDoubt"), out);
            }
        }
    }

    /**
     * A sender's batches in doubt ({@code display chstatus}): each with its messages, its sequence numbers and the
     * command that resolves it by the receiver's LAST BATCH; the oldest is committed first, the newest backed out
     * first.
     */
    private static void inDoubt(String name, JsonNode batches, PrintWriter out) {
        List<ChannelStatus.BatchInDoubt> each = new ArrayList<>();
        batches.forEach(b -> each.add(new ChannelStatus.BatchInDoubt(b.get("batch").asLong(),
                b.hasNonNull("firstSequence") ? b.get("firstSequence").asLong() : null,
                b.hasNonNull("lastSequence") ? b.get("lastSequence").asLong() : null, b.path("messages").asInt())));
        if (each.size() == 1) {
            out.println("Channel " + name + " has " + each.get(0).describe() + " in doubt: it settles it with its"
                    + " receiver when it runs again; when the receiver cannot be asked, " + each.get(0).byHand(name,
                    false) + ".");
            return;
        }
        out.println("Channel " + name + " has " + each.size() + " batches in doubt: it settles them with its receiver"
                + " when it runs again. When the receiver cannot be asked, resolve each by the receiver's LAST BATCH,"
                + " the oldest committed first, the newest backed out first:");
        for (ChannelStatus.BatchInDoubt b : each) {
            out.println("  " + b.describe() + ": " + b.byHand(name, true));
        }
    }

    /** The publish/subscribe hierarchy: this queue manager's parent and children, a line each, then any error. */
    static void pubsub(JsonNode h, PrintWriter out) {
        JsonNode partners = h.path("partners");
        if (partners.isEmpty()) {
            out.println("Queue manager " + h.path("queueManager").asText() + " is in no publish/subscribe hierarchy"
                    + " (hierarchy: in config/wharf.yaml, docs/distributed.md).");
            return;
        }
        Table table = new Table("QUEUE MANAGER", "RELATION", "STATE", ">PROXY SUBS", ">TOPICS SENT", ">SETS RECEIVED",
                ">FORWARDED", "CHANNEL");
        for (JsonNode p : partners) {
            table.row(p.get("queueManager").asText(), p.get("relation").asText(), p.get("state").asText(),
                    p.get("proxySubscriptions").asLong(), orDash(p.get("subscriptionsSent")),
                    p.get("subscriptionSetsReceived").asLong(), p.get("publicationsForwarded").asLong(),
                    senders(p.path("channels")));
        }
        table.print(out);
        for (JsonNode p : partners) {
            String partner = "Queue manager " + p.get("queueManager").asText() + ": ";
            if (text(p.get("reason")) != null) {
                out.println(partner + text(p.get("reason")));
            }
            if (text(p.get("refused")) != null) {
                out.println(partner + "proxy subscriptions refused: " + text(p.get("refused")));
            }
            if (p.path("channels").isEmpty()) {
                out.println(partner + (text(p.get("transmissionQueue")) == null ? "no transmission queue leads to it"
                        : "no sender channel serves its transmission queue " + text(p.get("transmissionQueue"))
                        + ": what is sent to it waits there") + " (docs/distributed.md).");
            }
        }
    }

    /** The sender channels to a partner of the hierarchy, with their states: "QM1.TO.QM2 RUNNING", or "-". */
    private static String senders(JsonNode channels) {
        List<String> all = new ArrayList<>();
        for (JsonNode c : channels) {
            all.add(c.get("name").asText() + " " + c.get("state").asText());
        }
        return all.isEmpty() ? "-" : String.join(", ", all);
    }

    /** Channel definitions, each with every attribute (secrets as ***), as IBM MQ's DISPLAY CHANNEL lists them. */
    static void channels(JsonNode channels, PrintWriter out) {
        if (channels.isEmpty()) {
            out.println("No channels (channels: in config/wharf.yaml, or wharf admin define channel).");
            return;
        }
        boolean first = true;
        for (JsonNode c : channels) {
            if (!first) {
                out.println();
            }
            first = false;
            channel(c, out);
        }
    }

    /** One channel's definition: "Channel TO.QM2 (sender, defined at run time)", then its attributes. */
    static void channel(JsonNode c, PrintWriter out) {
        out.println("Channel " + c.get("name").asText() + " (" + c.get("type").asText() + ", "
                + c.get("origin").asText() + (c.path("stopped").asBoolean() ? ", stopped by an operator" : "") + ")");
        Fields fields = new Fields();
        for (java.util.Iterator<java.util.Map.Entry<String, JsonNode>> it = c.fields(); it.hasNext(); ) {
            java.util.Map.Entry<String, JsonNode> field = it.next();
            if (!java.util.Set.of("name", "type", "origin", "stopped").contains(field.getKey())) {
                fields.add(field.getKey(), field.getValue().asText());
            }
        }
        fields.print(out);
    }

    private static String orDash(JsonNode node) {
        String text = text(node);
        return text == null ? "-" : text;
    }

    static void prepared(JsonNode branches, PrintWriter out) {
        if (branches.isEmpty()) {
            out.println("No prepared XA transaction branches.");
            return;
        }
        Table table = new Table(">FORMAT", "GTRID (HEX)", "BQUAL (HEX)", "OWNER", ">AGE", ">SENDS", ">CONSUMED",
                "PREPARED");
        for (JsonNode b : branches) {
            JsonNode owner = b.get("owner");
            table.row(b.get("formatId").asInt(), b.get("globalTransactionId").asText(),
                    b.get("branchQualifier").asText(), owner == null || owner.isNull() ? "(none)"
                            : owner.asText().isEmpty() ? "(anonymous)" : owner.asText(), age(b.get("ageMillis")), b.get("sends").asInt(),
                    b.get("consumed").asInt(), b.get("restored").asBoolean() ? "before the start at "
                            + time(b.get("preparedAt").asLong()) : time(b.get("preparedAt").asLong()));
        }
        table.print(out);
        out.println("Each waits for its transaction manager's commit or rollback; its sends stay invisible and what it"
                + " consumed held.");
    }

    static void defined(String verb, JsonNode q, PrintWriter out) {
        String others = otherSettings(q.get("settings"));
        out.println(verb + " queue " + q.get("name").asText() + ": max depth " + q.get("maxDepth").asLong()
                + (q.get("ownMaxDepth").asBoolean() ? "" : " (the server-wide maxQueueDepth)")
                + (others.isEmpty() ? "" : ", " + others) + ".");
    }

    /** The settings other than the name and maxDepth that are not at their default: "backoutThreshold 3, ...". */
    private static String otherSettings(JsonNode settings) {
        StringBuilder text = new StringBuilder();
        settings.fields().forEachRemaining(setting -> {
            String key = setting.getKey();
            if (!key.equals("name") && !key.equals("maxDepth") && !setting.getValue().isNull()) {
                text.append(text.length() == 0 ? "" : ", ").append(key).append(' ').append(setting.getValue().asText());
            }
        });
        return text.toString();
    }

    static void deleted(JsonNode d, PrintWriter out) {
        long discarded = d.get("discarded").asLong();
        out.println("Deleted queue " + d.get("queue").asText() + (discarded == 0 ? "."
                : " and the " + discarded + " messages waiting on it."));
    }

    static void cleared(JsonNode c, PrintWriter out) {
        long left = c.get("depth").asLong();
        out.println("Cleared queue " + c.get("queue").asText() + ": " + c.get("removed").asLong() + " messages removed"
                + (left == 0 ? "." : "; " + left + " still on it (delivered and not acknowledged, in open transactions,"
                + " or delayed)."));
    }

    /** @return whether every message matching was moved (or copied); else what stopped it is on {@code err} */
    static boolean transferred(String verb, JsonNode t, PrintWriter out, PrintWriter err) {
        long messages = t.get("messages").asLong();
        out.println(verb + " " + messages + (messages == 1 ? " message" : " messages") + " from "
                + t.get("from").asText() + " to " + t.get("to").asText() + ".");
        if (t.hasNonNull("stopped")) {
            err.println("wharf: stopped before the limit: " + t.get("stopped").asText());
            return false;
        }
        return true;
    }

    static void subscriptionDeleted(JsonNode d, PrintWriter out) {
        out.println("Deleted durable subscription " + d.get("subscription").asText()
                + (d.get("clientId").isNull() ? "" : " of client ID " + d.get("clientId").asText()) + ".");
    }

    static void browsed(String queue, JsonNode messages, PrintWriter out) {
        if (messages.isEmpty()) {
            out.println("No waiting message on queue " + queue + " matches.");
            return;
        }
        for (JsonNode m : messages) {
            out.println("Message " + m.get("position").asInt() + " on queue " + queue);
            Fields fields = new Fields();
            fields.add("JMSMessageID", text(m.get("messageId")));
            optional(fields, "JMSCorrelationID", m.get("correlationId"));
            fields.add("JMSTimestamp", time(m.get("timestamp").asLong()));
            fields.add("JMSDeliveryMode", m.get("persistent").asBoolean() ? "PERSISTENT" : "NON_PERSISTENT");
            fields.add("JMSPriority", m.get("priority").asInt());
            optional(fields, "JMSType", m.get("type"));
            fields.add("JMSDestination", m.get("destination").asText());
            optional(fields, "JMSReplyTo", m.get("replyTo"));
            if (m.get("expiration").asLong() != 0) {
                fields.add("JMSExpiration", time(m.get("expiration").asLong()));
            }
            if (m.get("deliveryTime").asLong() != 0) {
                fields.add("JMSDeliveryTime", time(m.get("deliveryTime").asLong()));
            }
            fields.add("JMSXDeliveryCount", m.get("deliveryCount").asInt());
            for (Iterator<Map.Entry<String, JsonNode>> p = m.get("properties").fields(); p.hasNext(); ) {
                Map.Entry<String, JsonNode> property = p.next();
                fields.add(property.getKey(), property.getValue().isNull() ? "(null)" : property.getValue().asText());
            }
            fields.print(out);
            body(m.get("body"), out);
        }
    }

    private static void body(JsonNode body, PrintWriter out) {
        int length = body.get("length").asInt();
        if (length < 0) {
            out.println("  (no body)");
            return;
        }
        out.println("  body: " + body.get("type").asText() + ", " + length + " bytes"
                + (body.get("truncated").asBoolean() ? " (the first ones shown)" : ""));
        if (body.hasNonNull("text")) {
            body.get("text").asText().lines().forEach(line -> out.println("    " + line));
            return;
        }
        byte[] bytes = HexFormat.of().parseHex(body.get("hex").asText());
        for (int offset = 0; offset < bytes.length; offset += HEX_LINE_BYTES) {
            int end = Math.min(bytes.length, offset + HEX_LINE_BYTES);
            StringBuilder hex = new StringBuilder();
            StringBuilder chars = new StringBuilder();
            for (int i = offset; i < end; i++) {
                hex.append(String.format("%02x ", bytes[i]));
                chars.append(bytes[i] >= 0x20 && bytes[i] < 0x7f ? (char) bytes[i] : '.');
            }
            out.println(String.format("    %08x  %-" + (3 * HEX_LINE_BYTES) + "s |%s|", offset, hex, chars));
        }
    }

    private static void optional(Fields fields, String name, JsonNode value) {
        if (value != null && !value.isNull()) {
            fields.add(name, value.asText());
        }
    }

    private static String text(JsonNode value) {
        return value == null || value.isNull() ? null : value.asText();
    }

    private static String time(long epochMillis) {
        return epochMillis == 0 ? "-" : Instant.ofEpochMilli(epochMillis).toString();
    }

    /** An age in the largest units that fit, {@code -} for none. */
    private static String age(JsonNode millis) {
        return millis == null || millis.isNull() ? "-" : duration(millis.asLong());
    }

    /** 850ms, 12s, 5m 3s, 2h 10m, 3d 4h. */
    static String duration(long millis) {
        long seconds = millis / 1000;
        if (seconds == 0) {
            return millis + "ms";
        }
        if (seconds < 60) {
            return seconds + "s";
        }
        if (seconds < 3600) {
            return seconds / 60 + "m " + seconds % 60 + "s";
        }
        if (seconds < 86_400) {
            return seconds / 3600 + "h " + seconds % 3600 / 60 + "m";
        }
        return seconds / 86_400 + "d " + seconds % 86_400 / 3600 + "h";
    }

    /** 512 B, 1.5 KiB, 12.0 MiB, 3.2 GiB. */
    static String bytes(long bytes) {
        if (bytes < 1024) {
            return bytes + " B";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB"};
        double value = bytes;
        int unit = -1;
        while (value >= 1024 && unit < units.length - 1) {
            value /= 1024;
            unit++;
        }
        return String.format(Locale.ROOT, "%.1f %s", value, units[unit]);
    }

    /** {@code name  value} lines, indented, names padded to the longest. */
    private static final class Fields {
        private final List<String[]> lines = new ArrayList<>();

        void add(String name, Object value) {
            lines.add(new String[]{name, value == null ? "-" : value.toString()});
        }

        void print(PrintWriter out) {
            int width = lines.stream().mapToInt(line -> line[0].length()).max().orElse(0);
            for (String[] line : lines) {
                out.println("  " + line[0] + " ".repeat(width - line[0].length() + 2) + line[1]);
            }
        }
    }
}
