package org.wharfmq.server.transport;

import io.netty.util.ResourceLeakDetector;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;

/**
 * Netty's leak detector for the server's buffers: <b>off</b> unless the JVM is given a level. Netty's own default
 * (SIMPLE) records a stack trace for one buffer in 128, which cost 1-2 % of each event loop's time in every workload
 * measured (docs/performance-log.md, sessions 27 and 33); a leak it would report shows in the field as direct memory
 * that grows past what the queues hold ({@code wharf admin display server}, the metric
 * {@code wharf.memory.direct.used}), and the build's tests run with it on (pom.xml, {@code wharf.test.jvm.flags}).
 * To diagnose a leak, start the server with {@code -Dio.netty.leakDetection.level=advanced} (docs/operations.md,
 * "Netty's leak detector"): a level given in any of Netty's properties is kept as Netty read it.
 *
 * <p>The level is the JVM's (Netty's is a static): a program that embeds the server and wants the detector for its
 * own use of the same Netty gives the property.
 */
public final class LeakDetection {

    private static final System.Logger LOG = System.getLogger(LeakDetection.class.getName());

    /** The property that sets Netty's level; its older spellings beside it. */
    static final String LEVEL = "io.netty.leakDetection.level";
    private static final List<String> GIVEN = List.of(LEVEL, "io.netty.leakDetectionLevel",
            "io.netty.noResourceLeakDetection");
    /** Whether the detector's being on was logged: once a JVM, whatever the queue managers it starts. */
    private static final AtomicBoolean SAID = new AtomicBoolean();

    private LeakDetection() {
    }

    /**
     * Turns Netty's leak detector off unless one of its properties gives a level; says so, once, when one does (the
     * detector costs every message while it runs). Called as a queue manager starts: {@code WharfServer}'s start,
     * and before it {@code JournalOpening}'s, where {@code wharf server} and the perf harness's server begin.
     */
    public static void applyDefault() {
        ResourceLeakDetector.Level level = chosen(System::getProperty);
        if (level != null) {
            ResourceLeakDetector.setLevel(level);
        } else if (SAID.compareAndSet(false, true)) {
            LOG.log(System.Logger.Level.INFO, "Netty's leak detector is on (" + ResourceLeakDetector.getLevel()
                    + ", given by -D" + given(System::getProperty) + "): a diagnosis costs CPU on every message;"
                    + " leave the property out to run without it.");
        }
    }

    /** The level the server sets: off when none of Netty's properties is given, else null (Netty's reading stands). */
    static ResourceLeakDetector.Level chosen(UnaryOperator<String> properties) {
        return given(properties) == null ? ResourceLeakDetector.Level.DISABLED : null;
    }

    private static String given(UnaryOperator<String> properties) {
        return GIVEN.stream().filter(p -> properties.apply(p) != null).findFirst().orElse(null);
    }
}
