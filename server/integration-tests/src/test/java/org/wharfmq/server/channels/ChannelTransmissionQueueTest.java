package org.wharfmq.server.channels;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.wharfmq.server.it.LogMessages;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A sender whose transmission queue does not exist (a channel defined before its queue, with autoCreate off) says so
 * as the channel's: which queue, that it is the channel's transmission queue, and the command that defines it; it
 * retries after retryMillis, doubled each time up to maxRetryMillis; and {@code wharf admin stop|delete channel} say
 * so too, rather than speak of what the queue keeps.
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

    /**
     * A sender defined at run time before its transmission queue, with the real command line: its delete refused while
     * it retries (not deleted, why it retries, the fix), its stop and its delete saying the queue does not exist.
     */
    @Test
    void deletingASenderWhoseTransmissionQueueDoesNotExistSaysWhatHappenedAndTheFix() throws Exception {
        ChannelsPlugin[] plugin = new ChannelsPlugin[1];
        try (LogMessages log = LogMessages.of(SenderChannel.class.getName())) {
            String url = servers.keep(AdminCli.start(c -> c.name("QM1").autoCreate(false), plugin)).server().tcpUrl();
            AdminCli.ok(url, "define", "channel", "QM1.TO.QM9", "--type", "sender", "--connection",
                    "tcp://127.0.0.1:9", "--xmitq", "QM9", "--retry-millis", "60000");
            assertNotNull(log.poll(ChannelServers.EXPECTED_MS), "no warning of channel QM1.TO.QM9"); // it retries

            assertEquals("Channel 'QM1.TO.QM9' is not deleted: it is RETRYING (its transmission queue QM9 does not"
                    + " exist). Stop it first ('wharf admin stop channel QM1.TO.QM9'), then delete it.",
                    AdminCli.refused(url, "delete", "channel", "QM1.TO.QM9"));
            assertEquals("Channel QM1.TO.QM9 stopped (its transmission queue QM9 does not exist: define it ('wharf"
                    + " admin define queue QM9 --usage transmission') before you start the channel again)\n",
                    AdminCli.ok(url, "stop", "channel", "QM1.TO.QM9"));
            assertEquals("Channel QM1.TO.QM9 deleted (its transmission queue QM9 does not exist: nothing was waiting"
                    + " to be sent)\n", AdminCli.ok(url, "delete", "channel", "QM1.TO.QM9"));
            assertTrue(AdminCli.refused(url, "display", "channel", "QM1.TO.QM9").startsWith("No channel named"
                    + " 'QM1.TO.QM9' is defined"), "deleted");
        }
    }
}
