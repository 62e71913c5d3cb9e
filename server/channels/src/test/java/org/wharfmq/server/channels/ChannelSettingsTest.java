package org.wharfmq.server.channels;

import org.junit.jupiter.api.Test;
import org.wharfmq.server.config.ConfigurationException;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The list {@code channels:} as a whole: each channel's name its own, each transmission queue one sender's. */
class ChannelSettingsTest {

    private static ChannelDefinition sender(String name, String transmissionQueue) {
        return ChannelDefinition.sender(name, "tcp://qm2:7414", transmissionQueue, null, null);
    }

    @Test
    void aTransmissionQueueHasOneSender() {
        assertEquals(3, new ChannelSettings(List.of(sender("QM1.TO.QM2.1", "QM2.XMIT.1"),
                sender("QM1.TO.QM2.2", "QM2.XMIT.2"), ChannelDefinition.receiver("QM2.TO.QM1", null, "QM2")))
                .channels().size(), "several channels between two queue managers, each with its own queue");

        String refused = assertThrows(ConfigurationException.class, () -> new ChannelSettings(List.of(
                sender("QM1.TO.QM2", "QM2"), ChannelDefinition.receiver("QM2.TO.QM1", null, "QM2"),
                sender("QM1.TO.QM2.B", "QM2")))).getMessage();
        assertEquals("Channels 'QM1.TO.QM2' and 'QM1.TO.QM2.B' are both senders of transmission queue 'QM2': a"
                + " transmission queue has one sender channel, which keeps its messages in order (two would share them"
                + " out of order). Give each sender a transmission queue of its own (usage: transmission), and the"
                + " remote definitions or queue-manager aliases that lead to it (docs/distributed.md, \"Limits\").",
                refused);
    }
}
