package org.wharfmq.perf.workload;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The steps of a {@code perf compare} run's results.json, each checked to have passed and counted its round trips. */
public final class CompareSteps {

    private CompareSteps() {
    }

    /** Every step in {@code out}'s results.json, in order, once each is checked to have passed and counted and timed. */
    public static List<JsonNode> passedAndCounted(Path out) throws IOException {
        List<JsonNode> steps = new ArrayList<>();
        for (JsonNode step : new ObjectMapper().readTree(out.resolve("results.json").toFile())) {
            assertTrue(step.get("passed").asBoolean() && step.get("unavailable").isNull(), step.toString());
            assertTrue(step.get("meanRate").asDouble() > 0 && step.get("latencyMicros").get("count").asLong() > 0,
                    "round trips were counted and timed: " + step);
            steps.add(step);
        }
        return steps;
    }

    /** The target (server) of each step, in order. */
    public static List<String> targets(List<JsonNode> steps) {
        return steps.stream().map(step -> step.get("target").asText()).toList();
    }
}
