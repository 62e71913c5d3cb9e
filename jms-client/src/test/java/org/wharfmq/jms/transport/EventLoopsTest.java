package org.wharfmq.jms.transport;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The client's TCP network threads: one per processor unless the JVM is told otherwise. */
class EventLoopsTest {

    @AfterEach
    void clear() {
        System.clearProperty(EventLoops.IO_THREADS_PROPERTY);
    }

    @Test
    void onePerProcessorByDefault() {
        assertEquals(Runtime.getRuntime().availableProcessors(), EventLoops.tcpThreads());
        System.setProperty(EventLoops.IO_THREADS_PROPERTY, "0");
        assertEquals(Runtime.getRuntime().availableProcessors(), EventLoops.tcpThreads(), "0 means the default");
    }

    @Test
    void thePropertySetsTheCount() {
        System.setProperty(EventLoops.IO_THREADS_PROPERTY, "3");
        assertEquals(3, EventLoops.tcpThreads());
    }
}
