package org.wharfmq.perf.flow;

import org.junit.jupiter.api.Test;
import org.wharfmq.flow.Domain;
import org.wharfmq.flow.FlowMessage;
import org.wharfmq.flow.Folder;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.node.FileInputNode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** F-FILE's compute node: a feeder's file name becomes its correlation id and the file's number. */
class FileFlowTest {

    private static MessageAssembly fileRecord(String name) {
        FlowMessage message = FlowMessage.ofBytes(Domain.BLOB, new byte[] {1, 2, 3});
        message.properties().set(FileInputNode.FILE_NAME, name);
        MessageAssembly assembly = MessageAssembly.of(message, Folder.empty("Environment"));
        assembly.freeze();
        return assembly;
    }

    @Test
    void theFeedersKeyAndTheFilesNumberComeFromItsName() {
        String name = FileFlow.fileName("perf-1a2b-p77-3", 1042);
        assertEquals("perf-1a2b-p77-3~1042.msg", name);
        MessageAssembly out = FileFlow.tag(fileRecord(name));
        assertEquals("perf-1a2b-p77-3", out.message().correlationId());
        assertEquals(1042L, ((Number) out.message().userProperty(FileFlow.NUMBER)).longValue());
        assertEquals(3, out.message().bodyBytes().length, "the body goes on as it was read");
    }

    @Test
    void aFileNotNamedByAFeederIsRefusedByName() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> FileFlow.tag(fileRecord("orders.msg")));
        assertTrue(e.getMessage().contains("orders.msg") && e.getMessage().contains("KEY~NUMBER.msg"), e.getMessage());
    }
}
