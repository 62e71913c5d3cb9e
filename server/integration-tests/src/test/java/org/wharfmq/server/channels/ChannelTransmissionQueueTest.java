package org.wharfmq.server.channels;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.wharfmq.server.it.LogMessages;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A sender whose transmission queue does not exist (a channel defined before its queue, with autoCreate off) says so
 * as the channel's: which queue, that it is the channel's transmission queue, and the command that defines it; it
 * retries after retryMillis, doubled each time up to maxRetryMillis.
 */
class ChannelTransmissionQueueTest {

    private final ChannelServers servers = new ChannelServers();

    @AfterEach
    void stop() throws Exception {
        servers.close();
    }

    @Test
    void aSenderWhoseTransmissionQueueDoesNotExistNamesItAndTheCommandThatDefinesIt() throws Exception {
        try (LogMessages log = LogMessages.of(SenderChannel.class.getName())) {
            servers.start(c -> c.name("QM1").autoCreate(false), ChannelDefinition.sender("QM1.TO.QM9",
                    "tcp://127.0.0.1:9", "QM9", null, null).withTimes(50, 60_000).withMaxRetry(150));

            String warning = log.poll(ChannelServers.EXPECTED_MS);
            assertNotNull(warning, "no warning of channel QM1.TO.QM9");
            assertTrue(warning.startsWith("Channel QM1.TO.QM9 ")
                    && warning.contains("its transmission queue 'QM9' does not exist")
                    && warning.contains("'wharf admin define queue QM9 --usage transmission'")
                    && warning.endsWith("; retrying in 50 ms"), warning);
            // each retry waits twice as long as the last, up to maxRetryMillis
            for (long millis : new long[]{100, 150, 150}) {
                warning = log.poll(ChannelServers.EXPECTED_MS);
                assertNotNull(warning, "no retry after " + millis / 2 + " ms");
                assertTrue(warning.endsWith("; retrying in " + millis + " ms"), warning);
            }
        }
    }
}
