package org.wharfmq.perf.workload;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The drivers of one step: which run inside the server JVM ({@code vm://}), which in their own JVMs, which are
 * measured (requesters, producers) and which only serve (responders, consumers), and their command lines.
 */
final class DriverPlan {

    /** A driver: its id, its options (without the provider's), where its JSON goes, whether it is measured. */
    record Spec(String id, List<String> baseArgs, Path json, boolean measured) {

        /** The full command line, given the options that reach the provider. */
        List<String> args(List<String> providerArgs) {
            List<String> args = new ArrayList<>(baseArgs);
            args.addAll(providerArgs);
            return args;
        }
    }

    private final List<Spec> hostedBackground = new ArrayList<>();
    private final List<Spec> hostedMeasured = new ArrayList<>();
    private final List<Spec> clientBackground = new ArrayList<>();
    private final List<Spec> clientMeasured = new ArrayList<>();
    private final String vmUrl;
    /** RR-5, RR-5b, OW-5: the queues on the second queue manager that the first one's clients put to. */
    private final List<String> forwardQueues = new ArrayList<>();
    /** RR-5: the reply queues on the first queue manager. */
    private final List<String> replyQueues = new ArrayList<>();

    /**
     * @param messageFile F-*: the input message, else null (a body of {@code size} bytes)
     * @param target      the server the step runs on (RR-5 names its reply queues through Wharf's queue-manager aliases;
     *                    the relay has every client in a JVM of its own, whatever the workload says:
     *                    {@link Target#clientsAlwaysOverTcp})
     */
    DriverPlan(Workload w, RunSettings s, int size, int clients, int responders, Path dir, String stepName, Path messageFile,
               Target target) {
        boolean overTcp = target.clientsAlwaysOverTcp();
        this.vmUrl = "vm://wharf-perf-" + ProcessHandle.current().pid();
        boolean pp = s.persistent();
        switch (w) {
            case RR_1, RR_2, RR_3, RR_4 -> {
                Spec resp = spec("resp", dir, stepName, false, s, size, "-tc", "jms.r11.Responder", "-nt", n(responders),
                        "-iq", "REQUEST", "-oq", "REPLY", "-pp", b(pp), "-tx", b(pp));
                Spec req = spec("req", dir, stepName, true, s, size, "-tc", "jms.r11.Requestor", "-nt", n(clients),
                        "-iq", "REQUEST", "-oq", "REPLY", "-pp", b(pp), "-co", b(s.correlationPerThread()));
                (w.respondersInServer() && !overTcp ? hostedBackground : clientBackground).add(resp);
                (w.requestersInServer() && !overTcp ? hostedMeasured : clientMeasured).add(req);
            }
            case RR_2B -> {
                // requester i and responder i use pair i mod n: REQUESTk in, REPLYk out
                String pairs = n(s.queues());
                hostedBackground.add(spec("resp", dir, stepName, false, s, size, "-tc", "jms.r11.Responder", "-nt", n(responders),
                        "-iq", "REQUEST", "-oq", "REPLY", "-dn", pairs, "-pp", b(pp), "-tx", b(pp)));
                clientMeasured.add(spec("req", dir, stepName, true, s, size, "-tc", "jms.r11.Requestor", "-nt", n(clients),
                        "-iq", "REQUEST", "-oq", "REPLY", "-dn", pairs, "-pp", b(pp), "-co", b(s.correlationPerThread())));
            }
            case RR_4B, RR_5B -> {
                if (w.twoQueueManagers()) { // RR-5b: the request queues on QM2, reached through channels
                    forwardQueues.addAll(QueueManagerPair.numbered("REQUEST", s.queues()));
                }
                String queues = n(s.queues());
                clientBackground.add(spec("resp", dir, stepName, false, s, size, "-tc", "jms.r11.Responder", "-nt", n(responders),
                        "-iq", "REQUEST", "-oq", "", "-dn", queues, "-pp", b(pp), "-tx", b(pp)));
                clientMeasured.add(spec("req", dir, stepName, true, s, size, "-tc", "jms.r11.Requestor", "-nt", n(clients),
                        "-iq", "REQUEST", "-oq", "", "-dn", queues, "-pp", b(pp)));
            }
            case RR_5 -> {
                // RR-2b's pairs on two queue managers: REQUESTk on QM2 through a channel, REPLYk on QM1, the reply
                // named QM1.Rk/REPLYk so that QM2 sends it back on pair k's channel (QueueManagerPair)
                String pairs = n(s.queues());
                forwardQueues.addAll(QueueManagerPair.numbered("REQUEST", s.queues()));
                replyQueues.addAll(QueueManagerPair.numbered("REPLY", s.queues()));
                clientBackground.add(spec("resp", dir, stepName, false, s, size, "-tc", "jms.r11.Responder", "-nt", n(responders),
                        "-iq", "REQUEST", "-oq", "REPLY", "-dn", pairs, "-pp", b(pp), "-tx", b(pp)));
                List<String> req = new ArrayList<>(List.of("-tc", "jms.r11.Requestor", "-nt", n(clients),
                        "-iq", "REQUEST", "-oq", "REPLY", "-dn", pairs, "-pp", b(pp), "-co", b(s.correlationPerThread())));
                if (target == Target.WHARF) {
                    req.addAll(List.of("-rm", QueueManagerPair.REPLY_ALIAS_PREFIX));
                }
                clientMeasured.add(spec("req", dir, stepName, true, s, size, req.toArray(String[]::new)));
            }
            case RR_RATED -> {
                // as RR-4, every requester held to --rate round trips/s, the requesters spread over several JVMs
                clientBackground.add(spec("resp", dir, stepName, false, s, size, "-tc", "jms.r11.Responder", "-nt", n(responders),
                        "-iq", "REQUEST", "-oq", "REPLY", "-pp", b(pp), "-tx", b(pp)));
                List<Integer> split = RatedSteps.split(clients);
                for (int j = 0; j < split.size(); j++) {
                    clientMeasured.add(spec("req" + (j + 1), dir, stepName, true, s, size, "-tc", "jms.r11.Requestor",
                            "-nt", n(split.get(j)), "-iq", "REQUEST", "-oq", "REPLY", "-pp", b(pp),
                            "-co", b(s.correlationPerThread()), "-rt", Double.toString(s.rate())));
                }
            }
            case RR_SHORT -> {
                clientBackground.add(spec("resp", dir, stepName, false, s, size, "-tc", "jms.r11.Responder", "-nt", n(responders),
                        "-iq", "REQUEST", "-oq", "REPLY", "-pp", b(pp), "-tx", b(pp)));
                clientMeasured.add(spec("req", dir, stepName, true, s, size, "-tc", "jms.r11.ShortSession", "-nt", n(clients),
                        "-iq", "REQUEST", "-oq", "REPLY", "-pp", b(pp), "-rt", Double.toString(s.rate())));
            }
            case CONNECT -> clientMeasured.add(spec("conn", dir, stepName, true, s, size, "-tc", "jms.r11.Connector",
                    "-nt", n(clients), "-rt", Double.toString(s.rate())));
            case OW_1, OW_5 -> {
                if (w.twoQueueManagers()) { // OW-5: the queues on QM2, reached through channels
                    forwardQueues.addAll(QueueManagerPair.numbered("OW", clients));
                }
                clientBackground.add(spec("recv", dir, stepName, false, s, size, "-tc", "jms.r11.Receiver", "-nt", n(clients),
                        "-d", "OW", "-dn", n(clients)));
                clientMeasured.add(spec("send", dir, stepName, true, s, size, "-tc", "jms.r11.Sender", "-nt", n(clients),
                        "-d", "OW", "-dn", n(clients), "-rt", Double.toString(s.rate()), "-pp", b(pp)));
            }
            case F_PASS, F_HDR, F_PARSE, F_WRITE, F_VALID, F_FILTER_FIRST, F_FILTER_LAST, F_OPAQUE,
                 F_ROUTE, F_COMPUTE, F_XSLT, F_CSV_PARSE, F_CSV_WRITE, F_FIXED_PARSE, F_FIXED_WRITE,
                 F_DB_INSERT, F_DB_UPDATE, F_DB_RETRIEVE, F_DB_ROUTE, F_FILE_OUT, F_JMS ->
                    // the flow is the responder: it keeps the requester's correlation id and properties
                    clientMeasured.add(spec("req", dir, stepName, true, s, size, "-tc", "jms.r11.Requestor", "-nt", n(clients),
                            "-iq", w.flow().inputQueue(), "-oq", w.flow().outputQueue(), "-co", "true", "-pp", b(pp),
                            "-mf", messageFile.toString()));
            case F_HTTP -> // HTTP clients; the runner gives them the flow's URL (-iq) once the server is up
                    clientMeasured.add(spec("req", dir, stepName, true, s, size, "-tc", "HttpRequestor", "-nt", n(clients),
                            "-mf", messageFile.toString()));
            case F_FILE -> // file feeders; the runner gives them the flow's folder (-iq) once the server is up
                    clientMeasured.add(spec("feed", dir, stepName, true, s, size, "-tc", "FileFeeder", "-nt", n(clients),
                            "-oq", w.flow().outputQueue(), "-mf", messageFile.toString()));
            case PS_N, PS_T, PS_D, F_PUB -> {
                PubSubPlan ps = new PubSubPlan(w, clients, s.responders());
                List<List<String>> subscribers = ps.subscriberArgs();
                for (int i = 0; i < subscribers.size(); i++) {
                    clientBackground.add(spec("sub" + (i + 1), dir, stepName, false, s, size, subscribers.get(i).toArray(String[]::new)));
                }
                List<String> publisher = new ArrayList<>(ps.publisherArgs(pp));
                if (messageFile != null) {
                    publisher.addAll(List.of("-mf", messageFile.toString())); // F-PUB: the seed's message
                }
                clientMeasured.add(spec("pub", dir, stepName, true, s, size, publisher.toArray(String[]::new)));
            }
        }
    }

    private Spec spec(String id, Path dir, String stepName, boolean measured, RunSettings s, int size, String... testArgs) {
        Path json = dir.resolve(stepName + "-" + id + ".json");
        List<String> args = new ArrayList<>(List.of(testArgs));
        args.addAll(List.of("-ms", n(size), "-mt", "bytes", "-to", n(s.timeoutSeconds(size)), "-id", id, "-jo", json.toString()));
        if (measured) {
            args.addAll(List.of("-rl", n(s.warmupSeconds() + s.runSeconds()), "-sw", n(s.warmupSeconds()), "-ss", "5"));
        } else {
            args.addAll(List.of("-rl", "0", "-ss", "0", "-su", "false"));
        }
        return new Spec(id, args, json, measured);
    }

    private static String n(long v) {
        return Long.toString(v);
    }

    private static String b(boolean v) {
        return Boolean.toString(v);
    }

    /** The {@code --driver} values for the server command, responders first. */
    List<String> hostedDrivers() {
        List<String> drivers = new ArrayList<>();
        for (Spec spec : concat(hostedBackground, hostedMeasured)) {
            List<String> args = spec.args(List.of("-pc", "Wharf", "-url", vmUrl));
            drivers.add(String.join(" ", args));
        }
        return drivers;
    }

    /** Ids of the measured drivers inside the server. */
    List<String> hostedMeasuredIds() {
        return hostedMeasured.stream().map(Spec::id).toList();
    }

    /** RR-5, RR-5b, OW-5: the queues on the second queue manager that the first one's clients put to. */
    List<String> forwardQueues() {
        return forwardQueues;
    }

    /** RR-5: the reply queues on the first queue manager. */
    List<String> replyQueues() {
        return replyQueues;
    }

    List<Spec> clientBackground() {
        return clientBackground;
    }

    /** Drivers in their own JVMs, run with {@code -xs true} so closing their input stops them. */
    List<Spec> clientMeasured() {
        return clientMeasured;
    }

    List<Spec> allSpecs() {
        List<Spec> all = concat(hostedMeasured, clientMeasured);
        all.addAll(concat(hostedBackground, clientBackground));
        return all;
    }

    private static List<Spec> concat(List<Spec> a, List<Spec> b) {
        List<Spec> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }
}
