package org.wharfmq.server.channels;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A sender whose transmission queue does not exist (a channel defined before its queue, with autoCreate off) says so
 * as the channel's: which queue, that it is the channel's transmission queue, and the command that defines it.
 */
class ChannelTransmissionQueueTest {

    private final ChannelServers servers = new ChannelServers();
    private final List<String> warnings = new CopyOnWriteArrayList<>();
    private final Logger senderLog = Logger.getLogger(SenderChannel.class.getName());
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            warnings.add(record.getMessage());
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @AfterEach
    void stop() throws Exception {
        senderLog.removeHandler(capture);
        servers.close();
    }

    @Test
    void aSenderWhoseTransmissionQueueDoesNotExistNamesItAndTheCommandThatDefinesIt() throws Exception {
        senderLog.addHandler(capture);
        servers.start(c -> c.name("QM1").autoCreate(false),
                ChannelDefinition.sender("QM1.TO.QM9", "tcp://127.0.0.1:9", "QM9", null, null).withTimes(50, 60_000));

        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ChannelServers.EXPECTED_MS);
        while (warnings.stream().noneMatch(w -> w.startsWith("Channel QM1.TO.QM9 ")) && System.nanoTime() < deadline) {
            LockSupport.parkNanos(1_000_000);
        }
        String warning = warnings.stream().filter(w -> w.startsWith("Channel QM1.TO.QM9 ")).findFirst()
                .orElseThrow(() -> new AssertionError("no warning of channel QM1.TO.QM9: " + warnings));
        assertTrue(warning.contains("its transmission queue 'QM9' does not exist")
                && warning.contains("'wharf admin define queue QM9 --usage transmission'")
                && warning.contains("retrying in"), warning);
    }
}
