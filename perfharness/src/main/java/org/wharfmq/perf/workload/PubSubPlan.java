package org.wharfmq.perf.workload;

import org.wharfmq.perf.flow.PublicationFlow;

import java.util.ArrayList;
import java.util.List;

/**
 * The processes of a publish/subscribe step (PS-N, PS-T, PS-D, and F-PUB, where the publisher puts its messages
 * on the input queue of a flow that publishes them on the topic the subscribers take: seed 002's layout).
 *
 * <p>Layout. The publisher runs in a JVM of its own; the subscribers in JVMs of their own, at most
 * {@link #SUBSCRIBERS_PER_JVM} per JVM (a thread and a session each, as JMSPerfHarness's Subscriber), the sessions
 * of a JVM spread over connections of {@link #SESSIONS_PER_CONNECTION} (many subscribers = many sessions on a
 * few connections, which is what a 2-core machine can hold for 1000 subscribers; a connection per subscriber
 * would measure the client JVM's socket threads instead of the server).
 *
 * <p>Pacing. The publisher is held within {@link #FLOW_WINDOW} publications of the slowest subscriber (each
 * subscriber JVM reports its progress on a topic of its own, the publisher's window listens, see the driver's
 * {@code -fw}): so the publication rate follows what the subscribers really take and the server's subscription
 * queues stay short.
 *
 * <p>Counting. Deliveries/s, the spec's count, are counted at the subscribers: each subscriber JVM counts what its
 * subscribers received in each wall-clock second and the runner adds the JVMs up second by second
 * ({@link StepRates#atSubscribers}).
 *
 * <p>The step's numbers, stepped by the runner's client count: PS-N and PS-D step the subscriber count N
 * ({@code --subscribers}); PS-T steps the dummy subscription count D ({@code --dummies}) with N
 * ({@code --subscribers}, one value) subscribers, each on its own topic {@code PS/T/n} with a publisher thread of
 * its own, so every publication matches exactly one subscription.
 */
final class PubSubPlan {

    /** Subscribers in one JVM at most; more subscribers start more JVMs. */
    static final int SUBSCRIBERS_PER_JVM = 250;
    /** Subscriber sessions sharing one connection. */
    static final int SESSIONS_PER_CONNECTION = 25;
    /** How many publications the publisher may be ahead of the slowest subscriber. */
    static final int FLOW_WINDOW = 2000;
    /** PS-T's subscriber (and topic) count when {@code --subscribers} is not given. */
    static final int DEFAULT_TOPIC_SUBSCRIBERS = 10;

    private static final String SINGLE_TOPIC = "PS/N";
    private static final String TOPIC_PREFIX = "PS/T/";

    private final Workload workload;
    private final int subscribers;
    private final int dummies;

    /**
     * @param clients    the runner's stepped count: N for PS-N and PS-D, D for PS-T
     * @param responders PS-T's N (0 = the default); otherwise unused
     */
    PubSubPlan(Workload workload, int clients, int responders) {
        this.workload = workload;
        if (workload == Workload.PS_T) {
            this.subscribers = responders > 0 ? responders : DEFAULT_TOPIC_SUBSCRIBERS;
            this.dummies = clients;
        } else {
            this.subscribers = clients;
            this.dummies = 0;
        }
    }

    /** Subscribers of the step. */
    int subscribers() {
        return subscribers;
    }

    /** What the report shows in its "responders" column: PS-T's subscribers, else the subscriber JVMs. */
    int reportedResponders() {
        return workload == Workload.PS_T ? subscribers : subscriberJvms();
    }

    int subscriberJvms() {
        return (subscribers + SUBSCRIBERS_PER_JVM - 1) / SUBSCRIBERS_PER_JVM;
    }

    private boolean durable() {
        return workload == Workload.PS_D;
    }

    /** The test options of each subscriber JVM (the runner adds size, timeout, run length and provider). */
    List<List<String>> subscriberArgs() {
        List<List<String>> all = new ArrayList<>();
        int jvms = subscriberJvms();
        int first = 0;
        for (int j = 0; j < jvms; j++) {
            int count = subscribers / jvms + (j < subscribers % jvms ? 1 : 0);
            List<String> args = new ArrayList<>(List.of("-tc", "jms.r11.Subscriber", "-nt", Integer.toString(count),
                    "-sc", Integer.toString(SESSIONS_PER_CONNECTION), "-fw", Integer.toString(FLOW_WINDOW),
                    "-du", Boolean.toString(durable())));
            args.addAll(destinationArgs(first, count));
            if (j == 0 && dummies > 0) {
                args.addAll(List.of("-dd", Integer.toString(dummies)));
            }
            all.add(args);
            first += count;
        }
        return all;
    }

    /** The publisher JVM's test options. */
    List<String> publisherArgs(boolean persistent) {
        int threads = workload == Workload.PS_T ? subscribers : 1;
        List<String> args = new ArrayList<>(List.of("-tc", "jms.r11.Publisher", "-nt", Integer.toString(threads),
                "-fw", Integer.toString(FLOW_WINDOW), "-fp", Integer.toString(subscriberJvms()),
                "-pp", Boolean.toString(persistent || durable())));
        args.addAll(destinationArgs(0, threads));
        if (workload == Workload.F_PUB) {
            args.addAll(List.of("-fq", PublicationFlow.INPUT_QUEUE));
        }
        return args;
    }

    /** PS-N/PS-D: the one topic; PS-T: topics PS/T/(first+1) .. PS/T/(first+count), a thread each. */
    private List<String> destinationArgs(int first, int count) {
        if (workload == Workload.F_PUB) {
            return List.of("-d", PublicationFlow.TOPIC);
        }
        if (workload != Workload.PS_T) {
            return List.of("-d", SINGLE_TOPIC);
        }
        return List.of("-d", TOPIC_PREFIX, "-db", Integer.toString(first + 1), "-dn", Integer.toString(count));
    }
}
