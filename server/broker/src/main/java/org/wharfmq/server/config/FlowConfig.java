package org.wharfmq.server.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * A message flow deployed when the server starts: an entry under {@code flows} in the configuration.
 *
 * @param jar       the flow jar (a relative path is relative to the working directory)
 * @param className the jar's {@code org.wharfmq.flow.FlowFactory} class (YAML key {@code class})
 * @param instances threads per input node, null for 1
 */
public record FlowConfig(String jar, String className, Integer instances) {

    /** Creates an entry; Jackson calls this for each item under {@code flows}. */
    @JsonCreator
    public FlowConfig(@JsonProperty("jar") String jar, @JsonProperty("class") String className,
                      @JsonProperty("instances") Integer instances) {
        this.jar = jar;
        this.className = className;
        this.instances = instances;
    }

    /** Threads per input node (1 when not set). */
    public int instanceCount() {
        return instances == null ? 1 : instances;
    }
}
