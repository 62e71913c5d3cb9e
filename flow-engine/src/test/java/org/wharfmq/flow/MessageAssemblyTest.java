package org.wharfmq.flow;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Copy-on-write assemblies, read-only input, and bodies parsed at most once. */
class MessageAssemblyTest {

    private static MessageAssembly input(Domain domain, String body) {
        FlowMessage message = FlowMessage.ofBytes(domain, body.getBytes(StandardCharsets.UTF_8));
        message.headers().set(FlowMessage.JMS_MESSAGE_ID, "ID:1");
        message.setUserProperty("colour", "blue");
        MessageAssembly assembly = MessageAssembly.of(message, Folder.empty("Environment"));
        assembly.freeze();
        return assembly;
    }

    @Test
    void inputIsReadOnlyWithAMessageThatSaysToCopy() {
        MessageAssembly in = input(Domain.BLOB, "x");
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> in.message().setUserProperty("a", 1));
        assertTrue(e.getMessage().contains("assembly.copy()"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> in.localEnvironment().set("a", 1));
        assertThrows(IllegalStateException.class, () -> in.message().setBody("y"));
        in.environment().set("survives", true); // the Environment is always writable
        assertEquals(true, in.environment().get("survives"));
    }

    @Test
    void copySharesEverythingUntilWrittenThenCopiesOnlyThePartWritten() {
        MessageAssembly in = input(Domain.BLOB, "body");
        MessageAssembly out = in.copy();
        assertTrue(out.message().sharesEverythingWith(in.message()), "a fresh copy copies nothing");
        assertSame(in.message().bodyBytes(), out.message().bodyBytes(), "the body is never copied");

        out.message().setUserProperty("colour", "red");
        assertEquals("blue", in.message().userProperty("colour"), "the input is unchanged");
        assertEquals("red", out.message().userProperty("colour"));
        assertTrue(out.message().headers().sharesValuesWith(in.message().headers()), "headers still shared");
        assertFalse(out.message().userProperties().sharesValuesWith(in.message().userProperties()));
        assertSame(in.environment(), out.environment(), "one Environment per invocation");
    }

    @Test
    void writingTheOriginalAfterCopyingDoesNotLeakIntoTheCopy() {
        FlowMessage message = FlowMessage.ofText(Domain.BLOB, "t");
        message.setUserProperty("a", 1);
        MessageAssembly original = MessageAssembly.of(message, Folder.empty("Environment"));
        MessageAssembly copy = original.copy();
        original.message().setUserProperty("a", 2);
        assertEquals(1, copy.message().userProperty("a"));
    }

    @Test
    void propagatedAssemblyIsFrozen() {
        MessageAssembly out = input(Domain.BLOB, "x").copy();
        out.freeze();
        assertThrows(IllegalStateException.class, () -> out.message().setUserProperty("late", 1));
    }

    @Test
    void jsonBodyIsParsedOnlyWhenAskedAndAtMostOnceAcrossCopies() {
        MessageAssembly in = input(Domain.JSON, "{\"a\":1,\"b\":[1,2]}");
        assertEquals(0, in.message().parseCount(), "nothing parsed before a node asks");
        MessageAssembly c1 = in.copy();
        MessageAssembly c2 = c1.copy();
        assertEquals(1, c2.message().json().get("a").asInt());
        assertEquals(2, in.message().json().get("b").size());
        assertEquals(1, c1.message().parseCount(), "parsed once for all copies");
        assertSame(in.message().json(), c2.message().json());
    }

    @Test
    void jsonForUpdateChangesOnlyTheCopyAndIsSerialisedOnOutput() {
        MessageAssembly in = input(Domain.JSON, "{\"a\":1}");
        MessageAssembly out = in.copy();
        ((ObjectNode) out.message().jsonForUpdate()).put("a", 2);
        assertEquals(1, in.message().json().get("a").asInt(), "the input tree is untouched");
        assertEquals("{\"a\":2}", new String(out.message().bodyBytes(), StandardCharsets.UTF_8));
        assertEquals("{\"a\":1}", in.message().bodyText());
        MessageAssembly again = out.copy();
        ((ObjectNode) again.message().jsonForUpdate()).put("a", 3);
        assertEquals(2, out.message().json().get("a").asInt(), "a copy of a changed tree copies it before writing");
    }

    @Test
    void blobIsNeverParsed() {
        MessageAssembly in = input(Domain.BLOB, "{}");
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> in.message().json());
        assertTrue(e.getMessage().contains("BLOB"), e.getMessage());
    }

    @Test
    void destinationListAndExceptionList() {
        MessageAssembly out = input(Domain.BLOB, "x").copy();
        out.addDestination("Q1").addDestination("Q2");
        assertEquals(List.of("Q1", "Q2"), out.destinations());
        ExceptionList list = ExceptionList.EMPTY.with(new ExceptionList.Entry("n", "Throw", "T", "bad"));
        MessageAssembly failed = out.withExceptionList(list);
        assertTrue(failed.isReadOnly());
        assertEquals("n (Throw): T: bad", failed.exceptionList().render());
        assertTrue(out.exceptionList().isEmpty());
    }
}
